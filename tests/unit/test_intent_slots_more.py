"""Sharper slot filling on the real registry's schemas (the layer trained as the daemon
trains it; no database, nothing is run): typos and fillers around the command words,
enum values read tolerantly, structured slots, and relative shifts of a record's time."""

from __future__ import annotations

import asyncio
import json

import pytest

from homeagent.intent import IntentLayer
from homeagent.intent.fuzzy import closest, edits1, fix_typos, strip_fillers, strip_hedges
from homeagent.intent.shift import Shift, apply_shift, bare, find_shift, name_of
from homeagent.intent.structured import duration_minutes


def route(layer: IntentLayer, text: str) -> tuple[str, dict]:
    found = asyncio.run(layer.route(text, channel=text, tools=layer.registry.definitions()))
    calls = [json.loads(c.arguments) for c in found.calls]
    return found.label, calls[0] if calls else {}


def _has(got: dict, expected: dict) -> bool:
    return {k: got.get(k) for k in expected} == expected


@pytest.mark.parametrize(("text", "action", "expected"), [
    # Typos of the command and date words: the frame goes, the date is read.
    ("remnd me to wtaer the plants tomorow", "create_task", {"content": "wtaer the plants", "due": "tomorrow"}),
    # Leading fillers are not the content, in either language.
    ("ok so remind me to call mum tomorrow", "create_task", {"content": "call mum", "due": "tomorrow"}),
    ("就是明天提醒我交电费", "create_task", {"content": "交电费", "due": "明天"}),
    ("嗯那个提醒我明天交电费", "create_task", {"content": "交电费", "due": "明天"}),
    # Hedges are not the mood.
    ("I kinda feel tired", "record_mood", {"mood": "tired"}),
    ("心情有点低落", "record_mood", {"mood": "低落"}),
    # Chat abbreviations of date words, a greeting, the kind of record named, a speaker's 我/点.
    ("Remind me tmrw to pay rent", "create_task", {"content": "pay rent", "due": "tomorrow"}),
    ("yo remind me to feed the fish in 2 hours", "create_task", {"content": "feed the fish", "due": "in 2 hours"}),
    ("加个日程明天下午开会", "create_event", {"title": "开会", "start": "明天下午"}),
    ("我得买点鸡蛋", "add_shopping_item", {"item": "鸡蛋"}),
    # A hedge in the content itself is the user's words.
    ("remind me to buy a pretty dress tomorrow", "create_task", {"content": "buy a pretty dress", "due": "tomorrow"}),
    # A possessive tail is not part of the pet's name.
    ("fed Max his dinner", "record_pet_activity", {"pet": "Max"}),
])
def test_command_words_fillers_and_hedges_stay_out_of_the_object(layer: IntentLayer, text: str, action: str,
                                                                 expected: dict) -> None:
    # The slot filler given the action (which action an utterance routes to is the
    # classifier's part, measured by bench/intent_eval.py).
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "mode"), [
    ("slep mode", "sleep"), ("switch to awya mode", "away"), ("swich to sleep mode", "sleep"),
    ("切到睡眠模式", "sleep"), ("切换到离家模式", "away"), ("切到guest模式", "guest"),
])
def test_a_mode_is_read_through_typos_and_languages_and_the_command_is_no_reason(layer: IntentLayer, text: str,
                                                                                 mode: str) -> None:
    args = layer.fill("switch_mode", text)
    assert args == {"mode": mode}, args


