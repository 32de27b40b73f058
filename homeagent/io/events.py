"""Events a turn emits to the channel that asked: frozen, typed, serialisable."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class TurnStarted:
    turn_id: str
    type: Literal["turn_started"] = "turn_started"


@dataclass(frozen=True)
class AnswerDelta:
    text: str
    type: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    name: str
    arguments: str
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True)
class ToolCallFinished:
    call_id: str
    name: str
    ok: bool
    content: str
    duration_ms: float
    display: dict[str, Any] | None = None
    type: Literal["tool_result"] = "tool_result"


@dataclass(frozen=True)
class PermissionRequested:
    """A tool call waits for the user; the asking channel shows it and gives the answer
    ("allow_once" | "allow_session" | "deny") to the permission broker. Over HTTP the
    answer is POSTed to `answer_url`, which the API fills in when it serialises the event
    (homeagent/api/sse.py); the agent need not know it."""

    request_id: str
    tool: str
    permission: str
    arguments: dict[str, Any]
    answer_url: str = ""
    type: Literal["permission_request"] = "permission_request"


@dataclass(frozen=True)
class TurnNotice:
    """A short word to the user about how the turn is served (failover, budget)."""

    text: str
    kind: str
    type: Literal["notice"] = "notice"


@dataclass(frozen=True)
class TurnDone:
    turn_id: str
    text: str
    finish_reason: Literal["stop", "length", "cancelled", "error"]
    prompt_tokens: int
    completion_tokens: int
    model: str
    type: Literal["done"] = "done"


@dataclass(frozen=True)
class TurnFailed:
    turn_id: str
    message: str
    kind: str
    type: Literal["error"] = "error"


AgentEvent = (
    TurnStarted | AnswerDelta | TurnNotice | PermissionRequested | ToolCallStarted | ToolCallFinished
    | TurnDone | TurnFailed
)


def event_to_dict(event: AgentEvent) -> dict[str, Any]:
    return dataclasses.asdict(event)
