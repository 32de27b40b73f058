"""The Chinese phrase book (homeagent/intent/phrases_zh.py): well formed and true to the registry.

Every template parses, names only its action's schema arguments, gives enum values the
schema knows, and every action has enough of them; a read action's templates never ask
for a change, a write action's never ask a question; NONE never says what a template says.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from homeagent.actions import action_specs
from homeagent.chat import ToolDef
from homeagent.intent import phrases, phrases_zh
from homeagent.intent.slots import strip_polite
from homeagent.intent.training import (
    _SLOT_RE,
    NONE_LABEL,
    Template,
    all_templates,
    fold_punct,
    generate,
    templates_for,
)
from homeagent.text import has_han
from homeagent.tools.registry import Permission

SPECS = {s.name: s for s in action_specs(db=None, clock=None)}
DEFS: dict[str, ToolDef] = {name: s.to_def() for name, s in SPECS.items()}
COMMON = ("create_task", "list_tasks", "complete_task", "create_event", "list_events", "add_shopping_item",
          "list_shopping", "mark_shopping_bought", "create_note", "list_notes", "record_transaction", "list_transactions",
          "record_water", "list_water", "record_mood", "list_moods", "record_sleep", "record_body", "record_medicine",
          "record_health", "list_health", "create_habit", "check_in_habit", "list_habits", "record_diet", "list_diets")
# Words that ask for a change: a question about records never holds one.
WRITE_VERBS = ("添加", "加上", "加到", "加个", "删", "新建", "创建", "改成", "改到", "改为", "标记", "取消", "设为", "设成",
               "记一下", "记下", "帮我记", "记上", "存个", "保存", "开启", "切换", "切到", "关掉", "打开", "勾掉", "划掉")
# What makes an utterance a question (the intent layer sends questions to reading actions only).
QUESTION = re.compile(r"(?:吗|么|呢)[\s？?。!！]*$|[？?]|什么|哪|多少|几[个天次点本杯瓶号岁样位]|多久|谁|怎么样|如何|有没有|是不是|有啥|啥|了没")


def _is_read(name: str) -> bool:
    return SPECS[name].permission is Permission.READ


def _body(text: str) -> tuple[str, str]:
    body, _, implied = text.partition(" ## ")
    return body, implied


def _props(name: str) -> dict[str, Any]:
    return dict(DEFS[name].parameters).get("properties", {})


def _book() -> list[tuple[str, str]]:
    return [(name, text) for name, texts in phrases_zh.TEMPLATES.items() for text in texts]


def test_every_action_has_templates_in_the_book() -> None:
    assert set(phrases_zh.TEMPLATES) <= set(DEFS), set(phrases_zh.TEMPLATES) - set(DEFS)
    thin = {n: len(phrases_zh.TEMPLATES.get(n, ())) for n in DEFS if len(phrases_zh.TEMPLATES.get(n, ())) < 8}
    assert not thin, f"fewer than 8 Chinese templates: {thin}"
    common = {n: len(phrases_zh.TEMPLATES[n]) for n in COMMON if len(phrases_zh.TEMPLATES[n]) < 15}
    assert not common, f"common actions with fewer than 15 templates: {common}"


def test_read_actions_have_ten_question_forms() -> None:
    few = {}
    for name in DEFS:
        if _is_read(name):
            asked = [t for t in phrases_zh.TEMPLATES[name] if QUESTION.search(_body(t)[0])]
            if len(asked) < 10:
                few[name] = len(asked)
    assert not few, f"read actions with few question forms: {few}"


@pytest.mark.parametrize(("name", "text"), _book())
def test_template_parses_and_fits_the_schema(name: str, text: str) -> None:
    body, implied = _body(text)
    assert "##" not in body and has_han(body), text
    assert not re.sub(_SLOT_RE, "", body).count("{") and not re.sub(_SLOT_RE, "", body).count("}"), text
    props = _props(name)
    for m in _SLOT_RE.finditer(body):
        assert m.group("key") in props, f"{text!r}: {m.group('key')} is no argument of {name}"
        if m.group("pool"):
            assert m.group("pool") in phrases.POOLS and phrases.POOLS[m.group("pool")][0], text
        else:
            assert all(v.strip() for v in (m.group("values") or "").split("|")), text
    for part in filter(None, (p.strip() for p in implied.split(","))):
        key, _, value = (x.strip() for x in part.partition("="))
        assert key in props and value, f"{text!r}: {key} is no argument of {name}"
        if "enum" in props[key]:
            assert value in props[key]["enum"], f"{text!r}: {value} not in {props[key]['enum']}"
        if props[key].get("type") == "boolean":
            assert value in ("true", "false"), text


def test_templates_become_training_templates_with_filled_slots() -> None:
    rng = random.Random(3)
    for name, tool in DEFS.items():
        made = {t.text: t for t in templates_for(tool)}
        for text in phrases_zh.TEMPLATES[name]:
            template: Template = made[_body(text)[0]]
            filled, args = template.fill(rng)
            assert "{" not in filled and filled.strip(), text
            assert set(template.slots) <= set(args), text
            core = fold_punct(strip_polite(filled))  # what the slot filler matches
            assert template.pattern().match(core) or template.pattern(strict=False).match(core), (text, filled)


@pytest.mark.parametrize(("name", "text"), [(n, t) for n, t in _book() if _is_read(n)])
def test_read_templates_ask_for_no_change(name: str, text: str) -> None:
    literal = _SLOT_RE.sub("", _body(text)[0])
    assert not [v for v in WRITE_VERBS if v in literal], text


@pytest.mark.parametrize(("name", "text"), [(n, t) for n, t in _book() if not _is_read(n)])
def test_write_templates_are_no_questions(name: str, text: str) -> None:
    literal = _SLOT_RE.sub("", _body(text)[0])
    assert not QUESTION.search(literal), text


def test_none_lines_say_nothing_a_template_says() -> None:
    assert len(phrases_zh.NONE) >= 120 and len(set(phrases_zh.NONE)) == len(phrases_zh.NONE)
    literal = {_body(t)[0] for texts in phrases.TEMPLATES.values() for t in texts}
    registered = {e.split("→")[0].strip() for d in DEFS.values() for e in d.examples}
    clashes = [line for line in phrases_zh.NONE if line in literal or line in registered]
    assert not clashes, clashes
    # Nor what the training set makes of the templates (filled and wrapped).
    said = {e.text for e in generate(all_templates(DEFS.values())) if e.action != NONE_LABEL}
    assert not [line for line in phrases_zh.NONE if line in said]


def test_the_book_is_merged_into_the_shared_phrases() -> None:
    for name, texts in phrases_zh.TEMPLATES.items():
        assert set(texts) <= set(phrases.TEMPLATES[name]), name
    assert set(phrases_zh.NONE) <= set(phrases.NONE)
    for pool, values in phrases_zh.POOLS.items():
        assert set(values) <= set(phrases.POOLS[pool][0]), pool
