"""Retrieval quality on the household evaluation set (bench/data): the full ranking must
keep its lead over plain lexical ranking, in Chinese and in English."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from homeagent.cli.memory import all_migrations
from homeagent.clock import FakeClock
from homeagent.memory.documents import DocumentStore, NewDocument
from homeagent.store import Database
from tests.conftest import REPO

pytestmark = pytest.mark.anyio

DATA = REPO / "bench" / "data"


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line]


def recall_at_10(ranked: list[list[str]], questions: list[dict]) -> float:
    return sum(len(set(r[:10]) & set(q["answers"])) / len(q["answers"]) for r, q in zip(ranked, questions, strict=True)) / len(questions)


async def test_full_ranking_beats_plain_bm25_in_both_languages(tmp_path: Path) -> None:
    turns, questions = load("household_turns.jsonl"), load("household_questions.jsonl")
    assert len(turns) >= 300 and len(questions) >= 60
    ids = {t["id"] for t in turns}
    assert all(set(q["answers"]) <= ids for q in questions)
    async with Database(tmp_path / "eval.db", all_migrations()) as db:
        store = DocumentStore(db, clock=FakeClock(), namespace="eval")
        await store.load()
        await store.commit([NewDocument(t["text"], id=t["id"], created_at=datetime.fromisoformat(t["timestamp"]))
                            for t in turns], return_documents=False)
        for lang in ("zh", "en"):
            subset = [q for q in questions if q["lang"] == lang]
            plain = [[h.id for h in store.lexical_sync(q["query"], 10)] for q in subset]
            full = [[h.id for h in store.rank_sync(q["query"], 10, now=datetime.fromisoformat(q["now"]))]
                    for q in subset]
            assert recall_at_10(full, subset) >= recall_at_10(plain, subset) + 0.2, lang
            assert recall_at_10(full, subset) >= 0.8, lang
        # Time words matter: the same question about "last month" moves with "now".
        q = "上个月我说洗碗机怎么了？"
        feb = {h.id for h in store.rank_sync(q, 2, now=datetime.fromisoformat("2026-03-20T20:00:00+08:00"))}
        jan = {h.id for h in store.rank_sync(q, 1, now=datetime.fromisoformat("2026-02-05T20:00:00+08:00"))}
        assert feb == {"dw2", "dw3"} and jan == {"dw1"}
