"""`POST /api/chat`: one turn, streamed as Server-Sent Events of agent events.

Request: `{"message": "...", "device_id": "...", "context": "...", "cancel_running": false}`.
Each frame is `event: <type>` plus `data: <json>`; types are turn_started, text_delta,
tool_call, tool_result, done and error. The stream ends after done or error.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from homeagent.api.auth import member_of
from homeagent.api.bodies import check_message
from homeagent.api.keys import AGENT_CHAT_CHANNEL
from homeagent.api.middleware import read_json
from homeagent.api.sse import SSE_HEADERS, end_with_error, event_payload, sse_frame
from homeagent.errors import RequestError


def _field(body: dict[str, Any], name: str, default: Any, kind: type) -> Any:
    value = body.get(name, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RequestError(f"{name}: expected {kind.__name__}", param=name)
    return value


async def agent_chat(request: web.Request) -> web.StreamResponse:
    body = await read_json(request)
    message = body.get("message")
    if not isinstance(message, str) or not message.strip():
        raise RequestError("message: required, a non-empty string", param="message")
    check_message(message, "message")
    device = _field(body, "device_id", "", str) or (request.remote or "")
    context = check_message(_field(body, "context", "", str), "context")
    cancel_running = _field(body, "cancel_running", False, bool)
    label = _field(body, "channel", "http", str) or "http"
    member = _field(body, "member", "", str)
    channel = request.app[AGENT_CHAT_CHANNEL]
    response = web.StreamResponse(headers=SSE_HEADERS)
    # Leaving this block before the turn's end (the client went away) cancels the turn.
    async with channel.turn(
        message, device_id=device, label=label, context=context, cancel_running=cancel_running,
        member=member_of(request, member),
    ) as turn:
        await response.prepare(request)
        try:
            async for event in turn:
                await response.write(sse_frame(event.type, event_payload(event, turn.turn_id)))
        except ConnectionError:
            raise  # the client went away: nobody to tell
        except Exception as err:  # noqa: BLE001 - the headers went out: end the stream with an error event
            await end_with_error(request, response, err, "the turn failed on the server; see the daemon log")
            return response
        await response.write_eof()
    return response