def test_a_long_enum_value_is_read_through_a_typo(layer: IntentLayer) -> None:
    assert route(layer, "I had a brekfast of oatmeal")[1].get("meal") == "breakfast"
    assert route(layer, "show my compelted tasks") == ("list_tasks", {"status": "done"})


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("添加联系人张三，电话13812345678", "add_person", {"person": "张三", "phone": "13812345678"}),
    ("新建联系人李四，手机号 139-1234-5678", "add_person", {"person": "李四", "phone": "13912345678"}),
    ("save a coupon for Starbucks, code SAVE20, expires next Friday", "add_coupon",
     {"title": "Starbucks coupon", "store": "Starbucks", "code": "SAVE20", "expires": "next Friday"}),
    ("记一张优惠券：星巴克满100减20，券码ABC123，下周五过期", "add_coupon",
     {"title": "星巴克满100减20", "store": "星巴克", "code": "ABC123", "discount": "满100减20", "expires": "下周五"}),
    ("run 100 km this year", "create_goal", {"title": "run 100 km", "target": 100, "unit": "km", "deadline": "this year"}),
    ("目标今年跑500公里", "create_goal", {"title": "跑步", "target": 500, "unit": "公里"}),
    ("今年读12本书", "create_goal", {"title": "读书", "target": 12, "unit": "本"}),
    ("add 3 cans of tuna to the pantry", "create_inventory_item",
     {"item": "tuna", "quantity": 3, "unit": "cans", "location": "pantry"}),
    ("买两盒牛奶", "add_shopping_item", {"item": "牛奶", "quantity": "两盒"}),
    ("喝了两杯水", "record_water", {"amount": "两杯"}),
    ("I drank 500ml of water", "record_water", {"amount": "500ml"}),
    ("spent twenty bucks on lunch", "record_transaction", {"amount": 20, "currency": "USD", "type": "expense"}),
    ("spent 2.5k on a laptop", "record_transaction", {"amount": 2500}),
    ("买了¥1.2万的电脑", "record_transaction", {"amount": 12000}),
    ("slept 7 and a half hours", "record_sleep", {"hours": 7.5}),
    ("meeting tomorrow at 3pm for an hour and a half", "create_event",
     {"title": "meeting", "start": "tomorrow at 3pm", "duration_minutes": 90}),
    ("明天下午3点开会，一个半小时", "create_event", {"title": "开会", "duration_minutes": 90}),
    ("start a habit of going to the gym three times a week", "create_habit",
     {"habit": "going to the gym", "frequency": "weekly", "target": 3}),
    ("吃了两片布洛芬", "record_medicine", {"medicine": "布洛芬", "dose": "两片"}),
    ("I weigh 150 lbs", "record_body", {"weight_kg": 68.0}),
    ("heart rate 72 bpm", "record_health", {"metric": "heart rate", "value": "72", "unit": "bpm"}),
    ("浇了500毫升水给绿萝", "record_plant_watering", {"plant": "绿萝", "amount_ml": 500}),
    ("watered the fern with 300ml", "record_plant_watering", {"plant": "fern", "amount_ml": 300}),
    ("学英语每天30分钟", "create_study_plan", {"subject": "英语", "minutes_per_day": 30}),
    ("study Spanish 20 minutes a day", "create_study_plan", {"subject": "Spanish", "minutes_per_day": 20}),
])
def test_structured_slots_where_the_schema_has_them(layer: IntentLayer, text: str, action: str,
                                                    expected: dict) -> None:
    # The slot filler given the action (which action an utterance routes to is the
    # classifier's part, measured by bench/intent_eval.py).
    args = layer.fill(action, text)
    assert _has(args, expected), args


def test_typos_are_corrected_only_in_the_closed_vocabulary() -> None:
    assert edits1("remnd", "remind") and edits1("awya", "away") and not edits1("away", "away")
    assert fix_typos("remnd me tomorow to feed the dgo") == "remind me tomorrow to feed the dgo"
    assert fix_typos("Remind me next Friday") == "Remind me next Friday"  # exact words keep their case
    assert fix_typos("buy a new remote and a sundae") == "buy a new remote and a sundae"  # ordinary words stay
    # a plural of a vocabulary word is a word, not a slip: "Sundays" is no typo of "sunday"
    assert fix_typos("he is free on Sundays and Tuesdays") == "he is free on Sundays and Tuesdays"
    assert fix_typos("water the plants on mondays, remnd me") == "water the plants on mondays, remind me"
    assert closest("some", ("home",)) == "home" and closest("hom", ("home",)) is None  # too short to guess
    assert strip_fillers("ok so remind me") == "remind me" and strip_fillers("嗯那个提醒我") == "提醒我"
    assert strip_fillers("这个周末去爬山") == "这个周末去爬山"  # 这个周末 is a date, not a filler
    assert strip_hedges("I'm feeling pretty down") == "down" and strip_hedges("kinda") == "kinda"


@pytest.mark.parametrize(("text", "minutes", "days", "months"), [
    ("往后推一个小时", 60, 0, 0), ("提前半小时", -30, 0, 0), ("晚两天", 0, 2, 0), ("推迟到下周", 0, 7, 0),
    ("往后推一个半小时", 90, 0, 0), ("延后一个月", 0, 0, 1), ("提前一周", 0, -7, 0),
    ("push it back an hour", 60, 0, 0), ("make it 30 minutes earlier", -30, 0, 0),
    ("move it two days later", 0, 2, 0), ("push it back an hour and a half", 90, 0, 0),
    ("move it up 15 minutes", -15, 0, 0), ("postpone it to next week", 0, 7, 0),
    ("往后推一刻钟", 15, 0, 0), ("推迟一个小时二十分钟", 80, 0, 0), ("push it back a quarter of an hour", 15, 0, 0),
    ("push it back an hour and 20 minutes", 80, 0, 0), ("推迟一天半", 720, 1, 0),
    ("push it out a week", 0, 7, 0), ("bring it forward an hour", -60, 0, 0), ("delay it by a day", 0, 1, 0),
    ("let's do it an hour later", 60, 0, 0),
])
def test_shifts_are_read_with_their_sign_and_size(text: str, minutes: int, days: int, months: int) -> None:
    shift = find_shift(text)
    assert shift is not None and (shift.minutes, shift.days, shift.months) == (minutes, days, months), shift
    assert bare(shift)


