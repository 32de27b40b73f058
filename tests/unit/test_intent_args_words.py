"""Argument filling where the words around a name were kept in it: a possessive 的 before
the kind of record, a count of days with no lead word, a leading 给 of who was paid, a
topic's pronoun, English habit frames, a note after the name, a plant given water, a
birthday's relation, a tag before the content, an address's label and the words that ask
to keep it. The sentences are this file's own."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer
from tests.unit.conftest import has_args


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("update_task", "把交报销单的任务改到下周一", {"content": "交报销单"}),
    ("list_birthdays", "30天内有谁过生日", {"within_days": 30}),
    ("list_birthdays", "who has a birthday within 10 days", {"within_days": 10}),
    ("list_transactions", "上个月给爱奇艺花了多少", {"query": "爱奇艺"}),
    ("record_plant_watering", "阳台那几盆花我刚浇了", {"plant": "阳台那几盆花"}),
    ("create_habit", "I want to start a habit of reading 20 minutes every night", {"habit": "reading 20 minutes"}),
    ("create_habit", "help me build a daily flossing habit, remind me at 9:30pm", {"habit": "flossing"}),
    ("check_in_habit", "habit check-in: meditation, felt really calm", {"habit": "meditation", "note": "felt really calm"}),
    ("check_in_habit", "I forgot to check in reading yesterday, can you add it", {"habit": "reading"}),
    ("update_habit", "change swimming to twice a week", {"habit": "swimming", "target": 2}),
    # (a delete finds its note by every word it is given: "babysitter" finds "old babysitter")
    ("delete_note", "throw away the old babysitter note", {"title": "babysitter"}),
    ("record_plant_watering", "I gave the basil about 250 ml of water", {"plant": "basil", "amount_ml": 250}),
    ("record_plant_watering", "threw the tomatoes some water", {"plant": "tomatoes"}),
    ("record_plant_watering", "Log watering for the fiddle leaf fig", {"plant": "fiddle leaf fig"}),
    ("add_birthday", "添加生日：同事陈晨，1993-11-02", {"person": "陈晨", "date": "1993-11-02"}),
    ("create_idea", "save this idea with the tag garden: grow tomatoes on the balcony",
     {"content": "grow tomatoes on the balcony", "tags": ["garden"]}),
    ("create_idea", "记个灵感，标签“创业”：社区团购水果", {"content": "社区团购水果", "tags": ["创业"]}),
    ("add_address", "把小宝学校的地址记下来：北京市海淀区中关村一小", {"label": "小宝学校", "address": "北京市海淀区中关村一小"}),
    ("add_address", "存个地址，老王家在滨江区江南大道520号", {"label": "老王家", "address": "滨江区江南大道520号"}),
    ("add_address", "记一下舅舅家的地址：人民路8号", {"label": "舅舅家", "address": "人民路8号"}),
    ("record_trajectory", "记录一下，现在在上海虹桥站", {"place": "上海虹桥站"}),
    ("list_notes", "笔记里有没有记车位号", {"query": "车位号"}),
    ("list_subscriptions", "把视频会员相关的订阅找出来", {"query": "视频"}),  # (会员 names the list)
    # A habit named before its kind ("X习惯") is X, whatever clause came first or adverb after.
    ("update_habit", "最近膝盖疼，爬山习惯先暂停", {"habit": "爬山", "status": "paused"}),
    ("delete_habit", "帮我把背单词习惯彻底删了", {"habit": "背单词"}),
    ("delete_habit", "不想再记录早起了，把这个习惯删了", {"habit": "早起"}),  # (这个 points back: no name)
    ("check_in_habit", "冥想已完成✅", {"habit": "冥想"}),
    ("update_event", "钢琴课以后不用每周重复了", {"title": "钢琴课", "repeat": "none"}),
    ("update_event", "给周五的羽毛球加个备注：带球拍", {"title": "羽毛球", "notes": "带球拍"}),
    ("delete_inventory_item", "那台坏掉的微波炉已经扔了，不用再记着了", {"item": "微波炉"}),
    ("add_birthday", "同事李雷生日是10月3号", {"person": "李雷", "date": "10月3号"}),
    ("add_birthday", "添加生日：女儿朵朵，2018年5月1日", {"person": "朵朵", "date": "2018年5月1日"}),
    ("record_medicine", "孩子咳嗽，刚喂了止咳糖浆10毫升", {"medicine": "止咳糖浆", "dose": "10毫升"}),
    ("record_trajectory", "记录一下足迹，今天去了外滩", {"place": "外滩"}),
    ("create_inventory_item", "充电宝放在客厅抽屉里了，记到物品里", {"item": "充电宝", "location": "客厅抽屉"}),
    ("create_idea", "有个想法，周末市集摆摊，标签打上“副业”", {"content": "周末市集摆摊", "tags": ["副业"]}),
    # English: the record named before its kind ("the dentist task"), what is said after it, the
    # done-verb of a check-in, "thing", a plan given up.
    ("complete_task", "Finished the laundry, you can check that one off", {"content": "laundry"}),
    ("update_task", "Make the dentist task high priority, it can't wait", {"content": "dentist", "priority": "high"}),
    ("update_habit", "Change the yoga habit to three times a week", {"habit": "yoga", "target": 3}),
    ("check_in_habit", "Went to the pool ✔", {"habit": "pool"}),
    ("delete_habit", "I give up on the cold shower thing, delete that habit", {"habit": "cold shower"}),
    ("update_event", "Stop repeating the Friday movie night event", {"title": "Friday movie night", "repeat": "none"}),
    # "set me a to-do to …": the to-do is what follows
    ("create_task", "Set me a to-do to put the recycling out every Monday night, I keep forgetting",
     {"content": "put the recycling out"}),
    ("create_task", "Set me a recurring to-do to water the ferns every Sunday at 5pm.", {"content": "water the ferns"}),
    ("create_task", "make me a reminder to call the vet tomorrow", {"content": "call the vet"}),
    ("delete_event", "We're not going to the book fair anymore, remove it", {"title": "book fair"}),
    ("update_event", "Tuesday's choir practice should start at 7 now", {"title": "choir practice"}),
])
def test_the_words_around_a_name_are_not_part_of_it(filler: IntentLayer, action: str, text: str, expected: dict) -> None:
    got = filler.fill(action, text)
    assert has_args(got, expected), got
