"""The pauses a spoken line lost, put back before the layer reads it (`restore_pauses`), and
the arguments of lines spoken without punctuation, as a voice satellite hears them."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer
from homeagent.intent.spoken import as_written, restore_pauses


@pytest.mark.parametrize(("said", "meant"), [
    ("阳台晾衣架坏了 下周三之前得找人来修 记个任务", "阳台晾衣架坏了，下周三之前得找人来修，记个任务"),
    ("新建任务 续签护照 打个标签 证件和出行", "新建任务，续签护照，打个标签 证件和出行"),
    ("i need to book the car in for its mot put it down as high priority",
     "i need to book the car in for its mot, put it down as high priority"),
    ("video call with my sister at 9 tonight add it to the calendar so i don't forget",
     "video call with my sister at 9 tonight, add it to the calendar, so i don't forget"),
    ("add mia's parents' evening on the 12th at 6pm it's only about 45 minutes",
     "add mia's parents' evening on the 12th at 6pm, it's only about 45 minutes"),
    ("i'm done with cold showers delete that habit and all its history",
     "i'm done with cold showers, delete that habit and all its history"),
])
def test_a_pause_goes_back_where_the_speaker_made_one(said: str, meant: str) -> None:
    assert restore_pauses(said) == meant


@pytest.mark.parametrize("said", [
    # Written with its own punctuation, or with no pause to restore: as it is.
    "I need to book the car in, put it down as high priority",
    "add it to the list",
    "put that on my list",
    "在wifi密码那条笔记后面加一句：访客网络密码是 guest8888",
    "iPhone 17 price",
    "remind me to take it to the tip",
    "点子：乐乐的生日派对搞个恐龙主题，标签 生日",
    "Move Saturday's barbecue to Sunday same time and add a note that it's potluck",
])
def test_a_line_with_its_own_pauses_or_none_to_restore_is_as_written(said: str) -> None:
    assert restore_pauses(said) == said


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("麻烦帮我新建一个任务 整理去年的发票 放到工作分类里", "create_task", {"content": "整理去年的发票", "category": "工作"}),
    ("我想养成每天跑步的习惯 帮我建一个", "create_habit", {"habit": "跑步"}),
    ("游泳打卡 今天游了一千米", "check_in_habit", {"habit": "游泳"}),
    ("记录一下心情 开心 乐乐数学考了满分", "record_mood", {"mood": "开心"}),
    ("i need to book the car in for its mot put it down as high priority", "create_task",
     {"content": "book the car in for its mot", "priority": "high"}),
    ("i'm done with cold showers delete that habit and all its history", "delete_habit", {"habit": "cold showers"}),
    ("please throw away the note with the lockbox code i've changed it", "delete_note", {"title": "lockbox code"}),
])
def test_a_line_spoken_without_punctuation_fills_as_written_with_it(filler: IntentLayer, text: str, action: str,
                                                                     expected: dict) -> None:
    args = filler.fill(action, text)
    assert {k: args.get(k) for k in expected} == expected, args


@pytest.mark.parametrize(("said", "written"), [
    # Numbers and clock times as speech recognition writes them, as a household types them.
    ("remind me at three thirty tomorrow to pick up the dry cleaning", "remind me at 3:30 tomorrow to pick up the dry cleaning"),
    ("remind me tomorrow at half past four to call mum", "remind me tomorrow at 4:30 to call mum"),
    ("remind me at quarter to six to feed the cat", "remind me at 5:45 to feed the cat"),
    ("dentist on friday at ten am", "dentist on friday at 10 am"),
    ("spent twenty five dollars on lunch", "spent 25 dollars on lunch"),
    ("log one hundred and twenty for the electric bill", "log 120 for the electric bill"),
    ("we paid two thousand five hundred for the sofa", "we paid 2500 for the sofa"),
    ("meeting at seven o'clock tonight", "meeting at 7:00 tonight"),
    ("remind me in twenty minutes", "remind me in 20 minutes"),
    # Minutes to and past the hour; "half nine" as Britain says it, after "at"; a decimal point.
    ("went to bed at twenty to twelve, up at ten past six", "went to bed at 11:40, up at 6:10"),
    ("log 330 mil of water at half nine", "log 330 mil of water at 9:30"),
    ("log my weight sixty-eight point two kilograms", "log my weight 68.2 kilograms"),
    ("record one point two five litres of water", "record 1.25 litres of water"),
    ("the first of April", "the 1st of April"),
    ("on the twelfth at ten in the morning", "on the 12th at 10 in the morning"),
])
def test_numbers_and_times_spoken_are_written(said: str, written: str) -> None:
    assert as_written(said) == written


@pytest.mark.parametrize("said", [
    # A lone small number and "one" as a word are left to the rules that read them.
    "drank two glasses of water",
    "delete that one",
    "add one more egg",
    "the one about the boiler",
    "I ran 8 km this morning",
    "the twenty twenty six budget",
    "it took half an hour",
    "at that point one of us left",
    "the first family hike of the year",
    "on the way home",
])
def test_words_that_are_no_spoken_number_stay(said: str) -> None:
    assert as_written(said) == said


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("remind me at quarter to six to feed the cat", "create_task", {"content": "feed the cat"}),
    ("remind me tomorrow at half past four to call mum", "create_task", {"content": "call mum"}),
    ("dentist on friday at ten am", "create_event", {"title": "dentist"}),
    ("spent twenty five dollars on lunch", "record_transaction", {"amount": 25, "note": "lunch"}),
])
def test_a_line_with_numbers_spoken_fills_as_written_with_digits(filler: IntentLayer, text: str, action: str,
                                                                 expected: dict) -> None:
    args = filler.fill(action, text)
    assert {k: args.get(k) for k in expected} == expected, args
