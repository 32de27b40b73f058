"""Reads never write and remarks are not commands: question forms in both languages reach a
reading action or the model, a remark with no request in it reaches the model with no
action offered, and terse commands still act (the layer trained as the daemon trains it;
no database, nothing is run)."""

from __future__ import annotations

import asyncio
import json

import pytest

from homeagent.intent import IntentLayer, Route
from homeagent.intent.layer import _is_remark


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
    # An order to look something up is a question in the imperative.
    "search my wishlist for the espresso machine", "check which mode we're in",
    "look up the plumber's number in my notes", "find out what I spent on petrol last week",
    # 谁 asks who: a book's author, who has the ladder.
    "《红楼梦》的作者是谁", "梯子借给谁了",
    # 多重, 多高, 多久 at the end ask how heavy, tall, long.
    "猫咪体重那条笔记里咪咪多重", "宝宝现在多高了", "那个药膏开封多久了",
])
def test_a_question_form_never_writes(layer: IntentLayer, text: str) -> None:
    found = route(layer, text)
    assert not writes(layer, found), found.trace()
    assert found.question, found.trace()


@pytest.mark.parametrize("text", [
    "我爸又在阳台偷偷抽烟了", "洗衣机洗完了又懒得晾", "我做的红烧肉被全家夸了，嘿嘿",
    "孩子又在沙发上吃零食，唉", "老公又被领导骂了", "邻居家的狗老是半夜叫，烦死了",
    "the cat keeps knocking things off the table lol", "honestly, Mondays are the worst",
    "my husband always leaves his socks on the floor", "the dog keeps barking at the mailman haha",
])
def test_a_remark_reaches_the_model_with_no_action(layer: IntentLayer, text: str) -> None:
    found = route(layer, text)
    assert not writes(layer, found), found.trace()
    assert found.path == "model"
    assert not {t.name for t in found.tools} & set(layer.templates), found.trace()


@pytest.mark.parametrize(("text", "written"), [
    # Off to do something is no place arrived at; a place is.
    ("喝酒去了哈 回来再唠", False), ("我到虹桥火车站了", True), ("记一下，我现在在开元广场", True),
])
def test_going_off_to_do_something_records_no_place(layer: IntentLayer, text: str, written: bool) -> None:
    found = route(layer, text)
    assert bool(writes(layer, found)) == written, found.trace()


@pytest.mark.parametrize(("text", "action"), [
    # A remark's mark beside a request: the request wins.
    ("哈哈，提醒我明天下午三点交电费", "create_task"),
    ("add crisps to the shopping list lol", "add_shopping_item"),
    ("唉，提醒我今晚八点给妈妈打电话", "create_task"),
    # Terse commands and logs carry no remark's mark.
    ("买两盒牛奶", "add_shopping_item"),
    ("remind me to call the vet tomorrow at 9", "create_task"),
    ("今天喝了两杯水", "record_water"),
])
def test_a_request_with_a_remarks_mark_still_acts(layer: IntentLayer, text: str, action: str) -> None:
    found = route(layer, text)
    assert [c.name for c in found.calls][:1] == [action], found.trace()


@pytest.mark.parametrize(("text", "remark"), [
    ("我爸又在阳台偷偷抽烟了", True),
    ("honestly, Mondays are the worst", True),
    ("又加班到十点，累死了", False),  # an amount and a time: perhaps a log, the classifier decides
    ("哈哈，提醒我明天交电费", False),
    ("the cat keeps knocking things off the table lol, remind me to buy a mat", False),
    ("牛奶没了", False),
])
def test_what_marks_a_remark(text: str, remark: bool) -> None:
    assert _is_remark(text) is remark


@pytest.mark.parametrize("text", [
    "Inventory of the garage, please", "Go through the household inventory for me", "把家里的物品清单给我看一下",
    "countdown for Tom's exam, 12th of June", "羽绒被收在主卧衣柜顶上了，记到物品里",
])
def test_a_delete_needs_a_word_that_takes_the_record_away(layer: IntentLayer, text: str) -> None:
    found = route(layer, text)
    assert not [c.name for c in found.calls if c.name.startswith("delete_")], found.trace()


