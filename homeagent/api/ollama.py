"""The Ollama protocol under `/ollama`: Home Assistant's Ollama integration, pointed at
`http://<box>:8080/ollama`, uses HomeAgent as its conversation agent.

Routes (relative to the prefix): `GET`/`HEAD /` ("Ollama is running"), `GET /api/version`,
`GET /api/tags`, `POST /api/show`, `GET /api/ps`, `POST /api/pull` (HomeAgent's own
model: success, nothing is downloaded) and `POST /api/chat` (NDJSON stream, or one
object with `"stream": false`). Errors are Ollama's `{"error": "…"}`.

Authentication is the API's own (homeagent/api/auth.py): with no token configured and a
loopback address, nothing is needed; otherwise the token is a Bearer header, or, for a
client that cannot send headers (Home Assistant's Ollama integration cannot), part of the
URL: `http://<box>:8080/ollama/key/<token>`. The key segment is masked in every log line.

One agent serves every model name it lists: `homeagent` (as `homeagent:latest`) and the
name of the model behind it. A request's `options`, `keep_alive`, `think` and `format`
are checked and accepted; the one agent speaks with its configured settings.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web

from homeagent import __version__
from homeagent.api.auth import member_of
from homeagent.api.bodies import NOT_BLANK
from homeagent.api.client_tools import parse_client_tools
from homeagent.api.keys import HEALTH, PROVIDER, TOOLS
from homeagent.api.middleware import read_json
from homeagent.errors import NotFoundError, RequestError
from homeagent.io.client_tools import ClientTurn, Paused
from homeagent.io.events import AnswerDelta, TurnDone, TurnFailed, TurnNotice
from homeagent.io.ollama import OllamaChannel
from homeagent.log import get_logger

log = get_logger("homeagent.api.ollama")

PREFIX = "/ollama"
# The URL form for clients that cannot send an Authorization header.
KEY_PREFIX = PREFIX + "/key/"
OLLAMA_CHANNEL = web.AppKey("homeagent.channel.ollama", OllamaChannel)
# The Ollama API version whose wire format these routes speak.
OLLAMA_API_VERSION = "0.6.5"
AGENT_MODEL = "homeagent:latest"
NDJSON = "application/x-ndjson"
_DURATION_RE = re.compile(r"^-?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$|^-?\d+(\.\d+)?$")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status, dumps=lambda o: json.dumps(o, ensure_ascii=False))


@web.middleware
async def ollama_error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Under the prefix every error is Ollama-shaped (`{"error": "…"}`), the auth's too."""
    if not request.path.startswith(PREFIX + "/") and request.path != PREFIX:
        return await handler(request)
    try:
        return await handler(request)
    except RequestError as err:
        return _error(err.status, str(err))
    except web.HTTPException as err:
        if err.status < 400:
            raise
        response = _error(err.status, err.reason or "request failed")
        if "Allow" in err.headers:
            response.headers["Allow"] = err.headers["Allow"]
        return response


def _names(request: web.Request) -> list[str]:
    model = request.app[PROVIDER].model
    return list(dict.fromkeys([AGENT_MODEL, "homeagent", model, f"{model}:latest"]))


def _model_name(body: dict[str, Any], request: web.Request, key: str = "model") -> str:
    name = body.get(key) or (body.get("name") if key == "model" else None)
    if not isinstance(name, str) or not name:
        raise RequestError(f"{key}: required, a model name such as {AGENT_MODEL!r}")
    if name not in _names(request):
        raise NotFoundError(f"model {name!r} not found; this server has {AGENT_MODEL!r}")
    return name


def _model_entry(request: web.Request) -> dict[str, Any]:
    provider = request.app[PROVIDER]
    status = provider.status()
    path = Path(str(status.extra.get("path", ""))) if status.extra.get("path") else None
    size = path.stat().st_size if path is not None and path.is_file() else 0
    started = datetime.fromtimestamp(request.app[HEALTH].started_at, UTC)
    return {
        "name": AGENT_MODEL,
        "model": AGENT_MODEL,
        "modified_at": started.isoformat().replace("+00:00", "Z"),
        "size": size,
        "digest": hashlib.sha256(f"homeagent/{provider.name}/{provider.model}".encode()).hexdigest(),
        "details": {
            "parent_model": "",
            "format": "gguf" if path is not None else "",
            "family": "homeagent",
            "families": ["homeagent"],
            "parameter_size": "",
            "quantization_level": "",
        },
    }


async def root(request: web.Request) -> web.Response:
    return web.Response(text="Ollama is running")


async def version(request: web.Request) -> web.Response:
    return web.json_response({"version": OLLAMA_API_VERSION, "homeagent": __version__})


