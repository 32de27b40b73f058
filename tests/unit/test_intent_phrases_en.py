"""The English phrase book of the intent layer: every template is well formed against the
real registry's schemas, reads never ask to change anything, small talk is no template."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.actions import action_specs
from homeagent.intent import phrases, phrases_en
from homeagent.intent.slots import generic, match_template
from homeagent.intent.training import _SLOT_RE, _fixed, all_templates
from homeagent.text import has_han
from homeagent.tools.registry import Permission

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
SPECS = {s.name: s for s in action_specs(db=None, clock=None)}
COMMON = ("create_task", "complete_task", "list_tasks", "create_event", "list_events", "add_shopping_item",
          "list_shopping", "create_note", "list_notes", "record_transaction", "list_transactions", "record_water",
          "list_water", "record_mood", "record_sleep", "record_medicine", "list_health", "create_habit",
          "check_in_habit", "list_habits", "list_moods", "record_diet")
# Words that ask to change records: none may appear in a read action's template.
WRITE_WORDS = re.compile(
    r"\b(?:add|create|record|log|delete|remove|erase|cancel|mark|set|change|update|edit|rename|save|"
    r"track|check in|check off|tick|reschedule|postpone|write down|jot|note down|switch|turn on|turn off)\b", re.I)


def props(action: str) -> dict:
    return dict(SPECS[action].parameters)["properties"]


def entries() -> list[tuple[str, str]]:
    return [(action, text) for action, texts in phrases_en.TEMPLATES.items() for text in texts]


def test_every_action_of_the_registry_has_its_english_templates() -> None:
    assert set(phrases_en.TEMPLATES) <= set(SPECS), set(phrases_en.TEMPLATES) - set(SPECS)
    short = {a: len(phrases_en.TEMPLATES.get(a, ())) for a in SPECS if len(phrases_en.TEMPLATES.get(a, ())) < 8}
    assert not short, short
    few = {a: len(phrases_en.TEMPLATES[a]) for a in COMMON if len(phrases_en.TEMPLATES[a]) < 15}
    assert not few, few


def test_every_template_is_english_and_well_formed() -> None:
    for action, text in entries():
        body, _, implied = text.partition(" ## ")
        assert not has_han(text), text
        assert "##" not in body and body.count("{") == body.count("}"), text
        # every brace is a slot the generator understands
        assert not re.sub(_SLOT_RE, "", body).count("{"), text
        schema = props(action)
        for m in _SLOT_RE.finditer(body):
            key = m.group("key")
            assert key in schema, f"{action}: {key!r} is no argument of the action ({text!r})"
            if m.group("pool"):
                assert m.group("pool") in phrases.POOLS, f"{text!r}: no pool {m.group('pool')!r}"
                assert phrases.POOLS[m.group("pool")][1], f"{text!r}: pool {m.group('pool')!r} has no English values"
            else:
                values = [v for v in (m.group("values") or "").split("|") if v.strip()]
                assert values, text
                if "enum" in schema[key]:
                    assert set(values) <= set(schema[key]["enum"]), text
        for key, value in _fixed(implied).items():
            assert key in schema, f"{action}: implied {key!r} is no argument ({text!r})"
            if "enum" in schema[key]:
                assert value in schema[key]["enum"], f"{text!r}: {value!r} not in {schema[key]['enum']}"
            if schema[key].get("type") == "boolean":
                assert isinstance(value, bool), text
            if schema[key].get("type") == "integer":
                assert isinstance(value, int), text


def test_no_template_is_there_twice() -> None:
    for action, texts in phrases_en.TEMPLATES.items():
        assert len(texts) == len(set(texts)), (action, [t for t in texts if texts.count(t) > 1])


def test_read_templates_ask_and_never_change_anything() -> None:
    reads = [n for n, s in SPECS.items() if s.permission is Permission.READ]
    assert len(reads) >= 20
    for action in reads:
        questions = 0
        for text in phrases_en.TEMPLATES[action]:
            body = text.partition(" ## ")[0]
            words = _SLOT_RE.sub(" ", body)
            assert not WRITE_WORDS.search(words), f"{action}: {text!r} asks to change something"
            if re.match(r"(?:what|which|who|whose|where|when|how|is|are|am|was|were|do|does|did|have|has|any)\b",
                        body, re.I) or body.endswith("?"):
                questions += 1
        assert questions >= 10, f"{action}: only {questions} question forms"


def test_a_read_that_names_its_period_says_it() -> None:
    period = re.compile(r"\b(?:today|tonight|yesterday|tomorrow|last night|this morning|(?:this|last|next) (?:week|month|year))\b",
                        re.I)
    for action, text in entries():
        if "from" not in props(action) or SPECS[action].permission is not Permission.READ:
            continue
        body, _, implied = text.partition(" ## ")
        keys = {m.group("key") for m in _SLOT_RE.finditer(body)} | set(_fixed(implied))
        if period.search(_SLOT_RE.sub(" ", body)):
            assert "from" in keys, f"{action}: {text!r} names a period but gives no from"


def test_write_templates_are_not_questions_about_records() -> None:
    asks = re.compile(r"^(?:what|which|who|whose|where|when|how|is|are|am|was|were|do|does|did|have|has|any)\b|\?\s*$",
                      re.I)
    for action, text in entries():
        if SPECS[action].permission is not Permission.READ:
            assert not asks.search(text.partition(" ## ")[0]), f"{action}: {text!r} reads like a question"


def test_small_talk_is_plenty_and_no_template_word_for_word() -> None:
    assert len(phrases_en.NONE) >= 120
    assert len(set(phrases_en.NONE)) == len(phrases_en.NONE)
    literal = {t.partition(" ## ")[0].strip().casefold() for texts in phrases.TEMPLATES.values() for t in texts
               if not _SLOT_RE.search(t)}
    for spec in SPECS.values():
        literal |= {str(e[0]).strip().casefold() for e in spec.examples}
    clash = [line for line in phrases_en.NONE if line.strip().casefold() in literal]
    assert not clash, clash
    assert all(not has_han(line) for line in phrases_en.NONE)


TEMPLATES = all_templates([s.to_def() for s in SPECS.values()])


def fill(action: str, text: str) -> dict:
    required = dict(SPECS[action].parameters).get("required", [])
    return match_template(text, TEMPLATES[action], props(action), NOW) or generic(
        text, action, props(action), required, TEMPLATES[action], NOW, read=False)


@pytest.mark.parametrize(("action", "text", "expected"), [
    ("create_task", "urgent: call the plumber", {"content": "call the plumber", "priority": "high"}),
    ("complete_task", "paid the water bill, tick it off", {"content": "water bill"}),
    ("list_tasks", "what did I get done last week", {"status": "done", "from": "last week"}),
    ("list_notes", "have I written in my diary today", {"kind": "diary", "from": "today"}),
    ("create_event", "pencil in haircut for next Friday", {"title": "haircut", "start": "next Friday"}),
    ("check_in_habit", "flossing done today", {"habit": "flossing"}),
    ("update_habit", "hold off on yoga for a while", {"habit": "yoga", "status": "paused"}),
    ("list_health", "how did I sleep last night", {"kind": "sleep", "from": "last night"}),
    ("list_health", "when did I last take ibuprofen", {"kind": "medicine", "query": "ibuprofen"}),
    ("list_inventory", "who has my drill", {"query": "drill"}),
    ("list_tasks", "did I finish the report", {"status": "done", "query": "report"}),
    ("record_item_lend", "Tom has my ladder", {"person": "Tom", "item": "ladder", "direction": "lent"}),
    ("record_money_lend", "Jake owes me 20 bucks", {"person": "Jake", "direction": "lent"}),
    ("add_shopping_item", "put bananas on the list", {"item": "bananas"}),
    ("add_shopping_item", "buy two bags of rice", {"item": "rice", "quantity": "2 bags"}),
    ("create_memo", "memo for everyone: the dog has been fed", {"content": "dog has been fed"}),
    ("create_note", "note to self, the boiler pin is 0000", {"content": "boiler pin is 0000"}),
    ("add_book", "started reading Sapiens", {"title": "Sapiens", "status": "reading"}),
    ("create_countdown", "countdown to Christmas on December 25", {"title": "Christmas", "date": "December 25"}),
])
def test_the_book_places_the_object_phrase(action: str, text: str, expected: dict) -> None:
    got = fill(action, text)
    assert {k: got.get(k) for k in expected} == expected, got
