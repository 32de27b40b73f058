"""The Ollama provider: `/api/chat` with JSON-lines streaming, tools, model discovery.

Ollama streams one JSON object per line: `message.content` pieces, `message.tool_calls`
(complete calls, arguments as objects), then a final object with `done: true`, the
`done_reason` and the token counts. An `{"error": ...}` line is a failure. A stream that
ends without `done: true` was cut.

`tools="auto"` asks `/api/show` at start whether the model can call functions (its
`capabilities`); a model that cannot gets the `[ACTION]` prompt protocol instead. If
Ollama refuses tools later ("does not support tools"), the provider switches itself to
the prompt protocol and reports `tools_unsupported`, so the router retries the same
request in that form. `list_models()` is `/api/tags` discovery.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator
from typing import Any, Literal

import aiohttp

from homeagent.llm.base import (
    ChatRequest,
    Message,
    ProviderEvent,
    StreamDone,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    Usage,
)
from homeagent.llm.failures import TOOLS_UNSUPPORTED, UPSTREAM_UNAVAILABLE, UpstreamFailure
from homeagent.llm.http import failure_from_response, json_lines, malformed
from homeagent.llm.remote import RemoteProvider, log


def _arguments_object(arguments: str) -> Any:
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def to_ollama_messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        item: dict[str, Any] = {"role": m.role, "content": m.content}
        if m.role == "assistant" and m.tool_calls:
            item["tool_calls"] = [
                {"function": {"name": c.name, "arguments": _arguments_object(c.arguments)}}
                for c in m.tool_calls
            ]
        if m.role == "tool" and m.name:
            item["tool_name"] = m.name
        out.append(item)
    return out


class OllamaProvider(RemoteProvider):
    type = "ollama"
    needs_key = False

    def __init__(
        self,
        *,
        tools: Literal["auto", "native", "action"] = "auto",
        thinking: Literal["auto", "off", "on"] = "auto",
        keep_alive: str = "",
        max_tokens: int = 0,
        **kwargs: Any,
    ):
        super().__init__(supports_tools=tools != "action", **kwargs)
        self._tools_mode = tools
        self._thinking = thinking
        self._keep_alive = keep_alive
        self._max_tokens = max_tokens
        self.capabilities: tuple[str, ...] = ()

    async def start(self) -> None:
        if self._tools_mode != "auto":
            return
        try:
            caps = await self.show_capabilities()
        except (UpstreamFailure, aiohttp.ClientError, TimeoutError) as err:
            # Not fatal: the first request finds out, and tools_unsupported recovers.
            log.info("llm.ollama.capabilities_unknown", provider=self.name, error=str(err))
            return
        if caps and "tools" not in caps:
            self.supports_tools = False
        log.info("llm.ollama.capabilities", provider=self.name, model=self.model, capabilities=list(caps))

    async def show_capabilities(self) -> tuple[str, ...]:
        async with self._http().post(f"{self.base_url}/api/show", json={"model": self.model}) as resp:
            if resp.status != 200:
                raise await failure_from_response(resp, name=self.name, secret=self._secret)
            body = await resp.json(content_type=None)
        caps = body.get("capabilities") if isinstance(body, dict) else None
        self.capabilities = tuple(str(c) for c in caps) if isinstance(caps, list) else ()
        return self.capabilities

    def body(self, request: ChatRequest) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if request.temperature is not None:
            options["temperature"] = request.temperature
        max_tokens = self._max_tokens or request.max_tokens
        if max_tokens:
            options["num_predict"] = max_tokens
        if request.stop:
            options["stop"] = list(request.stop)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_ollama_messages(request.messages),
            "stream": True,
        }
        if options:
            body["options"] = options
        # Ollama has no tool_choice: "none" offers no tools, "required" is left to the model.
        if request.tools and self.supports_tools and request.tool_choice != "none":
            body["tools"] = [t.to_openai() for t in request.tools]
        if self._thinking != "auto":
            body["think"] = self._thinking == "on"
        if self._keep_alive:
            body["keep_alive"] = self._keep_alive
        return body

    async def _attempt(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        async with self._http().post(f"{self.base_url}/api/chat", json=self.body(request)) as resp:
            if resp.status != 200:
                failure = await failure_from_response(resp, name=self.name, secret=self._secret)
                if failure.kind == TOOLS_UNSUPPORTED and self._tools_mode == "auto":
                    self.supports_tools = False
                    log.info("llm.ollama.tools_unsupported", provider=self.name, model=self.model)
                raise failure
            done = False
            async for obj in json_lines(resp.content, self.name):
                if not isinstance(obj, dict):
                    raise malformed(self.name, "a stream line is not an object")
                if "error" in obj:
                    raise UpstreamFailure(
                        UPSTREAM_UNAVAILABLE, self._secret.scrub(f"{self.name}: error in the stream: {obj['error']}")
                    )
                message = obj.get("message") or {}
                if not isinstance(message, dict):
                    raise malformed(self.name, "message is not an object")
                content = message.get("content")
                if isinstance(content, str) and content:
                    yield TextDelta(content)
                for call in self._calls(message.get("tool_calls")):
                    yield ToolCallEvent(call)
                if obj.get("done"):
                    done = True
                    yield Usage(int(obj.get("prompt_eval_count") or 0), int(obj.get("eval_count") or 0))
                    reason = obj.get("done_reason") or "stop"
                    yield StreamDone("length" if reason == "length" else "stop")
                    break
            if not done:
                raise UpstreamFailure(
                    UPSTREAM_UNAVAILABLE, f"{self.name}: the stream ended before the answer was complete"
                )

    def _calls(self, raw: Any) -> list[ToolCall]:
        if not raw:
            return []
        if not isinstance(raw, list):
            raise malformed(self.name, "tool_calls is not a list")
        calls = []
        for item in raw:
            fn = item.get("function") if isinstance(item, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                raise malformed(self.name, "a tool call has no function name")
            args = fn.get("arguments", {})
            text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            call_id = item.get("id") or f"call_{uuid.uuid4().hex[:12]}"
            calls.append(ToolCall(str(call_id), fn["name"], text))
        return calls

    async def list_models(self) -> list[str]:
        """Models installed in Ollama (`GET /api/tags`)."""
        async with self._http().get(f"{self.base_url}/api/tags") as resp:
            if resp.status != 200:
                raise await failure_from_response(resp, name=self.name, secret=self._secret)
            try:
                body = await resp.json(content_type=None)
            except ValueError as err:
                raise malformed(self.name, "GET /api/tags is not JSON") from err
        models = body.get("models") if isinstance(body, dict) else None
        if not isinstance(models, list):
            raise malformed(self.name, "GET /api/tags has no models list")
        return sorted({str(m.get("name") or m.get("model")) for m in models if isinstance(m, dict)})

    async def _probe(self) -> None:
        async with self._http().get(f"{self.base_url}/api/tags") as resp:
            if resp.status != 200:
                raise await failure_from_response(resp, name=self.name, secret=self._secret)
