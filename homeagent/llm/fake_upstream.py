"""A fault-injecting fake LLM server (OpenAI-compatible and Ollama), for tests and benches.

A real aiohttp server on a loopback port. Each chat request takes the next `Fault` from
the queue (or the default one) and answers accordingly: a normal streamed (or JSON)
reply with text and split tool-call deltas, an HTTP error status with an OpenAI-shaped
body and headers such as Retry-After, a hang, a stream dropped mid-answer, broken JSON,
an HTML page. Every request is recorded (body and whether an Authorization header came),
so tests can check what the cloud saw. `serve_in_thread` runs it on its own event loop
for tests whose client is another process (the daemon).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

Mode = Literal["ok", "status", "hang", "drop", "broken_json", "html", "no_done"]


@dataclass(frozen=True)
class Fault:
    mode: Mode = "ok"
    text: str | None = None  # None: echo the last user message
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    tool_calls: tuple[tuple[str, str], ...] = ()  # (name, arguments JSON text)
    piece: int = 4  # characters per streamed delta
    delay: float = 0.0  # seconds between chunks
    drop_after: int = 2  # chunks sent before a "drop"
    reasoning: str = ""  # reasoning_content sent before the answer (must not be shown)
    body: str | None = None  # the error body of a "status" fault (default: OpenAI-shaped)


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    authorized: bool
    at: float


class FakeUpstream:
    def __init__(self, protocol: Literal["openai", "ollama"] = "openai", *, default: Fault | None = None,
                 models: tuple[str, ...] = ("fake-model",), capabilities: tuple[str, ...] = ("completion", "tools"),
                 api_key: str = ""):
        self.protocol = protocol
        self.default = default or Fault()
        self.faults: deque[Fault] = deque()
        self.requests: list[Recorded] = []
        self.models = models
        self.capabilities = capabilities
        self.api_key = api_key  # when set, other keys get 401
        self._runner: web.AppRunner | None = None
        self.url = ""

    # -- control ------------------------------------------------------------------------

    def push(self, *faults: Fault) -> None:
        self.faults.extend(faults)

    @property
    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith(("/chat/completions", "/api/chat"))]

    @property
    def base_url(self) -> str:
        return self.url + ("/v1" if self.protocol == "openai" else "")

    async def start(self, port: int = 0) -> str:
        app = web.Application()
        if self.protocol == "openai":
            app.router.add_post("/v1/chat/completions", self._openai_chat)
            app.router.add_get("/v1/models", self._openai_models)
        else:
            app.router.add_post("/api/chat", self._ollama_chat)
            app.router.add_get("/api/tags", self._ollama_tags)
            app.router.add_post("/api/show", self._ollama_show)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeUpstream:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- helpers ------------------------------------------------------------------------

    async def _record(self, request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json() if request.can_read_body else {}
        except ValueError:
            body = {}
        auth = request.headers.get("Authorization", "")
        self.requests.append(Recorded(request.path, body, bool(auth), time.monotonic()))
        if self.api_key and auth != f"Bearer {self.api_key}":
            raise web.HTTPUnauthorized(
                text=json.dumps({"error": {"message": "Authentication Fails (no such user)", "type": "authentication_error"}}),
                content_type="application/json",
            )
        return body

    def _next(self) -> Fault:
        return self.faults.popleft() if self.faults else self.default

    @staticmethod
    def _answer(fault: Fault, body: dict[str, Any]) -> str:
        if fault.text is not None:
            return fault.text
        users = [m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user"]
        return users[-1] if users else ""

    @staticmethod
    def _error_body(status: int) -> str:
        messages = {401: "Authentication Fails", 402: "Insufficient Balance", 429: "Rate limit reached",
                    500: "Internal server error", 503: "Service is too busy"}
        return json.dumps({"error": {"message": messages.get(status, f"error {status}"), "type": "api_error"}})

    async def _fault_response(self, request: web.Request, fault: Fault) -> web.StreamResponse | None:
        if fault.mode == "status":
            return web.Response(status=fault.status, text=fault.body or self._error_body(fault.status),
                                content_type="application/json", headers=fault.headers)
        if fault.mode == "hang":
            await asyncio.sleep(3600)
        if fault.mode == "html":
            return web.Response(text="<html><body>Please log in to the hotel Wi-Fi</body></html>",
                                content_type="text/html")
        return None

    # -- OpenAI ---------------------------------------------------------------------------

    async def _openai_models(self, request: web.Request) -> web.Response:
        await self._record(request)
        return web.json_response({"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]})

    async def _openai_chat(self, request: web.Request) -> web.StreamResponse:
        body = await self._record(request)
        fault = self._next()
        early = await self._fault_response(request, fault)
        if early is not None:
            return early
        text = self._answer(fault, body)
        model = body.get("model", "fake-model")
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if fault.tool_calls:
                message["tool_calls"] = [
                    {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                    for i, (n, a) in enumerate(fault.tool_calls)
                ]
            return web.json_response({
                "id": "chatcmpl-fake", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if fault.tool_calls else "stop"}],
                "usage": {"prompt_tokens": 11, "completion_tokens": max(1, len(text) // 4), "total_tokens": 0},
            })
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        chunks = self._openai_chunks(fault, text, model)
        for i, chunk in enumerate(chunks):
            if fault.mode == "drop" and i == fault.drop_after:
                # Cut the connection mid-answer, as a proxy or a crashing upstream does
                # (after a pause, so the client has read what was sent before the cut).
                await asyncio.sleep(0.05)
                request.transport.close()  # type: ignore[union-attr]
                return resp
            if fault.mode == "broken_json" and i == fault.drop_after:
                await resp.write(b'data: {"choices": [{"delta": {"content": "oops"\n\n')
                continue
            if fault.mode == "no_done" and chunk.startswith("data: [DONE]"):
                break
            await resp.write(chunk.encode())
            if fault.delay:
                await asyncio.sleep(fault.delay)
        if fault.mode == "no_done":
            request.transport.close()  # type: ignore[union-attr]
            return resp
        await resp.write_eof()
        return resp

    def _openai_chunks(self, fault: Fault, text: str, model: str) -> list[str]:
        def frame(delta: dict[str, Any], finish: str | None = None, usage: dict | None = None) -> str:
            obj: dict[str, Any] = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model,
                                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if usage is not None:
                obj = {**obj, "choices": [], "usage": usage}
            return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"

        out = [": keep-alive\n\n", frame({"role": "assistant", "content": ""})]
        for i in range(0, len(fault.reasoning), fault.piece):
            out.append(frame({"reasoning_content": fault.reasoning[i:i + fault.piece]}))
        for i in range(0, len(text), fault.piece):
            out.append(frame({"content": text[i:i + fault.piece]}))
        for index, (name, args) in enumerate(fault.tool_calls):
            out.append(frame({"tool_calls": [{"index": index, "id": f"call_{uuid.uuid4().hex[:8]}",
                                              "type": "function", "function": {"name": name, "arguments": ""}}]}))
            for j in range(0, len(args), fault.piece):
                out.append(frame({"tool_calls": [{"index": index, "function": {"arguments": args[j:j + fault.piece]}}]}))
        out.append(frame({}, "tool_calls" if fault.tool_calls else "stop"))
        out.append(frame({}, usage={"prompt_tokens": 11, "completion_tokens": max(1, len(text) // 4),
                                    "total_tokens": 11 + max(1, len(text) // 4),
                                    "prompt_tokens_details": {"cached_tokens": 3}}))
        out.append("data: [DONE]\n\n")
        return out

    # -- Ollama -------------------------------------------------------------------------

    async def _ollama_tags(self, request: web.Request) -> web.Response:
        await self._record(request)
        return web.json_response({"models": [{"name": m, "model": m, "size": 1} for m in self.models]})

    async def _ollama_show(self, request: web.Request) -> web.Response:
        await self._record(request)
        return web.json_response({"capabilities": list(self.capabilities), "details": {"family": "fake"}})

    async def _ollama_chat(self, request: web.Request) -> web.StreamResponse:
        body = await self._record(request)
        if body.get("tools") and "tools" not in self.capabilities:
            return web.json_response({"error": f"registry.ollama.ai/library/{body.get('model')} does not support tools"},
                                     status=400)
        fault = self._next()
        early = await self._fault_response(request, fault)
        if early is not None:
            if fault.mode == "status":
                return web.json_response({"error": f"error {fault.status}"}, status=fault.status, headers=fault.headers)
            return early
        text = self._answer(fault, body)
        lines = []
        for i in range(0, len(text), fault.piece):
            lines.append({"model": body.get("model"), "message": {"role": "assistant", "content": text[i:i + fault.piece]},
                          "done": False})
        if fault.tool_calls:
            lines.append({"message": {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": n, "arguments": json.loads(a)}} for n, a in fault.tool_calls]}, "done": False})
        lines.append({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop",
                      "prompt_eval_count": 9, "eval_count": max(1, len(text) // 4)})
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await resp.prepare(request)
        for i, line in enumerate(lines):
            if fault.mode == "drop" and i == fault.drop_after:
                await asyncio.sleep(0.05)
                request.transport.close()  # type: ignore[union-attr]
                return resp
            if fault.mode == "broken_json" and i == fault.drop_after:
                await resp.write(b'{"message": {"content": "oops"\n')
                continue
            if fault.mode == "no_done" and line.get("done"):
                break
            await resp.write((json.dumps(line, ensure_ascii=False) + "\n").encode())
            if fault.delay:
                await asyncio.sleep(fault.delay)
        if fault.mode == "no_done":
            request.transport.close()  # type: ignore[union-attr]
            return resp
        await resp.write_eof()
        return resp


@contextmanager
def serve_in_thread(upstream: FakeUpstream) -> Iterator[FakeUpstream]:
    """Run `upstream` on its own event loop in a daemon thread (for subprocess clients)."""
    loop = asyncio.new_event_loop()
    started = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(upstream.start())
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="fake-upstream", daemon=True)
    thread.start()
    if not started.wait(30):
        raise RuntimeError("the fake upstream did not start")
    try:
        yield upstream
    finally:
        asyncio.run_coroutine_threadsafe(upstream.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
