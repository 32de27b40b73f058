"""Providers for tests and wiring checks: scripted replies, or a reply function.

`ScriptedProvider` replays programmed replies (text and tool calls) from a queue and
records every request it was given, so a test of the tool loop is deterministic.
`FunctionProvider` computes each reply from the request with a plain function.
Both stream text word by word and honour cancellation like a real engine.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import deque
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from homeagent.llm.base import (
    ChatRequest,
    ProviderBase,
    ProviderEvent,
    ProviderStatus,
    StreamDone,
    StreamError,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    Usage,
)

_PIECE_RE = re.compile(r"[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]|\S+?(?=[\u3000-\u9fff]|\s|$)\s*|\s+")


def split_words(text: str) -> list[str]:
    """Split text into streamable pieces whose concatenation is exactly `text`.

    Latin words keep their trailing whitespace; CJK characters stand alone.
    """
    pieces = _PIECE_RE.findall(text)
    assert "".join(pieces) == text, "split_words must be lossless"
    return pieces


@dataclass(frozen=True)
class ScriptedReply:
    text: str = ""
    tool_calls: Sequence[tuple[str, dict[str, Any] | str]] = ()
    delay: float = 0.0  # seconds between streamed pieces
    error: str | None = None  # emit a StreamError instead of a reply


async def stream_reply(reply: ScriptedReply, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
    if reply.error is not None:
        yield StreamError(reply.error, retryable=False, kind="scripted_error")
        return
    prompt_tokens = sum(len(m.content.split()) for m in request.messages)
    pieces = split_words(reply.text) if reply.text else []
    for piece in pieces:
        if reply.delay:
            await anyio.sleep(reply.delay)
        else:
            await anyio.lowlevel.checkpoint()
        yield TextDelta(piece)
    for name, args in reply.tool_calls:
        arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        yield ToolCallEvent(ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=name, arguments=arguments))
    yield Usage(prompt_tokens=prompt_tokens, completion_tokens=len(pieces))
    yield StreamDone("tool_calls" if reply.tool_calls else "stop")


@dataclass
class ScriptedProvider(ProviderBase):
    """Replays queued replies in order; `requests` records what it was asked."""

    replies: Iterable[ScriptedReply | str] = ()
    name: str = "scripted"
    model: str = "scripted"
    supports_tools: bool = True
    supports_grammar: bool = False
    requests: list[ChatRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._queue: deque[ScriptedReply] = deque()
        self.push(*self.replies)

    def push(self, *replies: ScriptedReply | str) -> None:
        for reply in replies:
            self._queue.append(ScriptedReply(text=reply) if isinstance(reply, str) else reply)

    @property
    def pending(self) -> int:
        return len(self._queue)

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        self.requests.append(request)
        if not self._queue:
            yield StreamError("scripted provider has no reply queued", kind="scripted_empty")
            return
        async for event in stream_reply(self._queue.popleft(), request):
            yield event

    def status(self) -> ProviderStatus:
        return ProviderStatus(self.name, self.model, "ready", f"{self.pending} replies queued")


@dataclass
class FunctionProvider(ProviderBase):
    """Computes each reply with `fn(request)`; for behaviour that depends on the prompt."""

    fn: Callable[[ChatRequest], ScriptedReply | str]
    name: str = "function"
    model: str = "function"
    supports_tools: bool = True
    supports_grammar: bool = False
    requests: list[ChatRequest] = field(default_factory=list)

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        self.requests.append(request)
        reply = self.fn(request)
        reply = ScriptedReply(text=reply) if isinstance(reply, str) else reply
        async for event in stream_reply(reply, request):
            yield event

    def status(self) -> ProviderStatus:
        return ProviderStatus(self.name, self.model, "ready")
