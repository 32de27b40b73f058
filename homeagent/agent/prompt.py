"""The prompt builder: a fixed order, the parts that change least first.

    system  personality (personal.md, verbatim)        ] stable prefix: identical on every
                                                         turn, so a local engine keeps its
                                                         evaluated state across turns and restarts
    working context (recent exchanges, as chat messages) — grows at its end, so most of it
            stays in the engine's cache from one turn to the next
    system  current date and time, memory sections (graph index, documents, knowledge),
            this turn's extra context (a client's system message) — change every turn
    user    the user message

The per-turn sections come after the working context rather than before it: they differ
on every turn (the time by the minute, memory by the question), and anything after them
would have to be evaluated again each turn.

Tools travel beside the messages as native definitions (`ChatRequest.tools`); for a model
that reads them from its prompt, the llm layer's dialect adds their text to the stable
prefix and to the turn's section, so this builder knows nothing of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from homeagent.agent.personality import Personality
from homeagent.llm.base import Message

_WEEKDAYS_ZH = "一二三四五六日"


@dataclass(frozen=True)
class BuiltPrompt:
    messages: tuple[Message, ...]
    stable_prefix_chars: int


class PromptBuilder:
    def __init__(self, personality: Personality):
        self._personality = personality

    def stable_prefix(self) -> str:
        """The personality: this part never changes while the daemon runs."""
        return self._personality.text

    def build(
        self,
        *,
        user_text: str,
        history: Sequence[Message],
        now: datetime,
        memory_sections: Sequence[tuple[str, str]] = (),
        turn_context: str = "",
    ) -> BuiltPrompt:
        stable = self.stable_prefix()
        dynamic = [f"## {title}\n{body}" for title, body in memory_sections if body.strip()]
        if turn_context.strip():
            dynamic.append(f"## Context for this turn\n{turn_context.strip()}")
        messages = (
            Message("system", stable),
            *history,
            self.clock(now),
            *([Message("system", "\n\n".join(dynamic))] if dynamic else []),
            Message("user", user_text),
        )
        return BuiltPrompt(messages, len(stable))

    def clock(self, now: datetime) -> Message:
        """The date and time, a message of its own after the history: it changes only by
        the minute, so a local engine has it evaluated while idle (`Agent.prepare_next`)
        and a turn evaluates only its own sections and words. The minute comes last: a new
        minute (also the first after a restart) changes only the line's last few tokens."""
        return Message("system", (
            f"Current date and time ({now.tzname() or 'local'}): {now.strftime('%A')}, "
            f"星期{_WEEKDAYS_ZH[now.weekday()]}, {now.strftime('%Y-%m-%d %H:%M')}"))
