"""The shipped phrasings: real wordings of the registered actions, trained on beside the
templates, and never a line of the sets the layer is measured on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homeagent.cli.tools import catalog
from homeagent.intent.classifier import _held_out
from homeagent.intent.training import (
    HELP_LABEL,
    NONE_LABEL,
    WHO_LABEL,
    Example,
    generate,
    phrasings,
)

ROOT = Path(__file__).resolve().parents[2]
HELD_OUT = ("intent_eval.jsonl", *(f"intent_blind{n}.jsonl" for n in (14, 18)))  # never trained on


def _same(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(" .!?。！？~～")


def _texts(name: str) -> set[str]:
    lines = (ROOT / "bench/data" / name).read_text(encoding="utf-8").splitlines()
    return {_same(json.loads(line)["text"]) for line in lines if line.strip()}


def test_every_phrasing_names_a_registered_action_or_an_answer_of_the_layer():
    names = {spec.name for spec in catalog()} | {NONE_LABEL, WHO_LABEL, HELP_LABEL}
    said = phrasings()
    assert len(said) > 3000
    assert {e.action for e in said} <= names
    # Chinese and English both, and most actions are said in real words.
    assert sum(any("\u4e00" <= c <= "\u9fff" for c in e.text) for e in said) > len(said) / 3
    assert len({e.action for e in said}) > 70


@pytest.mark.parametrize("name", HELD_OUT)
def test_no_phrasing_is_a_line_of_a_held_out_set(name):
    # compared as the builder compares: "What can you do?" and "what can you do" are one line
    assert not {_same(e.text) for e in phrasings()} & _texts(name)


def test_one_phrasing_in_four_is_held_out_for_the_thresholds():
    said = [e for e in phrasings() if e.action == "add_shopping_item"]
    held = [e for e in said if _held_out(e)]
    assert 0.2 < len(held) / len(said) < 0.3


def test_a_phrasing_is_trained_as_said_and_once_wrapped_and_an_unknown_action_is_dropped():
    said = [Example("牛奶又见底了", "add_shopping_item", {}, "said:add_shopping_item:0"),
            Example("brew me a coffee", "make_coffee", {}, "said:make_coffee:0")]
    out = generate({"add_shopping_item": []}, said=said)
    mine = [e for e in out if e.group == "said:add_shopping_item:0"]
    assert [e.text for e in mine][0] == "牛奶又见底了" and len(mine) == 2 and "牛奶又见底了" in mine[1].text
    assert not any(e.action == "make_coffee" for e in out)


def test_a_bad_phrasings_line_is_named(tmp_path):
    path = tmp_path / "phrasings.jsonl"
    path.write_text('{"text": "加牛奶", "action": "add_shopping_item"}\n{"text": "oops"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="phrasings.jsonl line 2"):
        phrasings(path)
