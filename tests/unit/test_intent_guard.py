"""Reads never write and remarks are not commands: question forms in both languages reach a
reading action or the model, a remark with no request in it reaches the model with no
action offered, and terse commands still act (the layer trained as the daemon trains it;
no database, nothing is run)."""

from __future__ import annotations

import asyncio

import pytest

from homeagent.intent import IntentLayer, Route


def route(layer: IntentLayer, text: str) -> Route:
    return asyncio.run(layer.route(text, channel=text, tools=layer.registry.definitions()))


def writes(layer: IntentLayer, found: Route) -> list[str]:
    return [c.name for c in found.calls if not layer._is_read(c.name)]


@pytest.mark.parametrize("text", [
    # 几 with a unit of its own asks how many: a score, a date, an age, a weight.
    "昨天心情打了几分", "上周体重是几斤", "房租是几号交来着", "这个月我吃了几颗维生素",
    # 请问 is no request to act.
    "请问我昨天心情打了几分", "请问今天记账了吗",
    # A request to find something out is still a question.
    "帮我查一下这个月吃了几次布洛芬", "帮我看看我今天喝了多少水",
    "can you tell me how many times I went running this week?",
    # Tag questions and a question after a filler word.
    "I took my vitamins this morning, didn't I", "我今天已经吃过药了，对吧", "so did I water the plants today",
    "ok what was my mood yesterday", "we paid the electricity bill, right",
    # A question after a lead, or asked as "remind me what…".
    "quick question, did I log my water today", "remind me what the guest wifi password is",
    "明天要开会吗，帮我看看",
    # Asked whether it happened, with a particle after it; 是否, 要不要.
    "降压药吃了没啊", "今天是否已经打卡跑步", "牛奶要不要再买点",
])
def test_a_question_form_never_writes(layer: IntentLayer, text: str) -> None:
    found = route(layer, text)
    assert not writes(layer, found), found.trace()
    assert found.question, found.trace()
