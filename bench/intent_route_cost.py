"""The intent layer's own cost per utterance, without the App around it: `layer.fill` for
the expected action and `layer.route`, over the utterances of the intent sets, twice (the
second pass is the warm one), in one process. Prints p50 / p95 in milliseconds.

    .venv/bin/python bench/intent_route_cost.py
    .venv/bin/python bench/intent_route_cost.py --data bench/data/intent_blind2.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
SETS = ("intent_blind2.jsonl", "intent_blind.jsonl", "intent_eval.jsonl")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, action="append", help="a set (default: the three intent sets)")
    args = parser.parse_args()
    import logging

    logging.disable(logging.INFO)
    from homeagent.cli.tools import catalog
    from homeagent.clock import FakeClock
    from homeagent.intent import IntentLayer

    paths = args.data or [ROOT / "bench/data" / name for name in SETS]
    items = [json.loads(line) for p in paths for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    layer = IntentLayer(catalog(), clock=FakeClock(NOW), cache=Path(tempfile.mkdtemp()) / "intent.model")
    layer.train_sync()
    tools = layer.registry.definitions()
    for rep in (1, 2):
        fill: list[float] = []
        route: list[float] = []
        for item in items:
            if item["action"] in layer.templates:
                started = time.perf_counter()
                layer.fill(item["action"], item["text"])
                fill.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            asyncio.run(layer.route(item["text"], channel=item["id"], tools=tools))
            route.append((time.perf_counter() - started) * 1000)
        fill.sort()
        route.sort()
        print(f"pass {rep}: fill p50 {statistics.median(fill):.2f} ms, p95 {fill[int(0.95 * (len(fill) - 1))]:.2f} ms; "
              f"route p50 {statistics.median(route):.2f} ms, p95 {route[int(0.95 * (len(route) - 1))]:.2f} ms "
              f"({len(route)} utterances)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
