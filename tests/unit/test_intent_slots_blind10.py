"""Slot filling on forms households used in blind 10 once it became a development set:
each case was wrong before its rule. The layer is trained as the daemon trains it."""

from __future__ import annotations

import asyncio

import pytest

from homeagent.intent import IntentLayer, Route


def _has(got: dict, expected: dict) -> bool:
    return {k: got.get(k) for k in expected} == expected


@pytest.mark.parametrize(("text", "action", "expected"), [
    # An English name is one sentence's words: not a command said in the next sentence, nor
    # the remark before or after it.
    ("I need to book the car in for its MOT. Put it down as high priority.", "create_task",
     {"content": "book the car in for its MOT", "priority": "high"}),
    ("I'm done with cold showers. Delete that habit and all its history.", "delete_habit", {"habit": "cold showers"}),
    ("Ooh, I've got an idea. Start a tool library for the neighbourhood. Keep that somewhere.", "create_idea",
     {"content": "Start a tool library for the neighbourhood"}),
    ("Add Mia's parents' evening on the 12th at 6pm. It's only about 45 minutes.", "create_event",
     {"title": "Mia's parents' evening", "duration_minutes": 45}),
    ("The passport renewal can wait. Push it to the 20th and drop it to low priority.", "update_task",
     {"content": "passport renewal", "priority": "low"}),
])
def test_an_english_name_is_one_sentences_words(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # A meeting's holding is not its name: 开部门会议 → 部门会议 (and 开个会 is no 个会).
    ("下周三上午十点开部门会议", "create_event", {"title": "部门会议"}),
    ("明天下午开个会", "create_event", {"title": "开个会"}),
    # What is changed of a record is not its name: 的任务优先级, 的打卡提醒.
    ("整理发票的任务优先级调成高", "update_task", {"content": "整理发票", "priority": "high"}),
    ("跑步的打卡提醒改到早上6点半", "update_habit", {"habit": "跑步"}),
])
def test_a_chinese_name_without_its_holding_or_the_field_changed(layer: IntentLayer, text: str, action: str,
                                                                  expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


def route(layer: IntentLayer, text: str) -> Route:
    return asyncio.run(layer.route(text, channel=text, tools=layer.registry.definitions()))


@pytest.mark.parametrize(("text", "action"), [
    # A search asked for outright is a search, whatever its subject asks ("卖多少钱").
    ("查一下iPhone 17现在卖多少钱，给我三条结果就行", "web_search"),
    ("Can you find some reviews of the Kia EV3 online?", "web_search"),
    # A removal said half in English, or as "no need to keep it": the delete runs.
    ("把那个dentist appointment给cancel掉", "delete_event"),
    ("那台坏掉的加湿器不用再记着了", "delete_inventory_item"),
    # A task's kind said with a hyphened word before it is still the task list named.
    ("Make a low-priority task to sort out the garage at some point", "create_task"),
])
def test_what_the_household_asks_outright_runs(layer: IntentLayer, text: str, action: str) -> None:
    found = route(layer, text)
    assert found.path == "intent" and [c.name for c in found.calls] == [action], found.trace()


@pytest.mark.parametrize("text", ["我上周搜过什么？", "Did I search for flights last week?", "帮我搜一下明天杭州的天气了吗？",
                                  "Did you search for the train times?"])
def test_a_question_about_searching_is_no_search(layer: IntentLayer, text: str) -> None:
    assert "web_search" not in [c.name for c in route(layer, text).calls]


@pytest.mark.parametrize(("text", "action", "expected"), [
    # How many results, said at a search's end, is its limit and no part of the query.
    ("搜一下上海天气，给我三条结果就行", "web_search", {"query": "上海天气", "limit": 3}),
    ("Search for flights from Shanghai to Bangkok in April, just the top 5 results", "web_search",
     {"query": "flights from Shanghai to Bangkok in April", "limit": 5}),
    # The removal said after the record's words is not its name.
    ("把那个dentist appointment给cancel掉", "delete_event", {"title": "dentist"}),
    ("那台坏掉的加湿器不用再记着了", "delete_inventory_item", {"item": "加湿器"}),
    ("Make a low-priority task to sort out the garage at some point", "create_task",
     {"content": "sort out the garage", "priority": "low"}),
])
def test_a_count_a_removal_or_a_priority_said_around_the_name(layer: IntentLayer, text: str, action: str,
                                                               expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # Whose reading or dose it is: a child's pet name said twice is a person (天天 is no one).
    ("乐乐量身高了，128厘米", "record_body", {"height_cm": 128, "note": "乐乐"}),
    ("给乐乐喂了5毫升美林", "record_medicine", {"medicine": "美林", "note": "乐乐"}),
    ("乐乐发烧了，体温38.5度", "record_health", {"metric": "体温", "note": "乐乐"}),
    # The meal a time of day names; "也补上" is no food; several counted foods keep their counts.
    ("昨天中午吃的牛肉面，大概600大卡，记一下", "record_diet", {"food": "牛肉面", "meal": "lunch"}),
    ("昨天晚饭吃的饺子也补上", "record_diet", {"food": "饺子", "meal": "dinner"}),
    ("早饭吃了两个包子一杯豆浆", "record_diet", {"food": "两个包子一杯豆浆", "meal": "breakfast"}),
    ("午饭吃了一碗牛肉面", "record_diet", {"food": "牛肉面", "meal": "lunch"}),
])
def test_whose_it_is_and_which_meal(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


def test_an_adverb_said_twice_is_no_person(layer: IntentLayer) -> None:
    assert "天天" not in str(layer.fill("record_medicine", "天天吃维生素C").get("note", ""))


@pytest.mark.parametrize(("text", "action", "expected"), [
    # Why the house changes mode, said beside the switch.
    ("家里来客人了，切成访客模式", "switch_mode", {"mode": "guest", "reason": "家里来客人了"}),
    ("We're off on holiday, switch to away mode", "switch_mode", {"mode": "away", "reason": "off on holiday"}),
    ("Put the house in away mode, we're out for the day", "switch_mode", {"mode": "away", "reason": "out for the day"}),
    ("切换到离家模式", "switch_mode", {"mode": "away", "reason": None}),
    # Yuan said in English is the currency said.
    ("I spent 38 yuan on lunch", "record_transaction", {"currency": "CNY", "note": "lunch"}),
    ("I lent Mike 500 yuan", "record_money_lend", {"currency": "CNY", "person": "Mike"}),
])
def test_a_modes_reason_and_yuan_said_in_english(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # Where one is, not when or how one got there; who, not how long it took them.
    ("I'm at the office now", "record_trajectory", {"place": "office"}),
    ("Just landed at Pudong Airport", "record_trajectory", {"place": "Pudong Airport"}),
    ("got to the airport just now", "record_trajectory", {"place": "the airport"}),
    ("Sam finally returned my tent", "record_item_lend", {"person": "Sam", "item": "tent"}),
])
def test_a_place_and_a_person_without_the_words_around_them(layer: IntentLayer, text: str, action: str,
                                                            expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action"), [
    # A line headed by a kind's name and a colon is a record of that kind.
    ("点子：乐乐的生日派对搞个恐龙主题，标签 生日", "create_idea"),
    ("Memo: bin day's moved to Wednesday this week", "create_memo"),
    ("Idea: a family quiz night every month", "create_idea"),
])
def test_a_line_headed_by_its_kind(layer: IntentLayer, text: str, action: str) -> None:
    found = route(layer, text)
    assert found.path == "intent" and [c.name for c in found.calls] == [action], found.trace()


def test_a_question_headed_by_a_kind_is_still_a_question(layer: IntentLayer) -> None:
    assert not [c.name for c in route(layer, "Memo: what did I write about the bins?").calls if c.name == "create_memo"]
