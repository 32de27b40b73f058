"""The Provider protocol: chat messages in, an async stream of events out.

A provider turns a `ChatRequest` into an async iterator of `ProviderEvent`s: text
deltas as they are generated, complete tool calls, usage, then exactly one `StreamDone`
(or a `StreamError`). Closing the iterator early (the consumer was cancelled) must stop
generation promptly. Capabilities are flags, never type checks: the protocol names every
capability and operation a caller uses, and `ProviderBase` gives the ones an engine has no
use for a do-nothing default, so nobody probes a provider with `getattr`.

There is one tool dialect above this layer: native tool calls. Every provider accepts a
request with `tools` and a `tool_choice` and answers with `ToolCallEvent`s; one whose
model cannot call functions (`supports_tools` False) is wrapped by `homeagent.llm.dialect`
where it is built, and the wrapper speaks the `[ACTION]` text protocol to the model.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

# The chat types a request is made of; callers of a provider import them from here too.
from homeagent.chat import Message, Role, ToolCall, ToolChoice, ToolDef  # noqa: F401


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    tools: tuple[ToolDef, ...] = ()
    tool_choice: ToolChoice = "auto"
    temperature: float | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    # Length in characters of the system message's stable head (personality, tool
    # catalog, examples). Local engines may cache its evaluated state.
    stable_prefix_chars: int = 0
    # A GBNF grammar the reply must follow; only providers with `supports_grammar`
    # apply it, the others ignore it. Set inside the llm layer (the dialect), never above.
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


HealthState = Literal["ready", "loading", "degraded", "error", "skipped"]


@dataclass(frozen=True)
class ProviderStatus:
    name: str
    model: str
    state: HealthState
    detail: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


class Warmed(NamedTuple):
    """What one `warm()` did: tokens already in the context, tokens evaluated, the
    prompt's length, and whether a request stopped it."""

    reused: int
    evaluated: int
    total: int
    halted: bool


@runtime_checkable
class Provider(Protocol):
    """A language model behind one streaming call, plus what the daemon does around it."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def supports_tools(self) -> bool:
        """The model calls functions natively."""
        ...

    @property
    def supports_grammar(self) -> bool:
        """The engine can constrain a reply to a GBNF grammar."""
        ...

    @property
    def available(self) -> bool:
        """False when it cannot work at all as configured (a cloud provider with no key)."""
        ...

    def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        """Generate a reply; closing the iterator stops generation."""
        ...

    def status(self) -> ProviderStatus: ...

    async def start(self) -> None:
        """Load models, warm caches. Called once before the first request."""
        ...

    async def prime(self, stable_prefix: str, tools: Sequence[ToolDef] = ()) -> None:
        """Prepare for prompts whose system message starts with `stable_prefix` and that
        offer `tools` (local engines evaluate and cache it)."""
        ...

    async def warm(self, messages: Sequence[Message], tools: Sequence[ToolDef] = ()) -> Warmed | None:
        """While idle, prepare for a next prompt that starts with `messages` (local
        engines evaluate them); None when nothing was prepared."""
        ...

    async def probe(self) -> str:
        """A check that costs no tokens: "" when it answers, else the failure kind."""
        ...

    def quiet(self) -> Provider:
        """The same provider for background work: it never emits notices to the user."""
        ...

    async def recover(self) -> list[str]:
        """Probe what failed and is due for another try; the names that recovered."""
        ...

    async def aclose(self) -> None: ...


class ProviderBase:
    """Defaults for the operations an engine has no use for. Subclasses set `name`,
    `model` and the capability flags and implement `stream` and `status`."""

    name: str = ""
    model: str = ""
    supports_tools: bool = False
    supports_grammar: bool = False

    @property
    def available(self) -> bool:
        return True

    async def start(self) -> None:
        return None

    async def prime(self, stable_prefix: str, tools: Sequence[ToolDef] = ()) -> None:
        return None

    async def warm(self, messages: Sequence[Message], tools: Sequence[ToolDef] = ()) -> Warmed | None:
        return None

    async def probe(self) -> str:
        return ""

    def quiet(self) -> Provider:
        return self  # type: ignore[return-value]

    async def recover(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None
