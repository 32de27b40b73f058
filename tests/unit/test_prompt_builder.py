"""homeagent.agent.prompt: the order of a turn's prompt, and the language line before the
user's words."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from homeagent.agent.personality import Personality
from homeagent.agent.prompt import REPLY_IN, PromptBuilder
from homeagent.llm.base import Message

NOW = datetime(2026, 12, 6, 18, 48, tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.fixture
def builder() -> PromptBuilder:
    return PromptBuilder(Personality("You are HomeAgent.", Path("personal.md")))


@pytest.mark.parametrize(("text", "lang"), [
    ("你好，今天过得怎么样？", "zh"),
    ("帮我查一下 weather", "zh"),  # any Chinese: the household speaks Chinese to it
    ("Good morning! How are you today?", "en"),
    ("ok", "en"),
    ("👍", "en"),
])  # fmt: skip
def test_the_last_line_before_the_message_names_its_language(builder: PromptBuilder, text: str, lang: str) -> None:
    built = builder.build(user_text=text, history=[], now=NOW)
    *_, per_turn, user = built.messages
    assert user == Message("user", text)
    assert per_turn.role == "system" and per_turn.content.endswith(REPLY_IN[lang])
    other = REPLY_IN["en" if lang == "zh" else "zh"]
    assert other not in per_turn.content


def test_the_order_stable_history_clock_sections_message(builder: PromptBuilder) -> None:
    history = [Message("user", "我喜欢绿茶"), Message("assistant", "记住了。")]
    built = builder.build(user_text="我喜欢什么？", history=history, now=NOW,
                          memory_sections=[("Memory", "likes green tea"), ("Empty", "  ")],
                          turn_context="The user is in the kitchen.")
    roles = [m.role for m in built.messages]
    assert roles == ["system", "user", "assistant", "system", "system", "user"]
    assert built.messages[0].content == "You are HomeAgent." and built.stable_prefix_chars == len("You are HomeAgent.")
    assert built.messages[3] == builder.clock(NOW)  # prepared while idle: nothing of the turn in it
    sections = built.messages[4].content
    assert sections == ("## Memory\nlikes green tea\n\n## Context for this turn\nThe user is in the kitchen.\n\n"
                        + REPLY_IN["zh"])
    assert "## Empty" not in sections