@pytest.mark.parametrize(("text", "action"), [
    ("Stop tracking green tea", "delete_habit"), ("三亚那个倒计时不需要了", "delete_countdown"),
    ("delte the dentist appoinment", "delete_event"),
])
def test_a_delete_with_its_word_still_deletes(layer: IntentLayer, text: str, action: str) -> None:
    found = route(layer, text)
    assert [c.name for c in found.calls][:1] == [action], found.trace()


def test_slang_for_a_delete_runs_it_or_offers_it_first(layer: IntentLayer) -> None:
    """"nuke the gym task": sure enough, the delete runs; under the bar a change needs, the
    model decides, offered that delete first. Nothing else is run."""
    found = route(layer, "nuke the gym task")
    if found.calls:
        assert [c.name for c in found.calls] == ["delete_task"], found.trace()
    else:
        assert found.path == "model" and found.tools and found.tools[0].name == "delete_task", found.trace()



@pytest.mark.parametrize(("text", "last", "data", "action", "args"), [
    ("不是明天，是后天", "create_task", {"due": "2026-03-05"}, "update_task", {"due": "后天"}),
    ("不对，不是周四，是周五", "create_event", {"start": "2026-03-05T14:00:00+08:00"}, "update_event",
     {"start": "2026-03-06 14:00"}),
    ("no, not Thursday, Friday", "create_task", {"due": "2026-03-05"}, "update_task", {"due": "Friday"}),
    ("Friday, not Thursday", "create_event", {"start": "2026-03-05T14:00:00+08:00"}, "update_event",
     {"start": "2026-03-06 14:00"}),
    # Only the right day, after a word that says it was wrong; the time kept.
    ("不对不对，是周日，时间不变", "create_task", {"due": "2026-03-07T09:00:00+08:00"}, "update_task",
     {"due": "2026-03-08 09:00"}),
    ("说错了，是后天", "create_event", {"start": "2026-03-05T14:00:00+08:00"}, "update_event", {"start": "2026-03-06 14:00"}),
])
def test_a_time_put_right_moves_the_record_just_made(layer: IntentLayer, text: str, last: str, data: dict,
                                                     action: str, args: dict) -> None:
    from homeagent.intent.layer import _Context

    channel = "fix:" + text
    layer._contexts[("", channel)] = _Context(last_action=last, last_id=7, last_text="…", last_data=data)
    found = asyncio.run(layer.route(text, channel=channel, tools=layer.registry.definitions()))
    assert [c.name for c in found.calls] == [action], found.trace()
    assert json.loads(found.calls[0].arguments) == {"id": 7, **args}


@pytest.mark.parametrize("text", ["不是这个，是周报那个", "no, not that one, the bank one", "milk, not cream"])
def test_what_is_no_time_put_right(layer: IntentLayer, text: str) -> None:
    from homeagent.intent.layer import _Context

    channel = "nofix:" + text
    layer._contexts[("", channel)] = _Context(last_action="create_task", last_id=7, last_data={"due": "2026-03-05"})
    found = asyncio.run(layer.route(text, channel=channel, tools=layer.registry.definitions()))
    assert found.reason != "follow-up: time put right", found.trace()


@pytest.mark.parametrize(("text", "action"), [
    # 谁也 is nobody, and 谁 typed for 睡 or 水 asks nothing.
    ("写张便签置顶：周末大扫除谁也不许跑", "create_memo"),
    ("昨晚谁了6个小时", "record_sleep"),
    ("喝了一杯谁", "record_water"),
])
def test_a_who_that_asks_nothing_is_no_question(layer: IntentLayer, text: str, action: str) -> None:
    found = route(layer, text)
    assert not found.question, found.trace()
    assert found.label == action, found.trace()