async def tags(request: web.Request) -> web.Response:
    return web.json_response({"models": [_model_entry(request)]})


async def ps(request: web.Request) -> web.Response:
    entry = _model_entry(request)
    return web.json_response({"models": [{**entry, "expires_at": "2318-01-01T00:00:00Z", "size_vram": 0}]})


async def show(request: web.Request) -> web.Response:
    body = await read_json(request)
    _model_name(body, request)
    entry = _model_entry(request)
    provider = request.app[PROVIDER]
    return web.json_response({
        "modelfile": f"# HomeAgent: one agent, served by {provider.name} ({provider.model})\n",
        "parameters": "",
        "template": "",
        "details": entry["details"],
        "model_info": {"general.architecture": "homeagent", "homeagent.model": provider.model},
        "capabilities": ["completion", "tools"],
        "modified_at": entry["modified_at"],
    })


async def pull(request: web.Request) -> web.StreamResponse:
    """HomeAgent's own model is always there: success, nothing is downloaded."""
    body = await read_json(request)
    _model_name(body, request)
    if body.get("stream", True) is False:
        return web.json_response({"status": "success"})
    response = web.StreamResponse(headers={"Content-Type": NDJSON})
    await response.prepare(request)
    for status in ("pulling manifest", "verifying sha256 digest", "writing manifest", "success"):
        await response.write(json.dumps({"status": status}).encode() + b"\n")
    await response.write_eof()
    return response


# -- chat ------------------------------------------------------------------------------


def _content(message: dict[str, Any], where: str) -> str:
    content = message.get("content")
    if content is None:
        return ""  # Home Assistant omits it on an assistant message that only called tools
    if not isinstance(content, str):
        raise RequestError(f"{where}.content: expected a string")
    if message.get("images"):
        raise RequestError(f"{where}.images: images are not supported; send text")
    return content


def _arguments(raw: Any, where: str) -> dict[str, Any]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as err:
            raise RequestError(f"{where}: not valid JSON ({err.msg})") from err
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise RequestError(f"{where}: expected an object")
    return raw


def parse_chat(body: dict[str, Any], request: web.Request) -> dict[str, Any]:
    model = _model_name(body, request)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("messages: required, a non-empty list of message objects")
    system: list[str] = []
    user_text: str | None = None
    calls: list[tuple[str, dict[str, Any]]] = []  # the last assistant message's tool calls
    results: list[tuple[bool, str]] = []  # the tool messages after it
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise RequestError(f"{where}: expected an object")
        role = message.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            raise RequestError(f"{where}.role: expected system, user, assistant or tool, got {role!r}")
        text = _content(message, where)
        if role == "system":
            if text.strip():
                system.append(text)
        elif role == "user":
            if text.strip():
                user_text = text
            calls, results = [], []
        elif role == "assistant":
            raw_calls = message.get("tool_calls") or []
            if not isinstance(raw_calls, list):
                raise RequestError(f"{where}.tool_calls: expected a list")
            calls, results = [], []
            for j, call in enumerate(raw_calls):
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    raise RequestError(f"{where}.tool_calls[{j}].function: expected an object with a name")
                calls.append((function["name"], _arguments(function.get("arguments"), f"{where}.tool_calls[{j}].function.arguments")))
        else:
            results.append((True, text))
    own = request.app[TOOLS]
    tools = parse_client_tools(body.get("tools"), own)
    if not tools:
        calls, results = [], []  # no client tools: tool messages are only history
    if len(results) > len(calls):
        raise RequestError(
            f"messages: {len(results)} tool results follow an assistant message with {len(calls)} tool calls"
        )
    if not results and (user_text is None or not user_text.strip()):
        raise RequestError("messages: no user message with text to answer")
    stream = body.get("stream", True)
    if not isinstance(stream, bool):
        raise RequestError("stream: expected true or false")
    keep_alive = body.get("keep_alive")
    if keep_alive is not None and not (
        (isinstance(keep_alive, int | float) and not isinstance(keep_alive, bool))
        or (isinstance(keep_alive, str) and _DURATION_RE.match(keep_alive.strip()))
    ):
        raise RequestError(f"keep_alive: expected a number of seconds or a duration such as '5m' or '-1s', got {keep_alive!r}")
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise RequestError("options: expected an object")
    for key, value in (options or {}).items():
        if key == "num_ctx" and (isinstance(value, bool) or not isinstance(value, int | float) or value <= 0):
            raise RequestError(f"options.num_ctx: expected a positive number, got {value!r}")
    think = body.get("think")
    if think is not None and not isinstance(think, bool) and think not in ("low", "medium", "high"):
        raise RequestError(f"think: expected true, false, 'low', 'medium' or 'high', got {think!r}")
    fmt = body.get("format")
    if fmt not in (None, "", "json") and not isinstance(fmt, dict):
        raise RequestError("format: expected 'json' or a JSON Schema object")
    return {
        "model": model,
        "text": user_text or "",
        "context": "\n\n".join(system),
        "tools": tools,
        "calls": calls[: len(results)] if results else [],
        "results": results,
        "stream": stream,
    }


