"""Where a name's words begin and end: a learned second look at the rules' spans.

The slot rules read a record's name, a note or a place out of an utterance well on the
wordings they were written from, and less well on new ones: on households whose lines the
rules never saw, the value is often right but for a word too many or too few at an edge
("以后 给可乐滴驱虫药", "lowkey finish my chem lab report", "螺蛳粉五包"). This module
scores, for one value the rules found, every span of the utterance whose start and end lie
within `window` units of the rules' own, and keeps the best one when it beats the rules'
span by more than `margin`.

A unit is one Chinese character, one word or number, or one mark. The score is linear in
hashed features of the span's edges — the units outside and inside each end, their kinds,
the slot's key with them — and of its shape (how far each end moved, its length, the marks
inside it). Start features depend on the start alone and end features on the end alone, so
a value costs a few hundred hashes, well under a millisecond.

The weights are trained offline by `bench/make_spans.py` from the labelled development sets
(the rules' spans of their lines, and the same lines with the rules' span moved at random, so
that the model learns edges rather than to trust the rules) and shipped as `spans.npz`. The
held-out sets are never trained on. Without the file, values are the rules' alone.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from homeagent.log import get_logger
from homeagent.numbers import parse_number

log = get_logger(__name__)

MODEL = Path(__file__).with_name("spans.npz")
FORMAT = 1  # of the features a model file was trained on; a file of another format is not read
BITS = 20
_MASK = (1 << BITS) - 1

UNIT_RE = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9'’\-.&+]*[A-Za-z0-9]|[A-Za-z0-9]|[\u3400-\u9fff]|[^\sA-Za-z0-9\u3400-\u9fff]")
_DIGIT_RE = re.compile(r"\d")
_NUMERALS_RE = re.compile(r"[零〇一二两三四五六七八九十百千万]+")


def units(text: str) -> list[tuple[int, int, str]]:
    """The utterance's units with their character offsets."""
    return [(m.start(), m.end(), m.group(0)) for m in UNIT_RE.finditer(text)]


def _kind(unit: str | None) -> str:
    if unit is None:
        return "B"  # the utterance's edge
    if "\u3400" <= unit[0] <= "\u9fff":
        return "c"
    if unit[0].isdigit():
        return "d"
    return "a" if unit[0].isalpha() else "p"


def _word(unit: str | None) -> str:
    return "<S>" if unit is None else _DIGIT_RE.sub("0", unit.casefold())


def locate(text: str, value: str, us: list[tuple[int, int, str]]) -> tuple[int, int] | None:
    """The units `value` covers in `text` (as said, or with another case), or None."""
    at = text.find(value)
    if at < 0:
        at = text.casefold().find(value.casefold())
    return None if at < 0 else units_of(us, at, at + len(value))


def units_of(us: list[tuple[int, int, str]], at: int, end: int) -> tuple[int, int] | None:
    """The units characters at..end of the text are, or None when either edge is inside a unit."""
    first = next((k for k, u in enumerate(us) if u[0] >= at), None)
    last = next((k for k in range(len(us) - 1, -1, -1) if us[k][1] <= end), None)
    if first is None or last is None or last < first or us[first][0] != at or us[last][1] != end:
        return None  # (a value that begins or ends inside a unit, "broken blender" of "blender's", is no span)
    return first, last + 1


def _at(us: list[tuple[int, int, str]], k: int) -> str | None:
    return us[k][2] if 0 <= k < len(us) else None


def _edge(key: str, us: list[tuple[int, int, str]], k: int, before: str, after: str) -> list[str]:
    """The features of an edge between units k-1 and k: the units before it (named `before`)
    and after it (named `after`), one and two of each, with the slot's key and their kinds."""
    b1, b2 = _word(_at(us, k - 1)), _word(_at(us, k - 2)) + _word(_at(us, k - 1))
    a1, a2 = _word(_at(us, k)), _word(_at(us, k)) + _word(_at(us, k + 1))
    plain = [f"{before}1={b1}", f"{before}2={b2}", f"{after}1={a1}", f"{after}2={a2}"]
    return plain + [f"k={key}|{p}" for p in plain] + [
        f"{before}1t={_kind(_at(us, k - 1))}", f"{after}1t={_kind(_at(us, k))}", f"{before}{after}={b1}|{a1}"]


