"""homeagent.llm.dialect.repair through extract_actions: malformed model output, table-driven.

Each case is a whole model reply as a small model writes it; the expected result is the
calls recovered (name, arguments) and the text the user sees. Replies that cannot be
repaired keep their natural-language part and report one error.
"""

from __future__ import annotations

import json

import pytest

from homeagent.llm.dialect.blocks import extract_actions
from homeagent.llm.dialect.repair import RepairError, cjk_repair, loads_lenient, split_named_call

TASK = ("create_task", {"content": "提交周报", "due": "明天"})
WATER = ("record_water", {"amount": "一杯"})

# (reply, expected calls, expected visible text)
CASES: list[tuple[str, list[tuple[str, dict]], str]] = [
    # well-formed, for reference
    ('好的。[ACTION]{"name": "create_task", "content": "提交周报", "due": "明天"}[/ACTION]', [TASK], "好的。"),
    # full-width punctuation as JSON syntax
    ("好的。[ACTION]｛“name”：“create_task”，“content”：“提交周报”，“due”：“明天”｝[/ACTION]", [TASK], "好的。"),
    ('[ACTION]{"name"："create_task"，"content"："提交周报"，"due"："明天"}[/ACTION]', [TASK], ""),
    ("[ACTION]{「name」:「create_task」,「content」:「提交周报」,「due」:「明天」}[/ACTION]", [TASK], ""),
    ("[ACTION]{‘name’: ‘record_water’, ‘amount’: ‘一杯’}[/ACTION]", [WATER], ""),
    ('[ACTION]{“name”: “record_water”, "amount": “一杯"}[/ACTION]', [WATER], ""),
    # Chinese punctuation inside values survives
    ('[ACTION]{"name": "create_note", "content": "买牛奶，鸡蛋：两打"}[/ACTION]', [("create_note", {"content": "买牛奶，鸡蛋：两打"})], ""),
    ("[ACTION]｛“name”：“create_note”，“content”：“买牛奶，鸡蛋”｝[/ACTION]", [("create_note", {"content": "买牛奶，鸡蛋"})], ""),
    # unquoted keys and single quotes
    ('[ACTION]{name: "record_water", amount: "一杯"}[/ACTION]', [WATER], ""),
    ("[ACTION]{'name': 'record_water', 'amount': '一杯'}[/ACTION]", [WATER], ""),
    ("[ACTION]{name: 'record_water', amount: '一杯'}[/ACTION]", [WATER], ""),
    ('[ACTION]{"name": "record_water", amount: 250}[/ACTION]', [("record_water", {"amount": 250})], ""),
    # trailing commas
    ('[ACTION]{"name": "record_water", "amount": "一杯",}[/ACTION]', [WATER], ""),
    ('[ACTION]{"name": "create_task", "content": "提交周报", "due": "明天", }[/ACTION]', [TASK], ""),
    ('[ACTION]{"name": "add_recipe", "dish": "汤", "ingredients": ["盐", "水",],}[/ACTION]', [("add_recipe", {"dish": "汤", "ingredients": ["盐", "水"]})], ""),
    # unbalanced braces and cut-off output
    ('[ACTION]{"name": "record_water", "amount": "一杯"[/ACTION]', [WATER], ""),
    ('[ACTION]{"name": "record_water", "amount": "一杯"', [WATER], ""),
    ('[ACTION]{"name": "record_water", "amount": "一杯', [WATER], ""),
    ('[ACTION]{"name": "add_recipe", "dish": "汤", "ingredients": ["盐", "水"[/ACTION]', [("add_recipe", {"dish": "汤", "ingredients": ["盐", "水"]})], ""),
    ('[ACTION]{"name": "record_water", "amount": "一杯"}}[/ACTION]', [WATER], ""),
    # code fences
    ('[ACTION]\n```json\n{"name": "record_water", "amount": "一杯"}\n```\n[/ACTION]', [WATER], ""),
    ('[ACTION]```{"name": "record_water", "amount": "一杯"}```[/ACTION]', [WATER], ""),
    ('[ACTION]\n```\n{"name": "record_water", "amount": "一杯",}\n```[/ACTION]', [WATER], ""),
    # prose around the JSON inside the block
    ('[ACTION]Here is the call: {"name": "record_water", "amount": "一杯"} hope this helps[/ACTION]', [WATER], ""),
    ('[ACTION]调用：{"name": "record_water", "amount": "一杯"}。[/ACTION]', [WATER], ""),
    ('[ACTION]\nSure!\n{"name": "record_water", "amount": "一杯"}\n[/ACTION]', [WATER], ""),
    # Python literals, comments, missing commas
    ('[ACTION]{"name": "create_memo", "content": "关窗", "pinned": True}[/ACTION]', [("create_memo", {"content": "关窗", "pinned": True})], ""),
    ('[ACTION]{"name": "create_task", "content": "提交周报", "due": None}[/ACTION]', [("create_task", {"content": "提交周报", "due": None})], ""),
    ('[ACTION]{"name": "record_water", // how much\n "amount": "一杯"}[/ACTION]', [WATER], ""),
    ('[ACTION]{"name": "record_water" "amount": "一杯"}[/ACTION]', [WATER], ""),
    # the action named outside the object
    ('[ACTION]record_water {"amount": "一杯"}[/ACTION]', [WATER], ""),
    ('[ACTION]record_water: {"amount": "一杯"}[/ACTION]', [WATER], ""),
    ('[ACTION] create_task({"content": "提交周报", "due": "明天"}) [/ACTION]', [TASK], ""),
    ('[ACTION]record_water(amount="一杯")[/ACTION]', [WATER], ""),
    ("[ACTION]record_transaction(amount=35, note='午饭')[/ACTION]", [("record_transaction", {"amount": 35, "note": "午饭"})], ""),
    # nested argument forms
    ('[ACTION]{"name": "record_water", "arguments": {"amount": "一杯"}}[/ACTION]', [WATER], ""),
    ('[ACTION]{"name": "record_water", "parameters": {"amount": "一杯"}}[/ACTION]', [WATER], ""),
    ('[ACTION]{"name": "record_water", "arguments": "{\\"amount\\": \\"一杯\\"}"}[/ACTION]', [WATER], ""),
    ('[ACTION]{"name": "add_person", "arguments": {"name": "王老师"}}[/ACTION]', [("add_person", {"name": "王老师"})], ""),
    # several blocks, one unclosed, text between
    ('先记水。[ACTION]{"name": "record_water", "amount": "一杯"}[ACTION]{"name": "create_task", "content": "提交周报", "due": "明天"}[/ACTION]好了。',
     [WATER, TASK], "先记水。好了。"),
    ('OK.\n[ACTION]\n{"name": "record_water", "amount": "一杯"}\n[/ACTION]\n[ACTION]\n{"name": "create_task", "content": "提交周报", "due": "明天"}\n[/ACTION]',
     [WATER, TASK], "OK."),
    # whitespace and newlines inside strings
    ('[ACTION]{\n  "name": "create_note",\n  "content": "第一行\n第二行"\n}[/ACTION]', [("create_note", {"content": "第一行\n第二行"})], ""),
    ('[ACTION]   {"name":"record_water","amount":"一杯"}   [/ACTION]', [WATER], ""),
    # English replies
    ('Sure, noted! [ACTION]{name: "create_task", content: "call mom", due: "tomorrow 5pm",}[/ACTION]',
     [("create_task", {"content": "call mom", "due": "tomorrow 5pm"})], "Sure, noted!"),
    ("Done. [ACTION]{'name': 'add_shopping_item', 'item': 'milk'}", [("add_shopping_item", {"item": "milk"})], "Done."),
]

