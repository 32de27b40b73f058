"""The OpenAI-compatible provider: DeepSeek by default, any `/chat/completions` server.

Streaming: the SSE body is parsed into provider events as it arrives — content deltas
become `TextDelta`s, tool-call deltas (split over many chunks, keyed by `index`) are
assembled into complete `ToolCallEvent`s, the usage chunk becomes `Usage` — and the
stream ends in one `StreamDone`. Reasoning deltas (`reasoning_content`) are never shown.
A stream that ends without `[DONE]` or a finish reason was cut: that is a failure, not
a short answer. Non-streaming requests (`streaming=False`) yield the same events from
one JSON body.

DeepSeek's thinking mode is switched by `{"thinking": {"type": "enabled|disabled"}}`;
`thinking="auto"` sends nothing, for servers that do not know the field.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator
from typing import Any, Literal

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
from homeagent.llm.failures import UpstreamFailure
from homeagent.llm.http import failure_from_response, malformed, sse_data
from homeagent.llm.remote import RemoteProvider

_FINISH = {"stop": "stop", "length": "length", "tool_calls": "tool_calls", "function_call": "tool_calls"}


def to_openai_messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        item: dict[str, Any] = {"role": m.role, "content": m.content}
        if m.role == "assistant" and m.tool_calls:
            item["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments or "{}"}}
                for c in m.tool_calls
            ]
            if not m.content:
                item["content"] = None
        if m.role == "tool":
            item["tool_call_id"] = m.tool_call_id or ""
        out.append(item)
    return out


class ToolCallAssembler:
    """Builds complete tool calls from streamed deltas keyed by `index`."""

    def __init__(self, name: str):
        self._name = name
        self._calls: dict[int, dict[str, Any]] = {}

    def feed(self, deltas: Any) -> None:
        if not isinstance(deltas, list):
            raise malformed(self._name, "tool_calls is not a list")
        for position, delta in enumerate(deltas):
            if not isinstance(delta, dict):
                raise malformed(self._name, "a tool call delta is not an object")
            index = delta.get("index", position)
            if not isinstance(index, int):
                raise malformed(self._name, "a tool call delta has no integer index")
            entry = self._calls.setdefault(index, {"id": "", "name": "", "args": []})
            if delta.get("id"):
                entry["id"] = str(delta["id"])
            fn = delta.get("function") or {}
            if not isinstance(fn, dict):
                raise malformed(self._name, "a tool call's function is not an object")
            name = fn.get("name")
            if isinstance(name, str) and name and name != entry["name"]:
                entry["name"] += name
            args = fn.get("arguments")
            if isinstance(args, str):
                entry["args"].append(args)
            elif isinstance(args, dict):  # some servers send the object itself
                entry["args"].append(json.dumps(args, ensure_ascii=False))

    def calls(self) -> list[ToolCall]:
        out = []
        for index in sorted(self._calls):
            entry = self._calls[index]
            if not entry["name"]:
                raise malformed(self._name, f"tool call #{index} has no function name")
            out.append(
                ToolCall(entry["id"] or f"call_{uuid.uuid4().hex[:12]}", entry["name"], "".join(entry["args"]))
            )
        return out


def usage_of(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    details = raw.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached is None:
        cached = raw.get("prompt_cache_hit_tokens", 0)  # DeepSeek's name
    try:
        return Usage(int(raw.get("prompt_tokens") or 0), int(raw.get("completion_tokens") or 0), int(cached or 0))
    except (TypeError, ValueError):
        return None


class OpenAICompatProvider(RemoteProvider):
    type = "openai_compatible"

    def __init__(
        self,
        *,
        thinking: Literal["auto", "off", "on"] = "auto",
        max_tokens: int = 0,
        streaming: bool = True,
        needs_key: bool = True,
        **kwargs: Any,
    ):
        self.needs_key = needs_key
        super().__init__(**kwargs)
        self._thinking = thinking
        self._max_tokens = max_tokens
        self._streaming = streaming

    def body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(request.messages),
            "stream": stream,
        }
        if stream:
            body["stream_options"] = {"include_usage": True}
        if request.temperature is not None:
            body["temperature"] = request.temperature
        max_tokens = self._max_tokens or request.max_tokens
        if max_tokens:
            body["max_tokens"] = max_tokens
        if request.stop:
            body["stop"] = list(request.stop)
        if request.tools and self.supports_tools and request.tool_choice != "none":
            body["tools"] = [t.to_openai() for t in request.tools]
            if request.tool_choice == "required":
                body["tool_choice"] = "required"
        if self._thinking != "auto":
            body["thinking"] = {"type": "enabled" if self._thinking == "on" else "disabled"}
        return body

    async def _attempt(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        url = f"{self.base_url}/chat/completions"
        async with self._http().post(url, json=self.body(request, stream=self._streaming)) as resp:
            if resp.status != 200:
                raise await failure_from_response(resp, name=self.name, secret=self._secret)
            kind = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if self._streaming and kind == "text/event-stream":
                async for event in self._parse_stream(resp):
                    yield event
            elif kind not in ("application/json", "text/event-stream", ""):
                # A captive portal or a proxy's HTML page, not the API.
                raise malformed(self.name, f"expected JSON or an event stream, got {kind}")
            else:
                for event in self._parse_body(await self._read_json(resp)):
                    yield event

    async def _read_json(self, resp: Any) -> Any:
        text = await resp.text(encoding="utf-8", errors="replace")
        try:
            return json.loads(text)
        except ValueError as err:
            raise malformed(self.name, "the body is not JSON") from err

    async def _parse_stream(self, resp: Any) -> AsyncGenerator[ProviderEvent, None]:
        tools = ToolCallAssembler(self.name)
        usage: Usage | None = None
        finish: str | None = None
        done = False
        async for data in sse_data(resp.content, self.name):
            if data.strip() == "[DONE]":
                done = True
                break
            try:
                chunk = json.loads(data)
            except ValueError as err:
                raise malformed(self.name, "a stream event is not JSON") from err
            if not isinstance(chunk, dict):
                raise malformed(self.name, "a stream event is not an object")
            if "error" in chunk:  # some servers report failures inside the stream
                detail = chunk["error"].get("message") if isinstance(chunk["error"], dict) else chunk["error"]
                raise UpstreamFailure(
                    "upstream_unavailable", self._secret.scrub(f"{self.name}: error in the stream: {detail}")
                )
            usage = usage_of(chunk.get("usage")) or usage
            choices = chunk.get("choices") or []
            if not isinstance(choices, list):
                raise malformed(self.name, "choices is not a list")
            for choice in choices[:1]:
                if not isinstance(choice, dict) or not isinstance(choice.get("delta") or {}, dict):
                    raise malformed(self.name, "a choice has no delta object")
                delta = choice.get("delta") or {}
                content = delta.get("content")
                if isinstance(content, str) and content:
                    yield TextDelta(content)
                if delta.get("tool_calls"):
                    tools.feed(delta["tool_calls"])
                if choice.get("finish_reason"):
                    finish = str(choice["finish_reason"])
        if not done and finish is None:
            raise UpstreamFailure(
                "upstream_unavailable", f"{self.name}: the stream ended before the answer was complete"
            )
        for call in tools.calls():
            yield ToolCallEvent(call)
        if usage is not None:
            yield usage
        yield StreamDone(_FINISH.get(finish or "stop", "stop"))  # type: ignore[arg-type]

    def _parse_body(self, body: Any) -> list[ProviderEvent]:
        try:
            choice = body["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError) as err:
            raise malformed(self.name, "no choices[0].message in the body") from err
        events: list[ProviderEvent] = []
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str) and content:
            events.append(TextDelta(content))
        if isinstance(message, dict) and message.get("tool_calls"):
            tools = ToolCallAssembler(self.name)
            tools.feed(message["tool_calls"])
            events += [ToolCallEvent(c) for c in tools.calls()]
        usage = usage_of(body.get("usage"))
        if usage is not None:
            events.append(usage)
        events.append(StreamDone(_FINISH.get(str(choice.get("finish_reason") or "stop"), "stop")))  # type: ignore[arg-type]
        return events

    async def list_models(self) -> list[str]:
        """Model ids the server offers (`GET /models`)."""
        async with self._http().get(f"{self.base_url}/models") as resp:
            if resp.status != 200:
                raise await failure_from_response(resp, name=self.name, secret=self._secret)
            body = await self._read_json(resp)
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise malformed(self.name, "GET /models has no data list")
        return sorted({str(m["id"]) for m in data if isinstance(m, dict) and "id" in m})

    async def _probe(self) -> None:
        async with self._http().get(f"{self.base_url}/models") as resp:
            # Any answer but an auth refusal or a server error means "reachable again";
            # some compatible servers do not implement /models at all.
            if resp.status in (401, 402, 403) or resp.status >= 500:
                raise await failure_from_response(resp, name=self.name, secret=self._secret)
