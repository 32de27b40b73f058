"""A command that names where its words go ("加清单里", "pop it in the diary", "add that as
a task", "put it down as income") runs that destination's write, even when the classifier
alone is unsure; a question, a removal, a count of hours or a wish list does not."""

from __future__ import annotations

import asyncio

import pytest

from homeagent.intent import IntentLayer, Route
from homeagent.intent.cues import destination


def route(layer: IntentLayer, text: str) -> Route:
    return asyncio.run(layer.route(text, channel=text, tools=layer.registry.definitions()))


@pytest.mark.parametrize(("text", "action"), [
    ("买5号电池，加清单里", "add_shopping_item"),
    ("清单里加个保鲜膜", "add_shopping_item"),
    ("Grandma needs denture tablets, can you add them to the list", "add_shopping_item"),
    ("The dish soap's nearly finished, add it to the list", "add_shopping_item"),
    ("清明节那天回老家扫墓，放日历上", "create_event"),
    ("We're going to the cinema tonight at 7:45, pop it in the diary", "create_event"),
    ("洗碗机的滤网该换了，记个待办", "create_task"),
    ("新建任务 修自行车链条 优先级低", "create_task"),
    ("Jake has to hand in his science project next Monday, add that as a task", "create_task"),
    ("待办里加一条：问物业热水器的事", "create_task"),
    ("上周六聚餐AA了156", "record_transaction"),
    ("给爸妈买了个按摩椅，花了¥4,299", "record_transaction"),
    ("Taxi to the airport yesterday was 210", "record_transaction"),
    ("Got 500 back from the freelance job, put it down as income", "record_transaction"),
    ("chuck 60 quid down for the pub last night", "record_transaction"),
])
def test_a_named_destination(text: str, action: str) -> None:
    assert destination(text) == action


@pytest.mark.parametrize("text", [
    "心愿单加一个Switch",  # a wish list is no shopping list
    "物品清单里的折叠椅删掉",  # a removal, and the list of things at home
    "把牛奶从购物清单删掉",
    "把修自行车的任务标记完成", "mark the task as done", "delete the task",
    "write it in my diary",  # a diary entry, not a calendar
    "I spent 2 hours cleaning", "花了两个小时打扫",  # time, not money
    "借给他500块",  # money lent has an action of its own
    "The meeting was at 3",
    "小明的房租每月3000",  # a recurring charge
])
def test_no_destination(text: str) -> None:
    assert destination(text) is None


@pytest.mark.parametrize(("text", "action"), [
    ("买5号电池，加清单里", "add_shopping_item"),
    ("清明节那天回老家扫墓，放日历上", "create_event"),
    ("Jake has to hand in his science project next Monday, add that as a task", "create_task"),
    ("待办里加一条：问物业热水器的事", "create_task"),
    ("Taxi to the airport yesterday was 210", "record_transaction"),
])
def test_the_layer_runs_the_destination(layer: IntentLayer, text: str, action: str) -> None:
    found = route(layer, text)
    # it runs, or asks for what it lacks ("清明节那天" is no date the layer knows)
    assert found.path == "intent" and found.label == action, found.trace()
    assert [c.name for c in found.calls] in ([action], []) and (found.calls or found.answer), found.trace()


@pytest.mark.parametrize("text", [
    "购物清单里有电池吗", "is there anything on the shopping list?", "日历上明天有什么",
    "what did the taxi cost yesterday?",
])
def test_a_question_naming_a_destination_never_writes(layer: IntentLayer, text: str) -> None:
    found = route(layer, text)
    assert all(layer._is_read(c.name) for c in found.calls), found.trace()
