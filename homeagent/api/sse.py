"""Agent events on the wire: Server-Sent Event frames, and where a permission is answered.

The agent's `PermissionRequested` says what is asked; how to answer it over HTTP is the
API's business, so the `answer_url` field is added here when an event is serialised.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiohttp import web

from homeagent.api.bodies import dumps
from homeagent.io.events import AgentEvent, event_to_dict
from homeagent.log import get_logger

log = get_logger("homeagent.api")

SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def sse_frame(event: str, data: Mapping[str, Any], event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {dumps(data)}\n\n".encode()


def permission_url(run_id: str, request_id: str) -> str:
    return f"/api/agent/runs/{run_id}/permissions/{request_id}"


def with_answer_url(type_: str, payload: dict[str, Any], run_id: str) -> dict[str, Any]:
    """A `permission_request` payload carries the URL its answer is posted to."""
    if type_ == "permission_request" and not payload.get("answer_url"):
        payload = {**payload, "answer_url": permission_url(run_id, str(payload.get("request_id", "")))}
    return payload


def event_payload(event: AgentEvent, turn_id: str) -> dict[str, Any]:
    """An event as `/api/chat` sends it (its `type` included)."""
    return with_answer_url(event.type, event_to_dict(event), turn_id)


async def end_with_error(request: web.Request, response: web.StreamResponse, err: BaseException, message: str) -> None:
    """Something failed after the stream's headers went out: a status can no longer be
    sent, so the stream ends with an `error` event (never an HTTP response inside it)."""
    if request.transport is None or request.transport.is_closing():
        log.info("api.stream.client_gone", path=request.path, error=repr(err))
        return
    log.error("api.stream.failed", path=request.path, error=repr(err), exc_info=err)
    try:
        await response.write(sse_frame("error", {"type": "error", "kind": "internal_error", "message": message}))
    except (ConnectionError, AssertionError, RuntimeError):
        log.info("api.stream.client_gone", path=request.path)
