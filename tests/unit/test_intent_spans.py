"""The learned second look at where a value's words begin and end (homeagent/intent/spans.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import plain

from homeagent.intent.spans import (
    FORMAT,
    MODEL,
    Spans,
    blocked_units,
    candidates,
    load,
    pieces,
    table,
    units,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("action", "text", "key", "value"), [
    # the rules kept a word of the frame at an edge; the model's span is the name alone
    ("complete_task", "您把取体检报告那件事儿给我标成办完了吧，报告我已经拿回来了，一切倍儿正常。", "content", "取体检报告"),
    ("delete_inventory_item", "We chucked the broken fan, take it off the list of stuff we own", "item", "broken fan"),
    ("mark_shopping_bought", "mark the milk as bougth", "item", "milk"),
    ("record_mood", "im cooked fr, put me down as stressed", "mood", "stressed"),
])
def test_a_value_loses_the_frame_words_at_its_edges(filler, action, text, key, value) -> None:
    assert filler.spans is not None
    assert plain(filler.fill(action, text)[key]) == value  # (an article is no difference, as graded)


def test_the_shipped_model_is_loaded_and_knows_the_names_keys() -> None:
    model = load()
    assert model is not None and model.window > 0 and model.margin > 0
    assert {"content", "title", "item", "note", "person", "query"} <= model.keys
    assert model.weights.shape == (1 << 20,) and np.count_nonzero(model.weights) > 10_000
    for key in ("phone", "email", "code", "address", "repeat"):  # a form of their own: the rules' whole
        assert not model.looks_at(key, {"type": "string"})


def test_a_value_from_the_schema_a_date_or_a_number_is_left_as_read() -> None:
    model = load()
    assert model is not None
    props = {"priority": {"type": "string", "enum": ["低", "高"]}, "due": {"type": "string", "format": "date-time"},
             "amount": {"type": "number"}, "category": {"type": "string", "enum": ["家务", "工作"]}}
    args = {"priority": "高", "due": "明天下午3点", "amount": 35, "category": "家务"}
    assert model.refine("明天下午3点交电费35块，高优先级，家务", args, props) == args


def test_a_value_joined_from_pieces_becomes_its_best_piece_and_others_stay() -> None:
    model = load()
    assert model is not None
    text = "以后每周二晚上提醒我给可乐滴驱虫药，分类放到宠物里"
    assert pieces(text, "以后 给可乐滴驱虫药") == ["以后", "给可乐滴驱虫药"]
    assert pieces(text, "以后 猫粮") == []  # a part not in the line: not made of its pieces
    assert model.choose("content", text, "以后 给可乐滴驱虫药") == "给可乐滴驱虫药"
    assert model.choose("title", "明天的组会推迟到下午三点开始", "组会 开始") == "组会"
    assert model.choose("content", text, "以后 猫粮") == "以后 猫粮"  # not the line's: as read
    assert model.choose("content", text, "x") == "x"  # too short to place
    assert model.choose("no_such_key", text, "给可乐滴驱虫药") == "给可乐滴驱虫药"  # a key never trained


def test_no_candidate_begins_or_ends_with_a_mark_or_takes_in_another_value() -> None:
    text = "pay ayi friday, then call Sam"
    us = units(text)
    assert [u[2] for u in us] == ["pay", "ayi", "friday", ",", "then", "call", "Sam"]
    blocked = blocked_units(text, us, ["friday", 35, None])
    assert blocked == frozenset({2})
    spans = candidates(us, 0, 2, 8, blocked)
    assert (0, 2) in spans and (0, 1) in spans
    assert all(us[a][2] != "," and us[b - 1][2] != "," for a, b in spans)
    assert not any(a <= 2 < b for a, b in spans)  # the due day is never taken into the name
    # words the rules' own span already had are not held against it
    assert (0, 3) in candidates(us, 0, 3, 8, blocked)


def test_a_number_said_in_words_and_its_measure_word_are_another_values() -> None:
    text = "心情：巴适得板 五分"
    us = units(text)
    assert blocked_units(text, us, [5]) == frozenset({7, 8})  # 五分, a score of 5 said in words
    assert blocked_units(text, us, [6]) == frozenset()
    spans = candidates(us, 3, 7, 8, blocked_units(text, us, [5]))
    assert spans and not any(b > 7 for a, b in spans)
    # "分" alone is never the mood of "还行 3分": it is the score's
    text = "今天还行 3分"
    us = units(text)
    assert blocked_units(text, us, [3]) == frozenset({4, 5})
    assert (5, 6) not in candidates(us, 2, 4, 8, blocked_units(text, us, [3]))
    assert blocked_units("buy 3 apples", units("buy 3 apples"), [3]) == frozenset({1})  # a word is no measure word


def test_units_are_characters_words_and_marks() -> None:
    assert [u[2] for u in units("买2斤Fuji苹果，don't forget")] == ["买", "2", "斤", "Fuji", "苹", "果", "，", "don't", "forget"]


def test_without_a_model_file_the_rules_spans_stand(tmp_path, filler) -> None:
    assert load(tmp_path / "none.npz") is None
    other = tmp_path / "other.npz"  # a file of another format (features changed since) is not read
    np.savez_compressed(other, index=np.array([1], dtype=np.int32), weight=np.array([1.0], dtype=np.float16),
                        keys=np.array(["content"]), window=8, margin=2.0, bias=0.0, format=FORMAT + 1)
    assert load(other) is None
    kept = filler.spans
    try:
        filler.spans = None
        assert filler.fill("create_task", "提醒我明天下午3点交电费") == {"content": "交电费", "due": "明天下午3点"}
    finally:
        filler.spans = kept


def test_a_model_scores_by_its_weights() -> None:
    weights = table(np.array([], dtype=np.int64), np.array([], dtype=np.float32))
    flat = Spans(weights, 0.0, frozenset({"content"}), 4, 0.5)
    assert flat.choose("content", "pay the bill now", "the bill now") == "the bill now"  # no reason to move


def test_the_trainer_refuses_the_held_out_sets() -> None:
    for spec in ("1-13", "14", "18", "19", "15-18"):
        done = subprocess.run([sys.executable, str(ROOT / "bench/make_spans.py"), "--train", spec],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "held out" in done.stderr


def test_the_model_file_ships_with_the_package() -> None:
    assert MODEL.exists()
    assert "intent/spans.npz" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
