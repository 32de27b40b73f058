#!/usr/bin/env python3
"""Write the intent layer's shipped phrasings (`homeagent/intent/phrasings.jsonl`) from
labelled sets: how people said things, each line an utterance and the action it asks for.

Only sets that are no longer held out go in (their errors were read and worked on);
`bench/data/intent_eval.jsonl` never does: it is the set the layer is never trained on.
Nor does any text that a held-out set also has (`--hold-out`, by default the evaluation
set and blinds 14 and 18, the sets measured but not trained on; compared without case, spacing
and end punctuation):
independent writers say "What can you do?" alike, and a line trained on is no test.
Follow-ups are left out (their meaning is in the turn before), and so is any text two
sets label differently. A line written as a typo is marked `"typo": true`: it trains the
classifier, but its character pairs are no real words to the homophone check.

    .venv/bin/python bench/intent_phrasings.py bench/data/intent_blind.jsonl ... bench/data/intent_blind13.jsonl bench/data/intent_blind15.jsonl bench/data/intent_blind16.jsonl bench/data/intent_blind17.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "homeagent/intent/phrasings.jsonl"
NEVER = ROOT / "bench/data/intent_eval.jsonl"
HELD_OUT = (NEVER, *(ROOT / f"bench/data/intent_blind{n}.jsonl" for n in (14, 18)))


def same(text: str) -> str:
    """What two writings of one line share: no case, single spaces, no end punctuation."""
    return " ".join(text.lower().split()).rstrip(" .!?。！？~～")


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--hold-out", type=Path, action="append", default=None,
                        help="a set no phrasing may repeat (repeatable; default: intent_eval and blinds 14 and 18)")
    args = parser.parse_args()
    held = [p for p in (args.hold_out or HELD_OUT) if p.exists()]
    if any(p.resolve() in {h.resolve() for h in held} | {NEVER.resolve()} for p in args.sets):
        print("a held-out set is never trained on", file=sys.stderr)
        return 2
    unseen = {same(item["text"]) for path in held for item in lines(path)}
    labels: dict[str, set[str]] = {}
    typos: set[str] = set()  # marked: their character pairs are no real words (homophones.py)
    for path in args.sets:
        for item in lines(path):
            if item["kind"] == "followup" or item.get("before"):
                continue
            labels.setdefault(" ".join(item["text"].split()), set()).add(item["action"])
            if item["kind"] == "typo":
                typos.add(" ".join(item["text"].split()))
    dropped = {text for text in labels if same(text) in unseen}
    kept = sorted((text, next(iter(actions))) for text, actions in labels.items()
                  if len(actions) == 1 and text not in dropped)
    with args.out.open("w", encoding="utf-8") as fh:
        for text, action in sorted(kept, key=lambda ta: (ta[1], ta[0])):
            line = {"text": text, "action": action, **({"typo": True} if text in typos else {})}
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"{len(kept)} phrasings ({len(dropped)} left out: in a held-out set; "
          f"{len(labels) - len(kept) - len(dropped)}: labelled two ways) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
