"""Heartbeat duration with a large memory (in-process).

    .venv/bin/python bench/heartbeat.py [--docs 100000] [--log 2000]

Builds a memory of `--docs` synthetic documents (half Chinese, half English, all older
than the cold threshold and never read, so the heartbeat has its full batch of cold
documents to turn into facts and archive) and a text log of `--log` exchanges with
statements the rule-based distiller extracts, then times one heartbeat: distil, entity
index sync, document reindex, cold documents → facts → archive, synonym merge.
Target: under 60 s at 100k documents.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory import NOW, make_text  # noqa: E402

from homeagent.clock import FakeClock  # noqa: E402
from homeagent.log import configure_logging  # noqa: E402
from homeagent.memory.documents import NewDocument  # noqa: E402
from homeagent.memory.service import MemoryService, MemorySettings  # noqa: E402
from homeagent.schema import all_migrations  # noqa: E402
from homeagent.store import Database  # noqa: E402

PEOPLE = ["小明", "小红", "Alice", "Bob", "外婆", "Tom"]
PLACES = ["北京", "上海", "杭州", "London", "Paris", "成都", "Berlin"]
THINGS = ["绿茶", "咖啡", "跑步", "钢琴", "tennis", "jazz", "火锅", "sushi", "yoga", "围棋"]


def statement(rng: random.Random, i: int) -> str:
    thing = rng.choice(THINGS) + (str(i % 97) if rng.random() < 0.5 else "")
    return rng.choice([
        f"我喜欢{thing}", f"我住在{rng.choice(PLACES)}", f"I like {thing}",
        f"I live in {rng.choice(PLACES)}", f"我有一只猫叫{rng.choice(PEOPLE)}{i % 50}",
    ])


async def main(docs: int, log_records: int) -> None:
    configure_logging("warning", "json")
    rng = random.Random(7)
    clock = FakeClock(NOW)
    with tempfile.TemporaryDirectory() as tmp:
        async with Database(Path(tmp) / "homeagent.db", all_migrations()) as db:
            memory = MemoryService(db, Path(tmp), clock, MemorySettings())
            async with memory.opened():
                started = time.monotonic()
                old = NOW - timedelta(days=10)
                for start in range(0, docs, 2000):
                    batch = [NewDocument(text=make_text(rng), created_at=old)
                             for _ in range(min(2000, docs - start))]
                    await memory.documents.commit(batch, return_documents=False)
                build_s = time.monotonic() - started
                for i in range(log_records):
                    member = rng.choice(["", "alice", "bob"])
                    await memory.textlog.append(statement(rng, i), "好的", turn_id=f"t{i}", member=member)
                started = time.monotonic()
                report = await memory.heartbeat()
                beat_s = time.monotonic() - started
                counts = report.counts()
                started = time.monotonic()
                again = await memory.heartbeat()
                second_s = time.monotonic() - started
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"memory: {docs:,} documents (built in {build_s:.1f} s), text log {log_records:,} exchanges")
    print(f"heartbeat: {beat_s:.2f} s (target < 60 s); errors: {report.errors or 'none'}")
    for key in ("records_distilled", "facts_new", "facts_repeated", "entities_indexed",
                "documents_reindexed", "cold_documents", "cold_facts", "documents_archived", "merged"):
        print(f"  {key}: {counts.get(key)}")
    print(f"second heartbeat (next cold batch, nothing new to distil): {second_s:.2f} s, "
          f"llm_calls {again.counts().get('llm_calls')}")
    print(f"peak RSS: {rss:.0f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--log", type=int, default=2000)
    args = parser.parse_args()
    anyio.run(main, args.docs, args.log)
