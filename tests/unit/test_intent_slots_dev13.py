"""Slot filling on forms households used in blind 13 once it became a development set:
each case was wrong before its rule."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer


def _has(got: dict, expected: dict) -> bool:
    return {k: got.get(k) for k in expected} == expected


@pytest.mark.parametrize(("text", "action", "expected"), [
    # A clause of polite command words alone is no value: 请帮我记一笔支出, 麻烦你帮我添一项待办事项.
    ("请帮我记一笔支出，买菜花了八十五块", "record_transaction", {"note": "买菜", "type": "expense"}),
    ("麻烦你帮我添一项待办事项，周五之前交物业费", "create_task", {"content": "交物业费"}),
    # The command clause taken off, the tags are still taken out of the name: said after it,
    # or leading the words after a colon.
    ("记个点子，周末带孩子去做陶艺，标签亲子", "create_idea", {"content": "周末带孩子去做陶艺", "tags": ["亲子"]}),
    ("记个灵感，标签“创业”：社区团购水果", "create_idea", {"content": "社区团购水果", "tags": ["创业"]}),
    ("存个笔记，标签是汽车：每5000公里换一次机油", "create_note", {"content": "每5000公里换一次机油", "tags": ["汽车"]}),
])
def test_command_words_and_tags_are_no_part_of_the_value(filler: IntentLayer, text: str, action: str,
                                                         expected: dict) -> None:
    args = filler.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "query"), [
    # What a question is about, without who it asks, its particles or a remark after it.
    ("您给瞅瞅，我这太极拳坚持了多少天了？", "list_habits", "太极拳"),
    ("家里还有没有退烧药啊？孩子脑门儿有点烫。", "list_inventory", "退烧药"),
    ("How much did the plumber end up costing us?", "list_transactions", "plumber"),
    ("When's Chloe's birthday again? I've gone blank.", "list_birthdays", "Chloe"),
    ("Did I lend my DSLR to someone? Cannot find it anywhere.", "list_inventory", "DSLR"),
    # (an apostrophe quotes nothing between words; a quote is still the query)
    ("When's Biscuit's vet appointment again?", "list_events", "Biscuit vet"),
    ("is 'call mum' still on my list?", "list_tasks", "call mum"),
])
def test_a_questions_query_is_what_it_asks_about(filler: IntentLayer, text: str, action: str, query: str) -> None:
    assert filler.fill(action, text).get("query") == query