def _resume(channel: OllamaChannel, req: dict[str, Any], owner: str) -> ClientTurn:
    """The waiting turn whose pending calls the request's tool results answer. Ollama's
    protocol has no call ids: the calls are matched by name and arguments, in order."""
    turn = channel.client_tools.by_calls(owner, req["calls"])
    if len(req["results"]) != len(turn.pending):
        raise RequestError(f"messages: {len(turn.pending)} tool results expected, got {len(req['results'])}")
    free = list(turn.pending)
    answers: dict[str, tuple[bool, str]] = {}
    for (name, args), result in zip(req["calls"], req["results"], strict=True):
        fingerprint = (name, json.dumps(args, sort_keys=True, ensure_ascii=False, separators=(",", ":")))
        match = next(p for p in free if p.fingerprint() == fingerprint)
        free.remove(match)
        answers[match.id] = result
    turn.resume(answers)
    return turn


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


async def chat(request: web.Request) -> web.StreamResponse:
    started = time.monotonic_ns()
    req = parse_chat(await read_json(request), request)
    member = member_of(request)
    device = request.remote or ""
    channel = request.app[OLLAMA_CHANNEL]
    if req["results"]:
        turn = _resume(channel, req, f"{member}|{device}")  # only the asker's own turns
    else:
        turn = await channel.client_turn(req["text"], req["tools"], device_id=device, context=req["context"], member=member)
    paused = False

    def message(content: str = "", tool_calls: Paused | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls is not None:
            out["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}} for c in tool_calls.calls]
        return out

    def final(done: TurnDone | None, content: str = "", calls: Paused | None = None) -> dict[str, Any]:
        total = time.monotonic_ns() - started
        return {
            "model": req["model"], "created_at": _now(), "message": message(content, calls), "done": True,
            "done_reason": "length" if done is not None and done.finish_reason == "length" else "stop",
            "total_duration": total, "load_duration": 0,
            "prompt_eval_count": done.prompt_tokens if done else 0, "prompt_eval_duration": 0,
            "eval_count": done.completion_tokens if done else 0, "eval_duration": total,
        }

    def line(obj: dict[str, Any]) -> bytes:
        return json.dumps(obj, ensure_ascii=False).encode() + b"\n"

    try:
        if not req["stream"]:
            parts: list[str] = []
            async for event in turn.events():
                if isinstance(event, AnswerDelta):
                    parts.append(event.text)
                elif isinstance(event, TurnNotice):
                    parts.append(f"{event.text}\n\n")
                elif isinstance(event, TurnFailed):
                    return _error(500, f"the model failed: {event.message}")
                elif isinstance(event, Paused):
                    paused = True
                    return web.json_response(final(None, "".join(parts), event), dumps=lambda o: json.dumps(o, ensure_ascii=False))
                elif isinstance(event, TurnDone):
                    return web.json_response(final(event, "".join(parts)), dumps=lambda o: json.dumps(o, ensure_ascii=False))
            return _error(500, "the turn ended without an answer")

        response = web.StreamResponse(headers={"Content-Type": NDJSON})
        await response.prepare(request)
        async for event in turn.events():
            if isinstance(event, AnswerDelta | TurnNotice) and event.text:
                text = event.text if isinstance(event, AnswerDelta) else f"{event.text}\n\n"
                await response.write(line({"model": req["model"], "created_at": _now(), "message": message(text), "done": False}))
            elif isinstance(event, TurnFailed):
                await response.write(line({"error": f"the model failed: {event.message}"}))
            elif isinstance(event, Paused):
                paused = True
                await response.write(line({"model": req["model"], "created_at": _now(), "message": message("", event), "done": False}))
                await response.write(line(final(None)))
            elif isinstance(event, TurnDone):
                await response.write(line(final(event)))
        await response.write_eof()
        return response
    finally:
        if not paused:
            turn.abandon()


def setup_ollama(app: web.Application, channel: OllamaChannel) -> None:
    """Mount the Ollama routes under `/ollama` (and `/ollama/key/{key}` for clients that
    carry the token in the URL)."""
    app[OLLAMA_CHANNEL] = channel
    for base in (PREFIX, KEY_PREFIX + "{key}"):
        app.router.add_get(base + "/", root)  # aiohttp answers HEAD for GET routes too
        app.router.add_get(base, root)
        app.router.add_get(base + "/api/version", version)
        app.router.add_get(base + "/api/tags", tags)
        app.router.add_post(base + "/api/show", show)
        app.router.add_get(base + "/api/ps", ps)
        app.router.add_post(base + "/api/pull", pull)
        app.router.add_post(base + "/api/chat", chat)


def ollama_paths() -> dict[str, Any]:
    """The OpenAPI description of these routes, under both prefixes."""
    ndjson = "application/x-ndjson"
    error = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}

    def errors(*codes: int) -> dict[str, Any]:
        every = sorted({*codes, 401, 404, 429})  # a token, a key path that routes nowhere, the rate limit
        return {str(c): {"description": "error", "content": {"application/json": {"schema": error}}} for c in every}

    def body(schema: dict[str, Any]) -> dict[str, Any]:
        return {"required": True, "content": {"application/json": {"schema": schema}}}

    obj: dict[str, Any] = {"type": "object"}
    json_ok = {"description": "ok", "content": {"application/json": {"schema": obj}}}
    streamed = {"description": "one object, or NDJSON lines (stream: true, the default)",
                "content": {"application/json": {"schema": obj}, ndjson: {"schema": {"type": "string"}}}}
    model = {"type": "object", "required": ["model"], "properties": {"model": {"type": "string", "minLength": 1}, "name": {"type": "string"},
                                                                    "stream": {"type": "boolean"}}}
    chat_body = {
        "type": "object", "required": ["model", "messages"],
        "properties": {
            "model": {"type": "string", "minLength": 1},
            "messages": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["role"],
                "properties": {"role": {"enum": ["system", "user", "assistant", "tool"]}, "content": {"type": "string"},
                               "tool_calls": {"type": "array", "items": {
                                   "type": "object", "required": ["function"],
                                   "properties": {"function": {"type": "object", "required": ["name"], "properties": {
                                       "name": {"type": "string"}, "arguments": obj}}}}}}},
                         "contains": {"type": "object", "required": ["role", "content"], "properties": {
                             "role": {"const": "user"}, "content": {"type": "string", "pattern": NOT_BLANK}}}},
            "stream": {"type": "boolean"}, "keep_alive": {"anyOf": [{"type": "string"}, {"type": "number"}]},
            "options": obj, "think": {"anyOf": [{"type": "boolean"}, {"enum": ["low", "medium", "high"]}]},
            "format": {"anyOf": [{"enum": ["", "json"]}, obj]},
        },
    }
    text_ok = {"description": "Ollama is running", "content": {"text/plain": {"schema": {"type": "string"}}}}
    key = [{"name": "key", "in": "path", "required": True, "schema": {"type": "string"}}]
    paths: dict[str, Any] = {}
    for base, params in ((PREFIX, []), (KEY_PREFIX + "{key}", key)):
        def op(summary: str, responses: dict[str, Any], request: dict[str, Any] | None = None,
               params: list[dict[str, Any]] = params) -> dict[str, Any]:
            out: dict[str, Any] = {"summary": summary, "responses": responses}
            if params:
                out["parameters"] = params
            if request is not None:
                out["requestBody"] = body(request)
            return out

        paths[base] = {"get": op("Ollama: is it running", {"200": text_ok, **errors(401)})}
        paths[base + "/"] = {"get": op("Ollama: is it running", {"200": text_ok, **errors(401)})}
        paths[base + "/api/version"] = {"get": op("Ollama: API version", {"200": json_ok, **errors(401)})}
        paths[base + "/api/tags"] = {"get": op("Ollama: models (HomeAgent's own)", {"200": json_ok, **errors(401)})}
        paths[base + "/api/ps"] = {"get": op("Ollama: loaded models", {"200": json_ok, **errors(401)})}
        paths[base + "/api/show"] = {"post": op("Ollama: a model's details", {"200": json_ok, **errors(400, 401, 404)}, model)}
        paths[base + "/api/pull"] = {"post": op("Ollama: pull (HomeAgent's model: success, nothing downloaded)",
                                                {"200": streamed, **errors(400, 401, 404)}, model)}
        paths[base + "/api/chat"] = {"post": op("Ollama: chat with the agent. A request's `tools` are client-side tools: "
                                                "a call to one ends the response, and a request with `tools` whose messages "
                                                "end with the `tool` results resumes the waiting turn (400 when none waits)",
                                                {"200": streamed, **errors(400, 401, 404, 413, 500)}, chat_body)}
    return paths
