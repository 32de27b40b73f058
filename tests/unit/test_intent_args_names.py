"""Argument filling: where one name ends and the next begins, and the words around a
name that are not the name — titles in 《》, an author's "by", a lookup's command words,
the status and repeat words an update carries. The sentences are this file's own.

The layer is not trained here: `fill` reads the registry's schemas and the templates."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer
from tests.unit.conftest import has_args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # a place said right before what happens there: the place ends at its place word
    # (and the meeting is the event, not its holding: 项目评审会, as blinds 7-9 said it)
    ("后天上午在研究院开项目评审会", "create_event", {"location": "研究院", "title": "项目评审会"}),
    ("周六晚上在工人体育馆看球赛", "create_event", {"location": "工人体育馆", "title": "看球赛"}),
    # a shop right before its offer
    ("存个优惠券，永辉满150减25，周日过期", "add_coupon", {"store": "永辉"}),
])
def test_two_names_with_nothing_between(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # a title in 《》 is what the marks hold, whatever is said after them
    ("《隐秘的角落》这部剧最近在追", "record_movie", {"title": "隐秘的角落", "status": "watching", "kind": "tv"}),
    ("《沙丘2》标记成想看", "record_movie", {"title": "沙丘2", "status": "want"}),
    ("想看的剧加一个《人世间》", "record_movie", {"title": "人世间", "kind": "tv", "status": "want"}),
    # a kind the words name outright outweighs the one a template guessed from its verb
    ("最近在追《间谍过家家》这部动画", "record_movie", {"title": "间谍过家家", "kind": "anime"}),
    # an author before 的《》, with the words before the author left out
    ("我在读王小波的《黄金时代》", "add_book", {"title": "黄金时代", "author": "王小波", "status": "reading"}),
    ("书单里加一本东野圭吾的《白夜行》", "add_book", {"title": "白夜行", "author": "东野圭吾"}),
    # what follows a title is no author unless it says it is one
    ("《围城》我想读，加到书单", "add_book", {"title": "围城", "status": "want"}),
    ("那本《平凡的世界》终于啃完了", "add_book", {"title": "平凡的世界", "status": "read"}),
    # a loan's measure word and marks are not the item
    ("从老王那借了本《明朝那些事儿》", "record_item_lend", {"item": "明朝那些事儿", "person": "老王", "direction": "borrowed"}),
])
def test_a_title_in_marks_and_its_author(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args
    if action == "add_book" and "author" not in expected:
        assert not args.get("author"), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # a day said apart from the hour is the start's day, not an end
    ("把后天的家长会改到晚上7点", "update_event", {"title": "家长会", "start": "后天晚上7点"}),
    ("move Friday's dinner to 8pm", "update_event", {"start": "Friday 8pm"}),
    ("4月2号小姨生日宴，在望湖酒店，晚上六点", "create_event", {"start": "4月2号晚上六点", "location": "望湖酒店"}),
    # a spoken day word
    ("明儿个提醒我一声，拿快递", "create_task", {"due": "明儿个"}),
])
def test_a_day_and_an_hour_said_apart_are_one_time(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args
    assert "end" not in args, args


@pytest.mark.parametrize(("text", "expected"), [
    # a place changed: the record is what comes before the place's word
    ("读书会地点换成市图书馆", {"title": "读书会", "location": "市图书馆"}),
    ("change the venue of the school play to the town hall", {"title": "school play", "location": "town hall"}),
    # a meeting looked up by whom it is with
    ("跟李老师的会改到周四上午", {"title": "李老师"}),
])
def test_an_event_looked_up_by_its_words(filler: IntentLayer, text: str, expected: dict) -> None:
    args = filler.fill("update_event", text)
    assert has_args(args, expected), args
    assert "new_title" not in args, args


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm at 65 km on the cycling goal now", {"title": "cycling", "progress": 65}),
    ("put another 150 toward the holiday goal", {"title": "holiday", "add": 150}),
    ("walked 6k this morning, count it towards the 200 km goal", {"title": "200 km", "add": 6}),
    ("Read another book, add one to my reading goal", {"title": "reading", "add": 1}),
    ("存钱目标现在已经攒到3万了", {"title": "存钱", "progress": 30000}),
    ("跑步那个目标放弃吧", {"title": "跑步", "status": "abandoned"}),
    ("I'm giving up on the guitar goal", {"title": "guitar", "status": "abandoned"}),
])
def test_a_goal_s_progress_said_in_a_sentence(filler: IntentLayer, text: str, expected: dict) -> None:
    args = filler.fill("update_goal_progress", text)
    assert has_args(args, expected), args
    assert args.get("status") != "done", args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # the hours left in a title once its day was taken
    ("Move my piano lesson to 4 tomorrow", "update_event", {"title": "piano lesson", "start": "tomorrow at 4"}),
    ("I've got a call with the plumber tomorrow from 9 to 10:30", "create_event",
     {"title": "call with the plumber", "start": "tomorrow at 9", "end": "tomorrow at 10:30"}),
    ("Workshop from 9 to 5 on the 20th at the library", "create_event",
     {"title": "Workshop", "start": "the 20th at 9", "end": "the 20th at 5pm"}),
    # "book in", and a day's possessive cut after the day
    ("book in lunch with Grandma sunday 12.30", "create_event", {"title": "lunch with Grandma", "start": "sunday at 12:30"}),
    ("Move Thursday's book club to 8pm", "update_event", {"title": "book club", "start": "Thursday 8pm"}),
    # the words around a name that say what to do with it
    ("wanna see Dune at some point, stick it on my watch list", "record_movie", {"title": "Dune", "status": "want"}),
    ("We don't need the gym membership note anymore, delete it", "delete_note", {"title": "gym membership"}),
])
def test_the_words_around_an_english_name(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # a lone "to" or "of" of the templates is a word of the object in its middle
    ("Maya has to return her library books on Friday, add that as a task", "create_task",
     {"content": "Maya has to return her library books"}),
    ("remind Dad to book the car service tomorrow", "create_task", {"content": "remind Dad to book the car service"}),
    ("gave Ava 5ml of fever syrup", "record_medicine", {"medicine": "fever syrup"}),
    ("Move the book club to 8 on Thursday", "update_event", {"title": "book club"}),
    # the deadline's "before the" / "by the" and a "sometime" are not the task's words
    ("I need to get the boiler serviced before the end of the month", "create_task", {"content": "get the boiler serviced"}),
    ("new task: clear out the loft sometime", "create_task", {"content": "clear out the loft"}),
    # a second sentence after a question mark is no part of the name
    ("Can you remind me to call Aunt Rose on Saturday? She asked me to.", "create_task", {"content": "call Aunt Rose"}),
])
def test_the_function_words_of_an_english_name(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    got = filler.fill(action, text)
    assert has_args(got, expected), got