# Replies whose block cannot be turned into a call: (reply, visible text).
HOPELESS: list[tuple[str, str]] = [
    ("你好！[ACTION]完全不是 JSON[/ACTION]我在。", "你好！我在。"),
    ("Hi [ACTION][/ACTION] there", "Hi  there"),
    ('Hmm [ACTION]["record_water"][/ACTION]', "Hmm"),
    ('[ACTION]{"tool": "record_water"}[/ACTION]ok', "ok"),
    ('[ACTION]{"name": 42}[/ACTION]ok', "ok"),
    ("[ACTION]just some words about water[/ACTION]ok", "ok"),
]


@pytest.mark.parametrize(("reply", "expected", "text"), CASES)
def test_malformed_output_is_repaired(reply: str, expected: list[tuple[str, dict]], text: str) -> None:
    parsed = extract_actions(reply)
    assert parsed.errors == (), parsed.errors
    assert [(c.name, json.loads(c.arguments)) for c in parsed.calls] == expected
    assert parsed.text == text
    assert "[ACTION]" not in parsed.text and "[/ACTION]" not in parsed.text


@pytest.mark.parametrize(("reply", "text"), HOPELESS)
def test_unrepairable_block_is_skipped_and_text_kept(reply: str, text: str) -> None:
    parsed = extract_actions(reply)
    assert parsed.calls == ()
    assert len(parsed.errors) == 1 and "[ACTION]" in parsed.errors[0]
    assert parsed.text == text


def test_there_are_at_least_forty_malformed_cases() -> None:
    assert len(CASES) + len(HOPELESS) >= 40


def test_loads_lenient_layers() -> None:
    assert loads_lenient('{"a": 1}') == {"a": 1}
    assert loads_lenient("｛“a”：1，｝") == {"a": 1}
    assert loads_lenient("{a: 'x', b: True}") == {"a": "x", "b": True}
    with pytest.raises(RepairError):
        loads_lenient("no json here")
    with pytest.raises(RepairError):
        loads_lenient("   ")


def test_cjk_repair_only_touches_syntax() -> None:
    assert cjk_repair("｛“k”：“你好，世界：１”｝") == '{"k":"你好，世界：１"}'
    assert json.loads(cjk_repair('{"k": "a", "l": [1, 2,')) == {"k": "a", "l": [1, 2]}


def test_split_named_call_forms() -> None:
    assert split_named_call('record_water {"amount": 1}') == ("record_water", '{"amount": 1}')
    name, body = split_named_call('record_water(amount="一杯", cups=2)')
    assert name == "record_water" and json.loads(body) == {"amount": "一杯", "cups": 2}
    assert split_named_call('{"name": "x"}') == (None, '{"name": "x"}')
