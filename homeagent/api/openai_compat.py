"""The OpenAI-compatible surface: `GET /v1/models`, `POST /v1/chat/completions`.

The agent is stateful and OpenAI clients are not: a request's last user message becomes
the turn's interrupt, the agent's own memory supplies the history (earlier messages the
client re-sends are not replayed), and the client's system messages are extra context for
that turn only. Sampling parameters of the request are not applied: the one agent speaks
with its configured settings.

A request's `tools` are client-side tools (homeagent/io/client_tools.py): a call to one
ends the response with `finish_reason: "tool_calls"`, and a request whose messages end
with the `tool` results (matched by `tool_call_id`) resumes the same waiting turn.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Container
from typing import Any

from aiohttp import web

from homeagent.api.auth import member_of
from homeagent.api.bodies import check_message, dumps
from homeagent.api.client_tools import parse_client_tools
from homeagent.api.keys import HEALTH, OPENAI_CHANNEL, PROVIDER, TOOLS
from homeagent.api.middleware import error_body, error_response, read_json
from homeagent.api.sse import SSE_HEADERS
from homeagent.errors import NotFoundError, RequestError
from homeagent.io.client_tools import ClientTurn, Paused
from homeagent.io.events import AnswerDelta, TurnDone, TurnFailed, TurnNotice

AGENT_MODEL_ID = "homeagent"


def _model_ids(request: web.Request) -> list[str]:
    return list(dict.fromkeys([AGENT_MODEL_ID, request.app[PROVIDER].model]))


async def list_models(request: web.Request) -> web.Response:
    created = int(request.app[HEALTH].started_at)
    return web.json_response(
        {
            "object": "list",
            "data": [
                {"id": mid, "object": "model", "created": created, "owned_by": "homeagent"}
                for mid in _model_ids(request)
            ],
        }
    )


def _text_of(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, list):
        parts = []
        for i, part in enumerate(content):
            if not isinstance(part, dict) or "type" not in part:
                raise RequestError(f"{where}[{i}]: expected a content part object with a type", param=where)
            if part["type"] == "text":
                if not isinstance(part.get("text"), str):
                    raise RequestError(f"{where}[{i}].text: expected a string", param=where)
                parts.append(part["text"])
            else:
                raise RequestError(
                    f"{where}[{i}]: content parts of type {part['type']!r} are not supported; send text",
                    param=where,
                )
        return "".join(parts)
    raise RequestError(f"{where}: expected a string or a list of content parts", param=where)


def parse_chat_request(body: dict[str, Any], known_models: list[str], own_tools: Container[str] = ()) -> dict[str, Any]:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise RequestError("model: required, a string such as 'homeagent'", param="model")
    if model not in known_models:
        raise NotFoundError(
            f"model {model!r} does not exist; GET /v1/models lists: {', '.join(known_models)}",
            param="model",
        )
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("messages: required, a non-empty list of message objects", param="messages")
    system: list[str] = []
    user_text: str | None = None
    results: dict[str, tuple[bool, str]] = {}  # the trailing tool messages: client tool results
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise RequestError(f"messages[{i}]: expected an object", param="messages")
        role = message.get("role")
        if role not in ("system", "developer", "user", "assistant", "tool"):
            raise RequestError(
                f"messages[{i}].role: expected system, developer, user, assistant or tool, got {role!r}",
                param="messages",
            )
        text = _text_of(message.get("content"), f"messages[{i}].content")
        if role in ("system", "developer") and text.strip():
            system.append(text)
        elif role == "user" and text.strip():
            user_text = text  # the last user message with text is the turn
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise RequestError(f"messages[{i}].tool_call_id: required on a tool message", param="messages")
            results[call_id] = (True, text)
        elif role != "system":
            results = {}  # only the results after the last assistant message resume a turn
    tools = parse_client_tools(body.get("tools"), own_tools)
    if not tools:
        results = {}  # no client tools: tool messages are only history
    if not results and (user_text is None or not user_text.strip()):
        raise RequestError("messages: no user message with text to answer", param="messages")
    check_message(user_text or "", "messages")
    check_message("\n\n".join(system), "messages")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise RequestError("stream: expected true or false", param="stream")
    options = body.get("stream_options") or {}
    if not isinstance(options, dict):
        raise RequestError("stream_options: expected an object", param="stream_options")
    user = body.get("user", "")
    if not isinstance(user, str):
        raise RequestError("user: expected a string", param="user")
    return {
        "model": model,
        "text": user_text,
        "context": "\n\n".join(system),
        "stream": stream,
        "include_usage": bool(options.get("include_usage", False)),
        "user": user,
        "tools": tools,
        "results": results,
    }


def _notice_text(notice: TurnNotice) -> str:
    """OpenAI clients have no notice channel: the user reads the notice in the answer."""
    return f"\n\n{notice.text}\n\n" if notice.kind == "midstream" else f"{notice.text}\n\n"


def _usage(done: TurnDone) -> dict[str, int]:
    return {
        "prompt_tokens": done.prompt_tokens,
        "completion_tokens": done.completion_tokens,
        "total_tokens": done.prompt_tokens + done.completion_tokens,
    }


def _finish(done: TurnDone) -> str:
    return "length" if done.finish_reason == "length" else "stop"


async def chat_completions(request: web.Request) -> web.StreamResponse:
    own = request.app[TOOLS]
    req = parse_chat_request(await read_json(request), _model_ids(request), own)
    device = req["user"] or (request.remote or "")
    member = member_of(request, req["user"])
    channel = request.app[OPENAI_CHANNEL]
    if req["tools"] or req["results"]:
        return await _client_tools_completion(request, req, device=device, member=member)
    # Leaving this block before the turn's end (the client went away) cancels the turn.
    async with channel.turn(req["text"], device_id=device, context=req["context"], member=member) as turn:
        response, _ = await _completion(request, req, turn.turn_id, turn, whole_answer=True)
        return response


async def _completion(
    request: web.Request, req: dict[str, Any], turn_id: str, events: AsyncIterator[Any], *, whole_answer: bool
) -> tuple[web.StreamResponse, bool]:
    """The one writer of a chat completion, plain or streamed, for both kinds of turn: an
    ordinary turn's events, or a client-tools turn's, which may end with `Paused` (calls
    to the client's tools: `finish_reason: "tool_calls"`). `whole_answer`: the answer is
    the `TurnDone` text (an ordinary turn); otherwise only the deltas this request saw
    (a resumed turn's response holds only its own part). Returns the response and
    whether the turn paused."""
    completion_id = "chatcmpl-" + turn_id.removeprefix("turn_")
    created = int(time.time())
    head = {"id": completion_id, "created": created, "model": req["model"]}
    if not req["stream"]:
        parts: list[str] = []
        async for event in events:
            if isinstance(event, AnswerDelta) and not whole_answer:
                parts.append(event.text)
            elif isinstance(event, TurnNotice):
                parts.append(_notice_text(event))
            elif isinstance(event, TurnFailed):
                return error_response(502, f"the model failed: {event.message}", code=event.kind), False
            elif isinstance(event, Paused | TurnDone):
                message: dict[str, Any] = {"role": "assistant", "content": "".join(parts) or None}
                if isinstance(event, Paused):
                    message["tool_calls"] = _tool_calls(event, indexed=False)
                    finish, usage = "tool_calls", {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
                else:
                    message["content"] = (message["content"] or "") + (event.text if whole_answer else "")
                    finish, usage = _finish(event), _usage(event)
                body = {**head, "object": "chat.completion",
                        "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}
                return web.json_response(body, dumps=dumps), isinstance(event, Paused)
        return error_response(500, "the turn ended without an answer", code="internal_error"), False

    response = web.StreamResponse(headers=SSE_HEADERS)
    await response.prepare(request)

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        payload: dict[str, Any] = {**head, "object": "chat.completion.chunk",
                                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if req["include_usage"]:
            payload["usage"] = None
        return b"data: " + dumps(payload).encode() + b"\n\n"

    paused = False
    await response.write(chunk({"role": "assistant", "content": ""}))
    async for event in events:
        if isinstance(event, AnswerDelta):
            await response.write(chunk({"content": event.text}))
        elif isinstance(event, TurnNotice):
            await response.write(chunk({"content": _notice_text(event)}))
        elif isinstance(event, TurnFailed):
            body = error_body(f"the model failed: {event.message}", type_="server_error", code=event.kind)
            await response.write(b"data: " + dumps(body).encode() + b"\n\n")
        elif isinstance(event, Paused):
            paused = True
            await response.write(chunk({"tool_calls": _tool_calls(event, indexed=True)}))
            await response.write(chunk({}, "tool_calls"))
        elif isinstance(event, TurnDone):
            await response.write(chunk({}, _finish(event)))
            if req["include_usage"]:
                usage_chunk = {**head, "object": "chat.completion.chunk", "choices": [], "usage": _usage(event)}
                await response.write(b"data: " + dumps(usage_chunk).encode() + b"\n\n")
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response, paused


async def resume_or_start(
    channel: Any, req: dict[str, Any], *, device: str, member: str
) -> ClientTurn:
    """The waiting turn the request's tool results answer, or a new turn with its tools."""
    if req["results"]:
        turn: ClientTurn = channel.client_tools.by_ids(req["results"])
        if turn.interrupt is None or turn.interrupt.member != member:
            first = next(iter(req["results"]))
            raise RequestError(
                f"tool_call_id {first!r} matches no tool call that is waiting for its result "
                "(unknown, already answered, or timed out)",
                param="messages",
            )
        turn.resume(req["results"])
        return turn
    result: ClientTurn = await channel.client_turn(
        req["text"], req["tools"], device_id=device, context=req["context"], member=member
    )
    return result


def _tool_calls(paused: Paused, *, indexed: bool) -> list[dict[str, Any]]:
    return [
        {
            **({"index": i} if indexed else {}),
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
        }
        for i, call in enumerate(paused.calls)
    ]


async def _client_tools_completion(
    request: web.Request, req: dict[str, Any], *, device: str, member: str
) -> web.StreamResponse:
    """A completion whose turn may end with calls to the client's tools (and wait), or
    resume a waiting turn with the client's results. Only this request's part of the
    answer is in its response."""
    turn = await resume_or_start(request.app[OPENAI_CHANNEL], req, device=device, member=member)
    assert turn.interrupt is not None
    paused = False
    try:
        response, paused = await _completion(request, req, turn.interrupt.turn_id, turn.events(), whole_answer=False)
        return response
    finally:
        if not paused:
            turn.abandon()
