"""Members sealed in the memory tiers: L1 pruned per owner, L2 searched for a reader, L3
facts owned per member (migration 33)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import homeagent.store
from homeagent.clock import FakeClock
from homeagent.memory.context import RelevanceContext
from homeagent.memory.documents import DocumentStore, NewDocument
from homeagent.memory.graph import FactInput, GraphDB
from homeagent.memory.graph_schema import MIGRATIONS as GRAPH_MIGRATIONS
from homeagent.memory.indexer import ENTITY_NAMESPACE, GraphIndexer
from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.memory.vector import VectorIndex
from homeagent.store import Database

pytestmark = pytest.mark.anyio
MIGRATIONS = (*homeagent.store.MIGRATIONS, *MEMORY_MIGRATIONS, *GRAPH_MIGRATIONS)


def open_db(tmp_path: Path) -> Database:
    return Database(tmp_path / "m.db", MIGRATIONS)


async def test_one_members_talk_never_prunes_another_members_context(tmp_path: Path) -> None:
    archived = []

    async def archive(entries) -> None:
        archived.extend(entries)

    async with open_db(tmp_path) as db:
        ctx = RelevanceContext(db, top_k=4, keep_last=1, archive=archive, clock=FakeClock())
        await ctx.append("user", "bob's only question about the boiler", "b1", "bob")
        await ctx.append("user", "the shared note about the boiler", "h1", "")
        for i in range(8):
            await ctx.append("user", f"alice talks about her garden, day {i}", f"a{i}", "alice")
            await ctx.prune("the garden", member="alice")
        assert {e.member for e in archived} == {"alice"}
        assert len([e for e in ctx.entries() if e.member == "alice"]) == 4
        # Bob sees his own and the shared entry; the speaker with no member, the shared.
        assert [e.turn_id for e in ctx.entries(reader="bob")] == ["b1", "h1"]
        assert [e.turn_id for e in ctx.entries(reader="")] == ["h1"]
        assert len(ctx.entries()) == 6


async def test_a_reader_finds_the_shared_document_below_another_members_many(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 3, 1, tzinfo=ZoneInfo("Asia/Shanghai")))
    async with open_db(tmp_path) as db:
        store = DocumentStore(db, clock=clock)
        await store.load()
        await store.commit(
            [NewDocument(f"the spare key is in drawer {i}, spare key, key", member="alice") for i in range(30)]
            + [NewDocument("a spare key is with the neighbour", id="shared")]
            + [NewDocument("my spare key is in my bag", id="bobs", member="bob")]
        )
        found = await store.query("spare key", 2, reader="bob")
        assert {h.document.id for h in found} == {"shared", "bobs"}
        assert all(h.document.member in ("", "bob") for h in await store.query("key", 10, reader="bob"))
        assert len(await store.query("spare key", 10)) == 10  # no reader: everything
        await store.share(["bobs"])
        assert (await store.get("bobs")).member == ""


async def test_facts_belong_to_the_member_who_stated_them(tmp_path: Path) -> None:
    clock = FakeClock()
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=clock)
        alice = await graph.commit(FactInput("car", "located_in", "garage A", member="alice"))
        same = await graph.commit(FactInput("car", "located_in", "garage A", member="bob"))
        # Two members stating one triple: two facts, each its owner's.
        assert same.outcome == "new" and same.fact.id != alice.fact.id
        clock.advance(days=1)
        moved = await graph.commit(FactInput("car", "located_in", "garage B", member="bob"))
        assert [f.member for f in moved.closed] == ["bob"]  # Alice's fact stays open
        car = await graph.entity("car")
        alice_view = await graph.facts_about([car.id], include_past=False, reader="alice")
        assert [(f.object, f.member) for f in alice_view] == [("garage A", "alice")]
        bob_view = await graph.facts_about([car.id], include_past=False, reader="bob")
        assert [f.object for f in bob_view] == ["garage B"]
        # A shared statement is news for everyone: it closes every owner's.
        clock.advance(days=1)
        shared = await graph.commit(FactInput("car", "located_in", "the shop"))
        assert {f.member for f in shared.closed} == {"alice", "bob"}


async def test_entities_only_another_member_knows_stay_out_of_recall(tmp_path: Path) -> None:
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=FakeClock())
        indexer = GraphIndexer(graph, VectorIndex(db, ENTITY_NAMESPACE))
        await graph.commit(FactInput("alice", "has", "胰岛素泵", member="alice", turn_id="t1"))
        await graph.commit(FactInput("猫", "likes", "胰岛素泵的盒子", member="", turn_id="t2"))
        await indexer.sync()
        names = lambda ms: {m.entity.name for m in ms}  # noqa: E731
        assert "胰岛素泵" in names(await indexer.recall("胰岛素泵", reader="alice"))
        assert "胰岛素泵" not in names(await indexer.recall("胰岛素泵", reader="bob"))
        assert "- 胰岛素泵 (" not in await indexer.node_index("胰岛素泵 alice", 300, reader="bob")
        assert "- 胰岛素泵 (" in await indexer.node_index("胰岛素泵 alice", 300, reader="alice")
        assert "胰岛素泵的盒子" in names(await indexer.recall("胰岛素泵的盒子", reader="bob"))
        assert "胰岛素泵" in names(await indexer.recall("胰岛素泵"))  # no reader: all
        bob_stats = await graph.stats(reader="bob")
        assert (bob_stats.facts, bob_stats.entities) == (1, 2)
        assert "胰岛素泵" not in {e.name for e in bob_stats.top_entities}
        assert (await graph.stats()).facts == 2
        # A turn said for everyone: its facts become the household's.
        assert await graph.share_turn("t1") == 1
        assert "胰岛素泵" in names(await indexer.recall("胰岛素泵", reader="bob"))


async def test_migration_33_keeps_the_facts_of_an_existing_graph(tmp_path: Path) -> None:
    before = tuple(m for m in MIGRATIONS if m.version != 33)
    async with Database(tmp_path / "old.db", before) as db:
        await GraphDB(db, clock=FakeClock()).commit(FactInput("car", "located_in", "garage A", member="alice"))
    async with Database(tmp_path / "old.db", MIGRATIONS) as db:
        graph = GraphDB(db, clock=FakeClock())
        again = await graph.commit(FactInput("car", "located_in", "garage A", member="alice"))
        assert again.outcome == "repeated"
        assert (await graph.commit(FactInput("car", "located_in", "garage A", member="bob"))).outcome == "new"


async def test_a_synonym_merge_keeps_each_owners_facts_apart(tmp_path: Path) -> None:
    from homeagent.memory.graph_merge import merge_synonyms

    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=FakeClock())
        await graph.commit_many([
            FactInput("alice", "likes", "上海迪士尼乐园", member="alice"),
            FactInput("alice", "likes", "上海迪士尼乐园", member="alice"),
            FactInput("alice", "likes", "上海迪士尼", member="bob"),
        ])  # fmt: skip
        assert len(await merge_synonyms(graph, 0.5)) == 1
        disney = await graph.entity("上海迪士尼")
        facts = await graph.facts_about([disney.id])
        # The same triple after the merge, but still two owners' facts.
        assert sorted((f.member, f.mention_count) for f in facts) == [("alice", 2), ("bob", 1)]
