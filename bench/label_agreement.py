"""How often two labellers agree: the ceiling of the intent layer's argument accuracy.

A blind set's labels are one writer's reading of each line; its argument accuracy asks the
router to store every value in the words that writer chose. A second labeller, given the lines
alone (docs/intent/relabel_brief.md: the labelling half of the writers' brief, the schemas, no
labels), labels a sample of them again (bench/data/relabel_blindN.jsonl); this script grades the
second labels against the first with the grader bench/intent_eval.py uses, and the other way
round. What two careful labellers agree on is as much as a router can be expected to match.

    .venv/bin/python bench/label_agreement.py --set 16 --set 17

Only aggregates are printed; `--show` lists the disagreements of a development set (never of a
held-out one: bench/intent_phrasings.HELD_OUT).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from intent_eval import args_right, key_misses  # noqa: E402
from intent_phrasings import HELD_OUT  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def held_out(number: int) -> bool:
    """Whether blind `number` is a held-out set (its lines are never shown one by one)."""
    return (DATA / f"intent_blind{number}.jsonl").resolve() in {p.resolve() for p in HELD_OUT}


def pairs(number: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(the set's line, the second label) for every relabelled line of blind `number`."""
    first = {}
    for line in (DATA / f"intent_blind{number}.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        first[item["id"]] = item
    second = [json.loads(line) for line in (DATA / f"relabel_blind{number}.jsonl").read_text(encoding="utf-8").splitlines()]
    return [(first[s["id"]], s) for s in second]


def agreement(rows: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    n = len(rows)
    same = [(item, s) for item, s in rows if item["action"] == s["action"]]
    ran = [(item, s) for item, s in same if item["args"]]
    args = [(item, s) for item, s in ran if args_right(item, [(s["action"], s["args"])])]
    back = [(item, s) for item, s in same if s["args"]]  # the second labels as the reference
    args_back = [(item, s) for item, s in back
                 if args_right({**item, "args": s["args"]}, [(item["action"], item["args"])])]
    misses = key_misses([{"item": item, "calls": [(s["action"], s["args"])]} for item, s in ran])
    return {"n": n, "action": len(same), "ran": len(ran), "args": len(args), "back_ran": len(back),
            "args_back": len(args_back), "misses": misses}


def pct(a: int, b: int) -> str:
    return f"{100 * a / max(1, b):.1f} % ({a}/{b})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=int, action="append", required=True, help="a blind set with a relabel file")
    parser.add_argument("--show", action="store_true", help="list a development set's disagreements")
    args = parser.parse_args()
    every: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for number in args.set:
        rows = pairs(number)
        every += rows
        for lang in ("zh", "en", None):
            sub = [r for r in rows if lang is None or r[0]["lang"] == lang]
            a = agreement(sub)
            print(f"blind {number} {lang or 'all':>3}: lines {a['n']}, same action {pct(a['action'], a['n'])}, "
                  f"same arguments {pct(a['args'], a['ran'])}; the other way round {pct(a['args_back'], a['back_ran'])}")
        worst = agreement(rows)["misses"][:8]
        print("  keys most often apart:  " + ", ".join(f"{k} {w}+{m}/{n}" for k, n, w, m in worst)
              + "  (wrong+missing/expected)")
        if args.show and not held_out(number):
            for item, s in rows:
                if item["action"] != s["action"]:
                    print(f"  ACTION {item['id']} {item['text']!r}: {item['action']} / {s['action']}")
                elif item["args"] and not args_right(item, [(s["action"], s["args"])]):
                    print(f"  ARGS   {item['id']} {item['text']!r}: {item['args']} / {s['args']}")
    if len(args.set) > 1:
        a = agreement(every)
        counts = Counter(item["lang"] for item, _ in every)
        print(f"all sets ({counts['zh']} zh, {counts['en']} en): same action {pct(a['action'], a['n'])}, "
              f"same arguments {pct(a['args'], a['ran'])}; the other way round {pct(a['args_back'], a['back_ran'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
