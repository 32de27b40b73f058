"""The Provider protocol: chat messages in, an async stream of events out.

A provider turns a `ChatRequest` into an async iterator of `ProviderEvent`s: text
deltas as they are generated, complete tool calls, usage, then exactly one `StreamDone`
(or a `StreamError`). Closing the iterator early (the consumer was cancelled) must stop
generation promptly. Capabilities are flags, never type checks.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text exactly as the model produced it

    def parsed_arguments(self) -> Any:
        return json.loads(self.arguments) if self.arguments.strip() else {}


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class ToolDef:
    """What a provider needs to offer a tool to the model natively."""

    name: str
    description: str
    parameters: Mapping[str, Any]

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    tools: tuple[ToolDef, ...] = ()
    temperature: float | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    # Length in characters of the system message's stable head (personality, tool
    # catalog, examples). Local engines may cache its evaluated state.
    stable_prefix_chars: int = 0
    # A GBNF grammar the reply must follow; only providers with `supports_grammar`
    # apply it, the others ignore it.
    grammar: str | None = None


@dataclass(frozen=True)
class TextDelta:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ToolCallEvent:
    call: ToolCall
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    type: Literal["usage"] = "usage"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class StreamDone:
    finish_reason: Literal["stop", "length", "tool_calls", "cancelled"] = "stop"
    type: Literal["done"] = "done"


@dataclass(frozen=True)
class StreamError:
    message: str
    retryable: bool = False
    kind: str = "provider_error"
    type: Literal["error"] = "error"


@dataclass(frozen=True)
class Notice:
    """A short message for the user about how the turn is being served (a failover to the
    local engine, the daily budget). Only the router emits it, and only when the agent
    has asked for notices as events; otherwise notices arrive as text."""

    text: str
    kind: str = "notice"
    type: Literal["notice"] = "notice"


ProviderEvent = TextDelta | ToolCallEvent | Usage | StreamDone | StreamError | Notice


@dataclass(frozen=True)
class ProviderStatus:
    name: str
    model: str
    state: Literal["ready", "loading", "degraded", "error", "skipped"]
    detail: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Provider(Protocol):
    name: str
    model: str
    supports_tools: bool
    supports_grammar: bool

    def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Generate a reply; closing the iterator stops generation."""
        ...

    def status(self) -> ProviderStatus: ...

    async def start(self) -> None:
        """Load models, warm caches. Called once before the first request."""
        ...

    async def prime(self, stable_prefix: str) -> None:
        """Prepare for prompts that start with `stable_prefix` (local engines cache it)."""
        ...

    async def aclose(self) -> None: ...
