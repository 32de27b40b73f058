"""Argument filling of values that have a shape of their own: a link (whole, its own slot,
no price or item read out of it), a number with thousands separators, a record's number
after its kind ("物品7", "goal 2"), a metric named by its reading ("9,000 steps"), and a
list of several things to buy. The sentences are this file's own."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer
from tests.unit.conftest import has_args


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("add_wishlist_item", "把这个电动牙刷存进心愿单 https://item.jd.com/998877.html",
     {"item": "电动牙刷", "url": "https://item.jd.com/998877.html"}),
    ("add_wishlist_item", "wishlist: a rice cooker, low priority, link is https://example.com/rc450",
     {"item": "rice cooker", "priority": "low", "url": "https://example.com/rc450"}),
    ("record_health", "log 9,650 steps for yesterday", {"metric": "steps", "value": "9650"}),
    ("record_health", "今天走了8000步，记到健康数据里", {"metric": "步数", "value": "8000"}),
    ("record_transaction", "paid 2,450.80 for the new sofa", {"amount": "2450.80"}),
    ("delete_inventory_item", "把物品7删掉", {"id": 7}),
    ("update_goal_progress", "I'm abandoning goal 2, no time for it", {"id": 2, "status": "abandoned"}),
    ("update_goal_progress", "目标4完成了", {"id": 4, "status": "done"}),
    ("add_shopping_item", "we need apples, oat milk, rice and coffee", {"item": "apples, oat milk, rice and coffee"}),
    ("add_shopping_item", "add pasta, tomatoes and basil to the list", {"item": "pasta, tomatoes and basil"}),
    ("add_shopping_item", "买酸奶、面包和鸡蛋", {"item": "酸奶、面包和鸡蛋"}),
])
def test_values_with_a_shape_of_their_own(filler: IntentLayer, action: str, text: str, expected: dict) -> None:
    got = filler.fill(action, text)
    assert has_args(got, expected), got


@pytest.mark.parametrize(("action", "text", "key", "value"), [
    # (a number after a goal's word that is measured is its target, not the record's number)
    ("create_goal", "设个目标100公里", "target", 100),
    # (a name and a remark about it are no list)
    ("add_shopping_item", "need eggs, the free range ones", "item", "eggs"),
])
def test_what_only_looks_like_those_values_stays_as_it_was(filler: IntentLayer, action: str, text: str, key: str,
                                                           value: object) -> None:
    got = filler.fill(action, text)
    assert got.get(key) == value and "id" not in got, got


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("create_idea", "Idea before it slips away — a swap shelf for kids' books at school", {"content": "a swap shelf for kids' books at school"}),
    ("write_diary", "Journal — quiet Sunday, we baked bread together", {"content": "quiet Sunday, we baked bread together"}),
    ("record_item_lend", "Borrowed a hedge trimmer from Mrs. Okafor", {"item": "hedge trimmer", "person": "Mrs. Okafor"}),
    ("record_item_lend", "borrowed a tent from Aunt Jo", {"person": "Aunt Jo", "direction": "borrowed"}),
    ("update_goal_progress", "mark the run-a-marathon goal as achieved", {"title": "run a marathon", "status": "done"}),
])
def test_typographic_dashes_titles_and_hyphenated_names(filler: IntentLayer, action: str, text: str, expected: dict) -> None:
    # (an English line with an em dash is still English; "Mrs." ends no sentence; a record
    # named with hyphens is looked up by its words)
    got = filler.fill(action, text)
    assert has_args(got, expected), got


@pytest.mark.parametrize(("action", "text", "key", "value"), [
    ("delete_event", "cancel the piano one", "title", "piano"),
    ("complete_task", "the recycling one is done", "content", "recycling"),
    ("update_habit", "pause the stretching one", "habit", "stretching"),
])
def test_the_one_after_a_records_words_is_no_part_of_them(filler: IntentLayer, action: str, text: str, key: str,
                                                          value: str) -> None:
    got = filler.fill(action, text)
    assert got.get(key) == value, got


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("create_task", "帮我建个任务，周五前把车险单据整理好，放到财务分类里", {"content": "把车险单据整理好", "category": "财务"}),
    ("add_shopping_item", "要买洗洁精，放清洁用品那一类", {"item": "洗洁精", "category": "清洁用品"}),
    ("create_inventory_item", "两卷胶带在工具箱，归到文具", {"location": "工具箱", "category": "文具"}),
    ("create_task", "add a task to renew the fishing licence under hobbies", {"content": "renew the fishing licence", "category": "hobbies"}),
    ("create_inventory_item", "the sleeping bags are in the attic, category camping gear", {"category": "camping gear"}),
])
def test_a_category_the_words_give_is_its_own_slot(filler: IntentLayer, action: str, text: str, expected: dict) -> None:
    got = filler.fill(action, text)
    assert has_args(got, expected), got


def test_under_a_place_is_where_a_thing_is_kept_not_its_category(filler: IntentLayer) -> None:
    got = filler.fill("create_inventory_item", "the spare bulbs are kept under the stairs")
    assert "category" not in got, got


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("record_movie", "We saw Paddington 2 last night, I'd give it an 8", {"title": "Paddington 2", "rating": 8}),
    ("record_movie", "看完《你好，李焕英》，给了9分", {"title": "你好，李焕英", "rating": 9}),
    ("record_mood", "记一下心情，有点烦，因为周末要加班", {"note": "周末要加班"}),
    ("record_mood", "feeling nervous about the driving test, log my mood", {"mood": "nervous", "note": "the driving test"}),
])
def test_a_rating_and_a_reason_said_in_passing(filler: IntentLayer, action: str, text: str, expected: dict) -> None:
    got = filler.fill(action, text)
    assert has_args(got, expected) and "give" not in str(got.get("note", "")), got


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("write_diary", "I want to write a diary entry. The boiler broke, but the neighbours lent us a heater.",
     {"content": "The boiler broke, but the neighbours lent us a heater"}),
    ("write_diary", "写日记：今天去了趟植物园，心情特别好", {"mood": "特别好"}),
    ("write_diary", "journal: painted the fence, mood is calm", {"mood": "calm"}),
    ("create_idea", "突然想到，阳台可以种点薄荷，先记下这个想法", {"content": "阳台可以种点薄荷"}),
])
def test_a_diary_keeps_all_its_prose_and_a_mood_named_as_such(filler: IntentLayer, action: str, text: str,
                                                               expected: dict) -> None:
    got = filler.fill(action, text)
    assert has_args(got, expected), got


@pytest.mark.parametrize(("action", "text", "key", "value"), [
    ("create_task", "交宽带费，标签打个账单", "tags", ["账单"]),
    ("update_event", "push the school run back to 8:30", "title", "school run"),
    ("delete_note", "把记着旧门禁码的那条笔记删掉", "title", "旧门禁码"),
    ("mark_shopping_bought", "把洗衣粉标记为已买", "item", "洗衣粉"),
])
def test_the_words_around_a_looked_up_record(filler: IntentLayer, action: str, text: str, key: str, value: object) -> None:
    got = filler.fill(action, text)
    assert got.get(key) == value, got


def test_coordinates_are_their_own_slots(filler: IntentLayer) -> None:
    got = filler.fill("record_trajectory", "log where I am: 51.5007, -0.1246, Westminster")
    assert (got.get("latitude"), got.get("longitude")) == (51.5007, -0.1246) and "51" not in str(got.get("place")), got
