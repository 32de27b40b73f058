"""bench/label_agreement.py and intent_eval's grading against a second label: what two
labellers agree on, and a value right when it is what either labeller wrote."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def _item(id_: str, action: str, args: dict[str, Any], lang: str = "zh") -> dict[str, Any]:
    return {"id": id_, "lang": lang, "kind": "cmd", "text": "…", "action": action, "args": args}


def test_agreement_counts_the_same_action_and_the_same_arguments() -> None:
    agreement = _load("label_agreement").agreement
    rows = [
        (_item("a1", "create_task", {"content": "交电费", "due": "2026-03-05"}),
         {"id": "a1", "action": "create_task", "args": {"content": "交电费", "due": "明天"}}),  # the same day
        (_item("a2", "create_task", {"content": "盘点库存"}),
         {"id": "a2", "action": "create_task", "args": {"content": "盘点一次库存"}}),  # other words
        (_item("a3", "record_mood", {"mood": "烦"}), {"id": "a3", "action": "none", "args": {}}),
    ]
    got = agreement(rows)
    assert (got["n"], got["action"], got["ran"], got["args"]) == (3, 2, 2, 1)
    assert got["misses"][0][:4] == ("content", 2, 1, 0)


def test_a_value_is_right_when_either_label_has_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grading = _load("intent_eval")
    second = tmp_path / "relabel_blind99.jsonl"
    second.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [
        {"id": "b1", "action": "create_task", "args": {"content": "盘点一次库存"}},
        {"id": "b2", "action": "create_task", "args": {"content": "交房租"}},
        {"id": "b3", "action": "delete_task", "args": {"content": "洗车"}},  # another action: no second label
    ]), encoding="utf-8")
    results = [
        {"item": _item("b1", "create_task", {"content": "盘点库存"}), "predicted": "create_task",
         "calls": [("create_task", {"content": "盘点一次库存"})]},  # the second labeller's words
        {"item": _item("b2", "create_task", {"content": "交房租"}), "predicted": "create_task",
         "calls": [("create_task", {"content": "交水费"})]},  # neither
        {"item": _item("b3", "complete_task", {"content": "洗车"}), "predicted": "complete_task",
         "calls": [("complete_task", {"content": "洗个车"})]},
        {"item": _item("b4", "create_task", {"content": "买菜"}), "predicted": "create_task",
         "calls": [("create_task", {"content": "买菜"})]},  # not relabelled: not counted
    ]
    grading.either_label(results, second)
    out = capsys.readouterr().out
    assert "relabelled lines (3)" in out
    assert "0.0 % (0/3) against the set's labels" in out and "33.3 % (1/3) against either label" in out


def test_no_held_out_set_s_disagreements_are_listed() -> None:
    held = _load("label_agreement").held_out
    phrasings = _load("intent_phrasings")
    numbers = [int(p.stem.removeprefix("intent_blind")) for p in phrasings.HELD_OUT if p.stem.startswith("intent_blind")]
    assert numbers and all(held(n) for n in numbers)
    assert not held(16)
