"""Agent events on the wire: Server-Sent Event frames, and where a permission is answered.

The agent's `PermissionRequested` says what is asked; how to answer it over HTTP is the
API's business, so the `answer_url` field is added here when an event is serialised.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeagent.api.bodies import dumps
from homeagent.io.events import AgentEvent, event_to_dict

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
