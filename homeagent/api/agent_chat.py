"""`POST /api/chat`: one turn, streamed as Server-Sent Events of agent events.

Request: `{"message": "...", "device_id": "...", "context": "...", "cancel_running": false}`.
Each frame is `event: <type>` plus `data: <json>`; types are turn_started, text_delta,
tool_call, tool_result, done and error. The stream ends after done or error.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from homeagent.api.auth import member_of
from homeagent.api.keys import APP
from homeagent.api.middleware import read_json
from homeagent.errors import RequestError
from homeagent.io import Capabilities, ask
from homeagent.io.events import TurnDone, TurnFailed, event_to_dict

MAX_MESSAGE_CHARS = 32_000
# /api/chat and runs stream, and their clients answer permission requests over HTTP.
HTTP_AGENT = Capabilities(streams=True, confirms=True)


def _field(body: dict[str, Any], name: str, default: Any, kind: type) -> Any:
    value = body.get(name, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RequestError(f"{name}: expected {kind.__name__}", param=name)
    return value


def sse_frame(event: str, data: dict[str, Any], event_id: int | None = None, *, run_id: str = "") -> bytes:
    if event == "permission_request" and run_id and not data.get("answer_url"):
        # Where an HTTP client answers: the agent's event names no route.
        data = {**data, "answer_url": f"/api/agent/runs/{run_id}/permissions/{data['request_id']}"}
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


async def agent_chat(request: web.Request) -> web.StreamResponse:
    app = request.app[APP]
    body = await read_json(request)
    message = body.get("message")
    if not isinstance(message, str) or not message.strip():
        raise RequestError("message: required, a non-empty string", param="message")
    if len(message) > MAX_MESSAGE_CHARS:
        raise RequestError(f"message: longer than {MAX_MESSAGE_CHARS} characters", param="message")
    device = _field(body, "device_id", "", str) or (request.remote or "")
    context = _field(body, "context", "", str)
    cancel_running = _field(body, "cancel_running", False, bool)
    channel = _field(body, "channel", "http", str) or "http"
    await app.devices.touch(channel, device)
    member = member_of(request, _field(body, "member", "", str))
    interrupt = await ask(
        app.inbox, message, channel=channel, device_id=device, context=context,
        cancel_running=cancel_running, member=member, capabilities=HTTP_AGENT,
    )
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )
    finished = False
    try:
        await response.prepare(request)
        async with interrupt.reply.events as events:
            async for event in events:
                await response.write(sse_frame(event.type, event_to_dict(event), run_id=interrupt.turn_id))
                if isinstance(event, TurnDone | TurnFailed):
                    finished = True
        await response.write_eof()
    finally:
        if not finished:
            interrupt.reply.cancel()
    return response
