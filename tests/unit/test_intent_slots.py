"""Slot filling and calibration pieces of the intent layer, on the real registry's schemas."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.actions import action_specs
from homeagent.intent.classifier import _plateau
from homeagent.intent.slots import generic, match_template, split_items, strip_polite
from homeagent.intent.training import Template, all_templates, fold_punct, generate, parse_example

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
SPECS = {s.name: s for s in action_specs(db=None, clock=None)}
TEMPLATES = all_templates([s.to_def() for s in SPECS.values()])


def fill(action: str, text: str) -> dict:
    props = dict(SPECS[action].parameters)["properties"]
    required = dict(SPECS[action].parameters).get("required", [])
    return match_template(text, TEMPLATES[action], props, NOW) or generic(
        text, action, props, required, TEMPLATES[action], NOW, read=False)


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("create_task", "提醒我明天下午3点交电费", {"content": "交电费", "due": "明天下午3点"}),
    ("create_task", "帮我记一个任务：明天下午3点交电费", {"content": "交电费", "due": "明天下午3点"}),
    ("create_task", "Remind me to pay the electricity bill tomorrow at 3pm",
     {"content": "pay the electricity bill", "due": "tomorrow at 3pm"}),
    ("record_transaction", "工资到账1.2万", {"amount": 12000, "type": "income"}),
    ("record_water", "I drank a glass of water", {"amount": "1 glass"}),
    ("record_money_lend", "借给小王500块", {"person": "小王", "amount": "500", "direction": "lent"}),
    ("switch_mode", "切换到sleep模式", {"mode": "sleep"}),
    ("record_movie", "刚看完《满江红》，打8分", {"title": "满江红"}),
])
def test_the_object_phrase_and_the_typed_values(action: str, text: str, expected: dict) -> None:
    got = fill(action, text)
    assert {k: got.get(k) for k in expected} == expected, got


def test_politeness_and_items() -> None:
    assert strip_polite("请帮我把牛奶加到购物清单吧，谢谢") == "把牛奶加到购物清单"
    assert strip_polite("could you add milk please") == "add milk"
    assert split_items("milk and eggs") == ["milk", "eggs"]
    assert split_items("鸡蛋和面包、苹果") == ["鸡蛋", "面包", "苹果"]


def test_every_registered_example_becomes_a_template_of_its_action() -> None:
    for name, spec in SPECS.items():
        registered = [parse_example(line) for line in spec.examples]
        assert registered and all(r is not None and r[1] == name for r in registered)
        assert len(TEMPLATES[name]) >= len(registered)
    examples = generate(TEMPLATES)
    per_action = {name: sum(e.action == name for e in examples) for name in SPECS}
    assert min(per_action.values()) >= 10, min(per_action.items(), key=lambda kv: kv[1])
    zh = sum(any("\u4e00" <= ch <= "\u9fff" for ch in e.text) for e in examples)
    assert 0.35 < zh / len(examples) < 0.65  # both languages


def test_the_threshold_is_where_answering_stops_paying() -> None:
    scored = [(0.99, True), (0.9, True), (0.8, True), (0.7, False), (0.6, True), (0.55, True), (0.5, False)]
    # gains 1 2 3 2 3 4 3 at cost 1: best 4 at 0.55, within one standard error (sqrt(6) = 2.4)
    # from 0.9 on; the cautious end of that plateau is the threshold
    assert _plateau(scored, cost=1.0)[1] == 0.9
    # gains 1 2 3 0 1 2 -1 at cost 3: best 3 at 0.8, within 2 sqrt(3) = 3.5 from the first
    assert _plateau(scored, cost=3.0)[1] == 0.99


def test_template_marks_match_either_width_and_values_keep_the_users_own() -> None:
    """Patterns match the utterance with its punctuation folded to ASCII (cheap to
    compile); what a slot captures is the user's text, full-width marks and all."""
    template = Template("create_task", "{content:chore}，急，赶紧记上", {"priority": "high"}, {"content": ("交电费",)})
    props = dict(SPECS["create_task"].parameters)["properties"]
    for text in ("交电费，急，赶紧记上", "交电费,急,赶紧记上", "交电费。急！赶紧记上"):
        assert match_template(text, [template], props, NOW) == {"priority": "high", "content": "交电费"}, text
    got = match_template("交物业费（3月：车位）,急,赶紧记上", [template], props, NOW)
    assert got is not None and got["content"] == "交物业费（3月：车位）"
    assert fold_punct("急，记上：") == "急,记上:" and len(fold_punct("，：。！？；、")) == 7