def start_features(key: str, us: list[tuple[int, int, str]], a: int) -> list[str]:
    return _edge(key, us, a, "L", "F")  # left of the span, first of it


def end_features(key: str, us: list[tuple[int, int, str]], b: int) -> list[str]:
    return _edge(key, us, b, "E", "R")  # end of the span, right of it


def shape_features(key: str, ds: int, de: int, length: int, marks: int) -> list[str]:
    return [f"ds={ds}", f"de={de}", f"dsde={ds},{de}", f"k={key}|ds={ds}", f"k={key}|de={de}",
            f"k={key}|dsde={ds},{de}", f"len={min(length, 12)}", f"punct={min(marks, 3)}"]


def candidates(us: list[tuple[int, int, str]], ra: int, rb: int, window: int,
               blocked: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """Every (start, end) within `window` units of the rules' (ra, rb) that neither begins nor
    ends with a mark and takes in no unit of `blocked` (another value's words) the rules' span
    did not have."""
    n = len(us)
    blocked = blocked - set(range(ra, rb))
    out = []
    for a in range(max(0, ra - window), min(n, ra + window + 1)):
        if _kind(us[a][2]) == "p" or a in blocked:
            continue
        for b in range(max(a + 1, rb - window), min(n, rb + window) + 1):
            if any(k in blocked for k in range(a, b)):
                break
            if _kind(us[b - 1][2]) != "p":
                out.append((a, b))
    return out


def blocked_units(text: str, us: list[tuple[int, int, str]], others: Iterable[Any]) -> frozenset[int]:
    """The units of the other values said in `text` (a due day, a price, a place)."""
    out: set[int] = set()
    for other in others:
        if isinstance(other, bool) or not isinstance(other, str | int | float):
            continue
        said = str(other) if not isinstance(other, float) else f"{other:g}"
        found = locate(text, said, us) if said else None
        if found is None and isinstance(other, int | float):  # a number said in words ("五分" for a score of 5)
            found = next((span for m in _NUMERALS_RE.finditer(text) if parse_number(m.group(0)) == other
                          if (span := units_of(us, m.start(), m.end())) is not None), None)
        if found is not None:
            a, b = found
            if isinstance(other, int | float) and b < len(us) and _kind(us[b][2]) == "c":
                b += 1  # and its measure word: the 分 of "3分", the 块 of "38块"
            out.update(range(a, b))
    return frozenset(out)



def span_features(key: str, us: list[tuple[int, int, str]], a: int, b: int, ra: int, rb: int,
                  window: int) -> list[str]:
    """All of one span's features (what training reads; `Spans.choose` adds them in parts)."""
    marks = sum(_kind(us[k][2]) == "p" for k in range(a, b))
    return (start_features(key, us, a) + end_features(key, us, b)
            + shape_features(key, _clip(a - ra, window), _clip(b - rb, window), b - a, marks))


def pieces(text: str, value: str) -> list[str]:
    """The parts of `value` said apart in `text`, in order ("以后 给可乐滴驱虫药" of
    "以后每周二晚上提醒我给可乐滴驱虫药": 以后, 给可乐滴驱虫药); [] when it is not so made."""
    out: list[str] = []
    at, low = 0, text.casefold()
    current = ""
    for word in value.split():
        joined = f"{current} {word}" if current else word
        if current and low.find(joined.casefold(), at) >= 0:
            current = joined
            continue
        if current:
            at = low.find(current.casefold(), at) + len(current)
            out.append(current)
        if low.find(word.casefold(), at) < 0:
            return []
        current = word
    if current:
        out.append(current)
    return [p.strip(" ，,") for p in out if p.strip(" ，,")]


def _clip(value: int, window: int) -> int:
    return max(-window, min(window, value))


def hashed(features: Iterable[str]) -> list[int]:
    return [zlib.crc32(f.encode()) & _MASK for f in features]


@dataclass(frozen=True)
class Spans:
    weights: Any  # numpy float32 array of 2**BITS: a feature's weight at its hash
    bias: float
    keys: frozenset[str]
    window: int
    margin: float

    def _sum(self, features: list[str]) -> float:
        return float(self.weights[hashed(features)].sum())

    def choose(self, key: str, text: str, value: str, others: Iterable[Any] = ()) -> str:
        """`value`, or the span of `text` near it that scores better by more than the margin
        (and takes in none of the `others`, the other values the rules read). A value the
        rules joined from pieces of the line ("以后 给可乐滴驱虫药") may become its one piece
        that scores best by more than the margin over every other piece."""
        if key not in self.keys or len(value) < 2:
            return value
        us = units(text)
        blocked = blocked_units(text, us, others)
        found = locate(text, value, us)
        if found is None:
            return self._piece(key, text, value, us, blocked)
        where, best, rules = self._best(key, us, *found, blocked)
        if where == found or best - rules <= self.margin:
            return value
        return self._span(text, us, found, where) or value

    def _piece(self, key: str, text: str, value: str, us: list[tuple[int, int, str]], blocked: frozenset[int]) -> str:
        scored = []
        for piece in pieces(text, value):
            found = locate(text, piece, us)
            if found is None:
                return value
            where, best, _ = self._best(key, us, *found, blocked)
            scored.append((best, found, where))
        if len(scored) < 2:
            return value
        scored.sort(key=lambda s: -s[0])
        (best, found, where), runner = scored[0], scored[1][0]
        if best - runner <= self.margin:
            return value
        return self._span(text, us, found, where) or value

    @staticmethod
    def _span(text: str, us: list[tuple[int, int, str]], found: tuple[int, int], where: tuple[int, int]) -> str | None:
        (ra, rb), (a, b) = found, where
        if any(k > 0 and us[k][2][0].isupper() and us[k][2].isascii() for k in range(ra, rb) if not a <= k < b):
            return None  # a name the rules kept ("remind Dad to …") is never cut off
        chosen = text[us[a][0]:us[b - 1][1]]
        return chosen if chosen.strip(" ，,。.") else None

    def _best(self, key: str, us: list[tuple[int, int, str]], ra: int, rb: int,
              blocked: frozenset[int]) -> tuple[tuple[int, int], float, float]:
        """The best span near (ra, rb), its score and the score of (ra, rb) itself."""
        n, win = len(us), self.window
        starts = {a: self._sum(start_features(key, us, a)) for a in range(max(0, ra - win), min(n, ra + win + 1))}
        ends = {b: self._sum(end_features(key, us, b)) for b in range(max(1, rb - win), min(n, rb + win) + 1)}
        marks = [0]
        for u in us:
            marks.append(marks[-1] + (_kind(u[2]) == "p"))

        def score(a: int, b: int) -> float:
            shape = shape_features(key, _clip(a - ra, win), _clip(b - rb, win), b - a, marks[b] - marks[a])
            return starts[a] + ends[b] + self._sum(shape)

        rules = score(ra, rb)
        best, where = rules, (ra, rb)
        for a, b in candidates(us, ra, rb, win, blocked):
            if (s := score(a, b)) > best:
                best, where = s, (a, b)
        return where, best, rules

    def refine(self, text: str, args: dict[str, Any], props: Mapping[str, Any]) -> dict[str, Any]:
        """`args` with each free-text value of a trained key given its best span of `text` (a
        value from the schema's list, a date or a number stays as the rules read it)."""
        return {key: self.choose(key, text, value, [v for k, v in args.items() if k != key])
                if isinstance(value, str) and self.looks_at(key, props.get(key)) else value
                for key, value in args.items()}

    def looks_at(self, key: str, prop: Any) -> bool:
        """Whether a value of `key` (its schema `prop`) is free text the model was trained on."""
        return (key in self.keys and isinstance(prop, Mapping) and prop.get("type") == "string"
                and "enum" not in prop and "format" not in prop)


@lru_cache(maxsize=2)
def load(path: Path = MODEL) -> Spans | None:
    """The shipped model, or None when there is none (the rules' spans stand)."""
    if not path.exists():
        return None
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        if "format" not in data or int(data["format"]) != FORMAT:
            log.warning("intent.spans.stale", path=str(path), want=FORMAT)
            return None
        weights = table(data["index"], data["weight"])
        keys = [str(k) for k in data["keys"]]
        window, margin, bias = int(data["window"]), float(data["margin"]), float(data["bias"])
    return Spans(weights, bias, frozenset(keys), window, margin)


def table(index: Any, weight: Any) -> Any:
    """The dense weight table of the (hash, weight) pairs a model file keeps."""
    import numpy as np

    weights = np.zeros(1 << BITS, dtype=np.float32)
    weights[index] = weight
    return weights
