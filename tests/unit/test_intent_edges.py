"""What is said at a Chinese name's edges is not the name, and an unsure line that asks for
nothing is answered in words with no action offered."""

from __future__ import annotations

import asyncio

import pytest

from homeagent.intent import IntentLayer
from homeagent.intent.objects import zh_edges


@pytest.mark.parametrize(("value", "key", "action", "expected"), [
    ("还有 维生素C", "medicine", "record_medicine", "维生素C"),
    ("妈妈说 要去菜市场", "content", "create_task", "去菜市场"),
    ("一碗牛肉面", "food", "record_diet", "牛肉面"),
    ("苹果当加餐", "food", "record_diet", "苹果"),
    ("没有洗衣液", "item", "add_shopping_item", "洗衣液"),
    ("报销单填完", "content", "complete_task", "报销单"),
    ("鸡蛋勾掉", "item", "mark_shopping_bought", "鸡蛋"),
    ("三亚不去", "title", "delete_countdown", "三亚"),
    # names that only look like it
    ("去成都", "title", "create_countdown", "去成都"),
    # a record looked up without the trip: 成都 finds "去成都" (every word within the record's own)
    ("去成都", "title", "delete_countdown", "成都"),
    ("一个人的旅行", "title", "create_countdown", "一个人的旅行"),
    ("妈妈的生日", "title", "create_countdown", "妈妈的生日"),
])
def test_words_at_a_names_edges(value: str, key: str, action: str, expected: str) -> None:
    assert zh_edges(value, key, action, {}) == expected


def test_a_sigh_before_a_medicine_is_no_medicine(layer: IntentLayer) -> None:
    found = asyncio.run(layer.route("哎哟，刚吃了两片感冒灵", channel="sigh", tools=layer.registry.definitions()))
    assert [c.name for c in found.calls] == ["record_medicine"], found.trace()
    assert found.calls[0].parsed_arguments()["medicine"] == "感冒灵"


@pytest.mark.parametrize("text", ["原来如此", "Brilliant, ta", "奶奶说想小雨了"])
def test_an_unsure_line_asking_nothing_gets_no_action(layer: IntentLayer, text: str) -> None:
    found = asyncio.run(layer.route(text, channel=text, tools=layer.registry.definitions()))
    assert found.path == "model" and not found.calls, found.trace()
    assert not [t.name for t in found.tools if t.name in layer.templates], found.trace()


@pytest.mark.parametrize(("text", "key", "expected"), [
    ("can you make sure I don't forget to pay the electricity bill by Friday", "content", "pay the electricity bill"),
    ("Jake says we've run out of cereal", "item", "cereal"),
    ("I took two paracetamol just now", "medicine", "paracetamol"),
    ("Record that I ate two boiled eggs and a coffee just now", "food", "two boiled eggs and a coffee"),
])
def test_words_around_an_english_name(layer: IntentLayer, text: str, key: str, expected: str) -> None:
    found = asyncio.run(layer.route(text, channel=text, tools=layer.registry.definitions()))
    assert found.calls and found.calls[0].parsed_arguments().get(key) == expected, found.trace()


@pytest.mark.parametrize("text", ["remind me later", "晚点再提醒我", "remind me in a bit", "回头提醒我一下"])
def test_a_reminder_of_nothing_asks_what(layer: IntentLayer, text: str) -> None:
    """"remind me later" names no errand: the words of when are no task's content, so the
    layer asks what to remind of (or, unsure, leaves the line to the model) instead of writing a
    task named "later"."""
    found = asyncio.run(layer.route(text, channel=text, tools=layer.registry.definitions()))
    assert not found.calls, found.trace()
    assert found.path == "model" or (found.answer and found.reason == "missing slot"), found.trace()
