"""The prompt builder: a fixed order, the parts that change least first.

    system  personality (personal.md, verbatim)        ┐ stable prefix: identical on every
            tool catalog (models without native tools) │ turn, so a local engine keeps its
            few-shot examples                          ┘ evaluated state across turns and restarts
    working context (recent exchanges, as chat messages) — grows at its end, so most of it
            stays in the engine's cache from one turn to the next
    system  current date and time, memory sections (graph index, documents, knowledge),
            this turn's extra context (a client's system message) — change every turn
    user    the user message

The per-turn sections come after the working context rather than before it: they differ
on every turn (the time by the minute, memory by the question), and anything after them
would have to be evaluated again each turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from homeagent.agent.personality import Personality
from homeagent.llm.base import Message
from homeagent.tools.action_protocol import render_offered, render_protocol
from homeagent.tools.registry import ToolRegistry, ToolSpec

_WEEKDAYS_ZH = "一二三四五六日"


@dataclass(frozen=True)
class BuiltPrompt:
    messages: tuple[Message, ...]
    stable_prefix_chars: int


class PromptBuilder:
    def __init__(self, personality: Personality, registry: ToolRegistry):
        self._personality = personality
        self._registry = registry
        self._stable_cache: dict[bool, str] = {}

    def stable_prefix(self, native_tools: bool) -> str:
        """Personality, then (for [ACTION] models) how to call actions and the example
        dialogues generated from the registry. The actions themselves are offered per
        message (see `build`), so this part never changes while the daemon runs."""
        cached = self._stable_cache.get(native_tools)
        if cached is not None:
            return cached
        parts = [self._personality.text]
        if not native_tools and len(self._registry):
            parts.append(render_protocol(list(self._registry)))
        text = "\n\n".join(parts)
        self._stable_cache[native_tools] = text
        return text

    def build(
        self,
        *,
        user_text: str,
        history: Sequence[Message],
        now: datetime,
        native_tools: bool,
        memory_sections: Sequence[tuple[str, str]] = (),
        turn_context: str = "",
        offered: Sequence[ToolSpec] | None = None,
    ) -> BuiltPrompt:
        """`offered`: for [ACTION] models, the actions relevant to this message (None: all)."""
        stable = self.stable_prefix(native_tools)
        dynamic = [
            f"Current date and time: {now.strftime('%Y-%m-%d %H:%M')} "
            f"({now.strftime('%A')}, 星期{_WEEKDAYS_ZH[now.weekday()]}, {now.tzname() or 'local'})"
        ]
        dynamic += [f"## {title}\n{body}" for title, body in memory_sections if body.strip()]
        if turn_context.strip():
            dynamic.append(f"## Context for this turn\n{turn_context.strip()}")
        if not native_tools and len(self._registry):
            actions = render_offered(list(self._registry) if offered is None else offered)
            if actions:
                dynamic.append(actions)
        messages = (
            Message("system", stable),
            *history,
            Message("system", "\n\n".join(dynamic)),
            Message("user", user_text),
        )
        return BuiltPrompt(messages, len(stable))
