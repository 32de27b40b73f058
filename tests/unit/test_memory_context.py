"""L1 RelevanceContext: cached vectors, relevance pruning that always keeps the last
exchanges, archiving into L2, restart persistence and forgetting, Chinese and English."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import homeagent.store
from homeagent.clock import FakeClock
from homeagent.memory.context import (
    ContextEntry,
    RelevanceContext,
    archive_to_documents,
    cosine,
    term_vector,
)
from homeagent.memory.documents import DocumentStore
from homeagent.memory.graph_schema import MIGRATIONS as GRAPH_MIGRATIONS
from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.memory.vector import VectorIndex
from homeagent.store import Database

pytestmark = pytest.mark.anyio
MIGRATIONS = (*homeagent.store.MIGRATIONS, *MEMORY_MIGRATIONS, *GRAPH_MIGRATIONS)

OLD_EXCHANGES = [
    ("我家的猫咪咪最近不爱吃猫粮", "可以试试换一种猫粮，或者加一点湿粮。"),
    ("What's the weather like tomorrow in Beijing?", "Tomorrow Beijing will be sunny, 25 degrees."),
    ("帮我记一下明天下午三点开会", "好的，已经记下明天下午三点的会议。"),
    ("How do I make tomato egg noodles?", "Boil noodles, scramble eggs, add tomatoes and season."),
    ("咪咪的猫砂盆多久换一次猫砂？", "猫砂建议每周彻底更换一次，每天清理结块。"),
]
RECENT = [
    ("Play some jazz please", "Playing a jazz playlist now."),
    ("调暗客厅的灯", "客厅灯已调到百分之三十。"),
    ("Thanks!", "You're welcome."),
]


async def fill(ctx: RelevanceContext, exchanges: Sequence[tuple[str, str]], start: int = 0) -> None:
    for i, (user, answer) in enumerate(exchanges, start=start):
        await ctx.append("user", user, f"t{i}", member="小明")
        await ctx.append("assistant", answer, f"t{i}")


class Archive:
    def __init__(self) -> None:
        self.got: list[ContextEntry] = []

    async def __call__(self, entries: Sequence[ContextEntry]) -> None:
        self.got.extend(entries)


def test_term_vectors_and_cosine_work_for_both_scripts() -> None:
    zh, en = term_vector("咪咪不爱吃猫粮，猫粮"), term_vector("The cat food, the CAT")
    assert zh["猫粮"] > zh["咪咪"] > 0 and en["cat"] > en["food"] > 0
    assert cosine(zh, term_vector("给咪咪换猫粮")) > 0.3
    assert cosine(zh, en) == 0.0


async def test_prune_keeps_relevant_and_last_three_exchanges(tmp_path: Path) -> None:
    archive = Archive()
    async with Database(tmp_path / "c.db", MIGRATIONS) as db:
        ctx = RelevanceContext(db, top_k=10, keep_last=3, archive=archive, clock=FakeClock())
        await fill(ctx, OLD_EXCHANGES)
        await fill(ctx, RECENT, start=len(OLD_EXCHANGES))
        assert len(ctx) == 16
        first = ctx.entries()[0]
        assert first.terms and first.terms is ctx.entries()[0].terms  # computed once, cached

        archived = await ctx.prune("咪咪可能是猫粮吃腻了，猫砂也要保持干净。")
        kept = ctx.entries()
        assert len(kept) == 10 and len(archived) == 6
        assert archive.got == archived
        # Chronological order for the prompt.
        assert [e.seq for e in kept] == sorted(e.seq for e in kept)
        kept_turns = {e.turn_id for e in kept}
        # The last three exchanges stay, however unrelated to the answer.
        assert {"t5", "t6", "t7"} <= kept_turns
        assert all(e.turn_id in kept_turns for e in kept)
        # The cat exchanges are the relevant ones and stay; unrelated ones left first.
        kept_text = " ".join(e.content for e in kept)
        assert "猫粮" in kept_text and "猫砂" in kept_text
        archived_text = " ".join(e.content for e in archived)
        assert "noodles" in archived_text and "weather" in archived_text

        # Nothing to do while within top_k.
        assert await ctx.prune("anything") == []


async def test_prune_in_english_with_idf_from_a_vector_index(tmp_path: Path) -> None:
    archive = Archive()
    async with Database(tmp_path / "c.db", MIGRATIONS) as db:
        index = VectorIndex(db, "doc:documents")
        await index.add([(str(i), "the weather today is nice") for i in range(20)])
        ctx = RelevanceContext(db, top_k=8, keep_last=2, archive=archive, idf=index.idf)
        await fill(ctx, OLD_EXCHANGES + RECENT)
        archived = await ctx.prune("Tomato egg noodles: boil the noodles first, then add eggs.")
        kept_text = " ".join(e.content for e in ctx.entries())
        assert "noodles" in kept_text and len(ctx) == 8 and len(archived) == 8


async def test_a_failing_archive_keeps_every_entry(tmp_path: Path) -> None:
    async def broken(entries: Sequence[ContextEntry]) -> None:
        raise OSError("disk full")

    async with Database(tmp_path / "c.db", MIGRATIONS) as db:
        ctx = RelevanceContext(db, top_k=4, archive=broken)
        await fill(ctx, OLD_EXCHANGES)
        with pytest.raises(OSError):
            await ctx.prune("猫粮")
        assert len(ctx) == 10
        rows = await db.fetchall("SELECT COUNT(*) FROM memory_context")
        assert rows[0][0] == 10


async def test_restart_resumes_the_same_context_and_forget_removes_an_exchange(
    tmp_path: Path,
) -> None:
    async with Database(tmp_path / "c.db", MIGRATIONS) as db:
        ctx = RelevanceContext(db, top_k=6, keep_last=1, archive=Archive())
        await fill(ctx, OLD_EXCHANGES)
        await ctx.prune("猫砂和猫粮")
        before = [(e.seq, e.turn_id, e.role, e.content, e.member) for e in ctx.entries()]
        assert len(before) == 6
    async with Database(tmp_path / "c.db", MIGRATIONS) as db:
        resumed = RelevanceContext(db, top_k=6, keep_last=1)
        await resumed.load()
        assert [
            (e.seq, e.turn_id, e.role, e.content, e.member) for e in resumed.entries()
        ] == before
        assert all(e.terms for e in resumed.entries())
        turn = before[0][1]
        assert await resumed.forget(turn) == 2
        assert turn not in {e.turn_id for e in resumed.entries()}
        assert await resumed.forget_message(type("M", (), {"turn_id": "t4", "role": "user"})()) == {
            "context_entries": 1
        }
    async with Database(tmp_path / "c.db", MIGRATIONS) as db:
        again = RelevanceContext(db)
        await again.load()
        assert len(again) == 3 and turn not in {e.turn_id for e in again.entries()}


async def test_archive_to_documents_lands_full_text_in_l2(tmp_path: Path) -> None:
    clock = FakeClock()
    async with Database(tmp_path / "c.db", MIGRATIONS) as db:
        store = DocumentStore(db, clock=clock)
        await store.load()
        ctx = RelevanceContext(
            db, top_k=4, keep_last=1, archive=archive_to_documents(store), clock=clock
        )
        await fill(ctx, OLD_EXCHANGES)
        archived = await ctx.prune("会议在明天下午三点")
        assert len(archived) == 6
        doc = await store.get(f"context-{archived[0].seq}")
        assert doc is not None and doc.text == archived[0].content
        assert doc.source == "context" and "context" in doc.tags
        hits = await store.query("tomato egg noodles", 3)
        assert any("noodles" in h.document.text for h in hits)
