"""Argument filling for updates and deletes: a rule that stops repeating, an archived
habit, a priority raised, a new deadline or name, and the words around a looked-up name
that are not the name. The sentences are this file's own."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("update_event", "周会那个日程以后不用再重复了", {"title": "周会", "repeat": "none"}),
    ("update_task", "浇花那个提醒不用每天重复了", {"content": "浇花", "repeat": "none"}),
    ("update_event", "swimming doesn't repeat any more", {"title": "swimming", "repeat": "none"}),
    ("update_task", "make the bins task a one-off", {"repeat": "none"}),
    ("update_task", "把浇花改成每周重复", {"content": "浇花", "repeat": "每周"}),  # a rule said stays a rule
    ("update_habit", "跳绳这个习惯归档吧", {"habit": "跳绳", "status": "archived"}),
    ("update_habit", "archive the journaling habit", {"habit": "journaling", "status": "archived"}),
    ("update_habit", "pause the running habit while my knee heals", {"habit": "running", "status": "paused"}),
    ("update_task", "交水费那个任务优先级调高一点", {"content": "交水费", "priority": "high"}),
    ("update_task", "降低一下遛狗的优先级", {"content": "遛狗", "priority": "low"}),
    ("update_task", "还信用卡的截止时间改成周五下午5点", {"content": "还信用卡", "due": "周五下午5点"}),
    ("update_event", "周日那个野餐改个名字，叫春游", {"title": "野餐", "new_title": "春游"}),
])
def test_what_an_update_says(filler: IntentLayer, action: str, text: str, expected: dict) -> None:
    got = filler.fill(action, text)
    assert {k: got.get(k) for k in expected} == expected, got
    assert got.get("due") != "一点", got  # the 一点 of 调高一点 is no one o'clock


@pytest.mark.parametrize(("action", "text", "key", "name"), [
    ("delete_habit", "冥想不想坚持了，删掉吧", "habit", "冥想"),
    ("delete_countdown", "演唱会取消了，倒计时删了吧", "title", "演唱会"),
    ("delete_note", "以前的装修报价笔记没用了，删掉", "title", "装修报价"),
    ("delete_habit", "I'm done tracking steps, delete that habit", "habit", "steps"),
    ("delete_habit", "remove the journaling habit and all its history", "habit", "journaling"),
    # the day a record is on is not its name: the name alone finds it
    ("delete_event", "scratch the Tuesday week viewing", "title", "viewing"),
    ("delete_event", "nix next Friday's viewing", "title", "viewing"),
    ("delete_event", "nix the Friday viewing", "title", "Friday viewing"),  # (a weekday may be the name's)
    ("delete_event", "cancel tomorrow's dentist", "title", "dentist"),
    ("complete_task", "tick off Monday's bins", "content", "bins"),
    ("delete_event", "下周二那个看房删了", "title", "看房"),
    ("delete_event", "把周二的看房取消", "title", "看房"),
    ("delete_event", "cancel Friday drinks", "title", "Friday drinks"),
    # what is said of the record being done is not its name
    ("complete_task", "lawn is finally mowed, tick it off, phew", "content", "lawn"),
    ("complete_task", "tick off the history essay, I finished it!!", "content", "history essay"),
    ("complete_task", "家长会回执交了，勾掉", "content", "家长会回执"),
    ("complete_task", "物理卷子终于写完了家人们 那个任务给我完成掉", "content", "物理卷子"),
    ("complete_task", "化学卷子终于做完了 帮我打个勾", "content", "化学卷子"),
])
def test_the_name_an_update_or_delete_looks_up(filler: IntentLayer, action: str, text: str, key: str, name: str) -> None:
    assert filler.fill(action, text).get(key) == name


@pytest.mark.parametrize(("text", "expected"), [
    ("给门锁密码那条笔记加上“重要”和“安全”两个标签", {"title": "门锁密码", "tags": ["重要", "安全"]}),
    ("给体检笔记加上标签 健康 和 家人", {"title": "体检", "tags": ["健康", "家人"]}),
    ("在“保险”那条笔记后面加一句：明年5月续保", {"title": "保险", "append": "明年5月续保"}),
    ("快递柜那条笔记内容换成：取件码改成 5521", {"title": "快递柜", "content": "取件码改成 5521"}),
    ("Tag the passport note with 'travel' and 'documents'", {"title": "passport", "tags": ["travel", "documents"]}),
    ("Add to the plumber note: he charges extra on Sundays", {"title": "plumber", "append": "he charges extra on Sundays"}),
    ("Update the alarm code note, the code is 7788 now", {"title": "alarm code", "content": "the code is 7788 now"}),
])
def test_what_a_note_gets(filler: IntentLayer, text: str, expected: dict) -> None:
    got = filler.fill("update_note", text)
    assert {k: got.get(k) for k in expected} == expected, got
    assert not {"content", "append", "tags", "new_title"} - set(expected) & set(got), got  # nothing else read as a change


@pytest.mark.parametrize(("text", "expected"), [
    ("The choir practice moved to the church hall", {"title": "choir practice", "location": "church hall"}),
    ("the quiz night is in room 4 now", {"title": "quiz night", "location": "room 4"}),
    ("读书会改到社区图书馆", {"title": "读书会", "location": "社区图书馆"}),
    ("周日的烧烤换到江边公园", {"title": "烧烤", "location": "江边公园"}),
])
def test_an_event_moved_to_a_place(filler: IntentLayer, text: str, expected: dict) -> None:
    got = filler.fill("update_event", text)
    assert {k: got.get(k) for k in expected} == expected, got


@pytest.mark.parametrize(("text", "key"), [
    ("the choir practice moved to Friday", "start"),
    ("读书会改到下周三", "start"),
    ("the dentist moved to 3pm", "start"),
])
def test_an_event_moved_to_a_time_keeps_its_place(filler: IntentLayer, text: str, key: str) -> None:
    got = filler.fill("update_event", text)
    assert key in got and "location" not in got, got


@pytest.mark.parametrize(("text", "habit"), [
    ("阅读也打一下", "阅读"),
    ("早起也打个卡", "早起"),
    ("stretching too", "stretching"),
    ("journaling as well", "journaling"),
])
def test_one_more_check_in_of_the_same_kind(filler: IntentLayer, text: str, habit: str) -> None:
    assert filler.fill("check_in_habit", text).get("habit") == habit


def test_done_said_alone_leaves_no_name() -> None:
    from homeagent.intent.tidy import done_said

    assert done_said("已经交了") == "已经交了"  # no name left: the record the last turn made
    assert done_said("it's done") == "it's done"
    assert done_said("水费已经交了") == "水费"


def test_a_done_statement_has_no_words_of_its_own() -> None:
    from homeagent.intent.layer import _only_command_words

    assert _only_command_words("已经交了", {"content": "已经交了"}, "content")  # the last record, then
    assert not _only_command_words("水费交了", {"content": "水费交了"}, "content")  # 水费 names one