@pytest.mark.parametrize("text", [
    "提前半小时提醒我开会", "remind me 30 minutes before", "remind me in an hour", "推迟到下周二", "晚上8点吃药",
    "move it to Friday",
])
def test_a_lead_time_an_offset_or_an_absolute_time_is_no_shift(text: str) -> None:
    assert find_shift(text) is None


def test_a_named_record_and_the_shifted_value() -> None:
    zh, en = find_shift("把交电费往后推一天"), find_shift("push the dentist back an hour")
    assert zh is not None and en is not None and not bare(zh) and not bare(en)
    assert (name_of(zh), name_of(en)) == ("交电费", "dentist")
    assert apply_shift("2026-03-05T15:00:00+08:00", Shift(minutes=90)) == "2026-03-05 16:30"
    assert apply_shift("2026-01-31T09:00:00+08:00", Shift(months=1)) == "2026-02-28 09:00"
    assert apply_shift("2026-03-05", Shift(days=-2)) == "2026-03-03"
    assert apply_shift("2026-03-05", Shift(minutes=60)) is None  # an hour on an all-day record


def test_durations_in_both_languages() -> None:
    assert duration_minutes("for an hour and a half")[0] == 90  # type: ignore[index]
    assert duration_minutes("一个半小时")[0] == 90  # type: ignore[index]
    assert duration_minutes("半小时")[0] == 30  # type: ignore[index]
    assert duration_minutes("1小时20分钟")[0] == 80  # type: ignore[index]
    assert duration_minutes("45 mins")[0] == 45  # type: ignore[index]
    assert duration_minutes("tomorrow") is None


@pytest.mark.parametrize(("text", "action", "expected"), [
    # Enum synonyms in both languages; the enum's words are not the title.
    ("add a task to file taxes, normal priority", "create_task", {"content": "file taxes", "priority": "medium"}),
    ("加个待办：整理书架，优先级中等", "create_task", {"content": "整理书架", "priority": "medium"}),
    ("finished reading Dune", "add_book", {"title": "Dune", "status": "read"}),
    ("在读《三体》", "add_book", {"title": "三体", "status": "reading"}),
    # Two names in one phrase: who and what, a possessive between them.
    ("I lent Tom my drill", "record_item_lend", {"person": "Tom", "item": "drill", "direction": "lent"}),
    ("借了小李的伞", "record_item_lend", {"person": "小李", "item": "伞", "direction": "borrowed"}),
    ("I fed Max his dinner", "record_pet_activity", {"pet": "Max", "activity": "fed dinner"}),
    ("lent Tom $50", "record_money_lend", {"person": "Tom", "amount": "$50", "direction": "lent"}),
    ("今天心情挺好的", "record_mood", {"mood": "挺好"}),  # a hedge that is all but the whole mood stays
    ("花了¥1,200买了个耳机", "record_transaction", {"amount": "¥1200"}),
    ("提醒我tomorrow交电费", "create_task", {"content": "交电费", "due": "tomorrow"}),  # mixed languages
    ("记一笔lunch花了35块", "record_transaction", {"note": "lunch"}),
    ("添加联系人Tom，电话 (415) 555-0123", "add_person", {"person": "Tom", "phone": "(415) 555-0123"}),
    ("添加联系人张三，电话138 1234 5678", "add_person", {"person": "张三", "phone": "13812345678"}),
    ("add a coupon: 20% off at Uniqlo, code UNI20, valid until March 31", "add_coupon",
     {"store": "Uniqlo", "discount": "20% off", "code": "UNI20", "expires": "March 31"}),
    ("今年存5万块", "create_goal", {"target": 50000, "unit": "块"}),
    ("add 2 bottles of olive oil to the kitchen", "create_inventory_item",
     {"item": "olive oil", "quantity": 2, "unit": "bottles", "location": "kitchen"}),
    ("给旺财喂了狗粮", "record_pet_activity", {"pet": "旺财", "activity": "喂了狗粮"}),
])
def test_enum_synonyms_and_names_with_their_possessives(layer: IntentLayer, text: str, action: str,
                                                        expected: dict) -> None:
    # The slot filler given the action (which action an utterance routes to is the
    # classifier's part, measured by bench/intent_eval.py).
    args = layer.fill(action, text)
    assert _has(args, expected), args



@pytest.mark.parametrize(("text", "minutes", "title"), [
    ("明天下午3点开会，提前半小时提醒我", 30, "开会"),
    ("周五晚上7点聚餐，提前一小时提醒", 60, "聚餐"),
    ("下周三上午10点面试，提前一天提醒我", 1440, "面试"),
    ("dentist appointment on Friday at 10am, remind me 15 minutes before", 15, "dentist appointment"),
    ("team dinner tomorrow at 7pm, remind me an hour before", 60, "team dinner"),
])
def test_an_events_lead_time_is_its_reminder_not_its_title(layer: IntentLayer, text: str, minutes: int,
                                                           title: str) -> None:
    args = layer.fill("create_event", text)
    assert (args.get("remind_minutes"), args.get("title")) == (minutes, title), args
