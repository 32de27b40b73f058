"""Argument filling when a template says the first clause and the rest holds a value of its
own ("雨伞借给小李了，说好周五还"), and the words a name ran into: an adverb before the verb
("鸡蛋已经买回来了"), a command before a fact ("record that Anna owes me 300"). The sentences
are this file's own."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer
from tests.unit.conftest import has_args


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("record_item_lend", "雨伞借给小李了，说好周五还", {"item": "雨伞", "person": "小李", "direction": "lent", "due": "周五"}),
    ("record_item_lend", "电钻借给邻居老张了，下周一还回来", {"item": "电钻", "person": "老张", "direction": "lent", "due": "下周一"}),
    ("mark_shopping_bought", "鸡蛋已经买回来了", {"item": "鸡蛋"}),
    ("mark_shopping_bought", "洗衣液终于买回来了，花了45", {"item": "洗衣液"}),
    ("record_money_lend", "record that Anna owes me 300", {"person": "Anna", "amount": "300", "direction": "lent"}),
    ("record_money_lend", "note that Sam owes me 50, he'll pay by Friday", {"person": "Sam", "amount": "50", "due": "Friday"}),
])
def test_a_template_says_the_first_clause_and_the_rest_adds_its_values(filler: IntentLayer, action: str, text: str,
                                                                        expected: dict) -> None:
    got = filler.fill(action, text)
    assert has_args(got, expected), got


@pytest.mark.parametrize(("action", "text", "key", "value"), [
    # (a first clause a template matches, with nothing of its own after it: the whole is read)
    ("create_inventory_item", "inventory: 2 bottles of olive oil in the pantry, expires December 2026", "item", "olive oil"),
    ("add_shopping_item", "把猫粮加到购物清单，要三文鱼味的", "item", "猫粮"),
])
def test_a_clause_without_a_value_of_its_own_does_not_cut_the_name(filler: IntentLayer, action: str, text: str,
                                                                  key: str, value: str) -> None:
    got = filler.fill(action, text)
    assert got.get(key) == value, got


@pytest.mark.parametrize(("action", "text", "key", "value"), [
    ("add_recipe", "添加食谱糖醋排骨，标签是下饭菜", "dish", "糖醋排骨"),
    ("add_recipe", "收藏一个菜谱，蒜蓉西兰花", "dish", "蒜蓉西兰花"),
    ("create_task", "添加任务 换净水器滤芯", "content", "换净水器滤芯"),
    ("add_coupon", "存张券，必胜客满200减50", "store", "必胜客"),
    ("create_countdown", "帮我set一个countdown，Tom的party在6月6号", "title", "Tom的party"),
])
def test_the_command_and_the_kind_it_makes_are_no_part_of_the_name(filler: IntentLayer, action: str, text: str,
                                                                    key: str, value: str) -> None:
    got = filler.fill(action, text)
    assert got.get(key) == value, got
