"""The working context replayed into a prompt, when its token budget cuts through an
exchange: the replayed history starts with a user message, never with the orphaned
answer of an exchange whose question did not fit (a chat prompt alternates user and
assistant after the system part)."""

from __future__ import annotations

import pytest

from homeagent.llm.testing import ScriptedProvider

from .helpers import running_app, turn

pytestmark = pytest.mark.anyio

LONG_QUESTION = "请帮我记住这件事" * 20  # 160 CJK characters: over the whole budget alone
SHORT_ANSWER = "好的"


def replayed_history(request) -> list[tuple[str, str]]:
    """The chat messages between the stable system prefix and the per-turn system part."""
    messages = list(request.messages)
    assert messages[0].role == "system" and messages[-1].role == "user"
    per_turn = max(i for i, m in enumerate(messages[:-1]) if m.role == "system")
    return [(m.role, m.content) for m in messages[1:per_turn]]


async def test_history_cut_through_an_exchange_drops_the_orphan_answer(make_config):
    provider = ScriptedProvider([SHORT_ANSWER, "第二个回答", "第三个回答"])
    config = make_config(memory={"history_tokens": 40})
    async with running_app(config, provider=provider) as app:
        await turn(app, LONG_QUESTION)
        await turn(app, "第二个问题")
        await turn(app, "第三个问题")

    third = provider.requests[2]
    history = replayed_history(third)
    # The budget holds the second exchange and the first answer, not the first question:
    # the first answer alone would open the history with an assistant message.
    assert history, "the second exchange fits the budget and must be replayed"
    assert history[0][0] == "user", f"history must start with a user message, got {history}"
    assert history == [("user", "第二个问题"), ("assistant", "第二个回答")]
    assert third.messages[-1].content == "第三个问题"
