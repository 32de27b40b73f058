"""The chat a turn is made of: messages, tool definitions and tool calls.

Frozen types shared by the agent (which builds the conversation), the tool registry
(which runs the calls) and the language-model layer (which sends it all to a model).
They sit below all three, so none of them has to import another for its words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
# As OpenAI's API has it: the model may call a tool, must call one, or must answer in words.
ToolChoice = Literal["auto", "required", "none"]


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
    error: bool = False  # a tool message whose call failed


@dataclass(frozen=True)
class ToolDef:
    """What a provider needs to offer a tool to the model natively."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    # `user words → tool_name {"argument": "value"}` lines: a model that reads its tools
    # from the prompt sees the leading `featured_examples` of them as example dialogues.
    examples: tuple[str, ...] = ()
    featured_examples: int = 0

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }
