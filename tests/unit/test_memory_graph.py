"""L3 graph memory: temporal facts, mention counts, persistence, neighbourhoods,
synonym merges and their undo, the entity indexer and the memory tools."""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest

import homeagent.store
from homeagent.clock import FakeClock
from homeagent.errors import NotFoundError, RequestError
from homeagent.llm.base import ToolCall
from homeagent.memory.graph import FactInput, GraphDB
from homeagent.memory.graph_merge import find_synonyms_sync, merge_synonyms, undo_merge
from homeagent.memory.graph_schema import MIGRATIONS as GRAPH_MIGRATIONS
from homeagent.memory.indexer import ENTITY_NAMESPACE, GraphIndexer, candidate_keys
from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.memory.tools import memory_tools
from homeagent.memory.vector import VectorIndex
from homeagent.store import Database
from homeagent.text import bigram_jaccard, estimate_tokens
from homeagent.tools.registry import ToolContext, ToolRegistry

pytestmark = pytest.mark.anyio
MIGRATIONS = (*homeagent.store.MIGRATIONS, *MEMORY_MIGRATIONS, *GRAPH_MIGRATIONS)


def open_db(tmp_path: Path) -> Database:
    return Database(tmp_path / "graph.db", MIGRATIONS)


async def table_rows(db: Database) -> dict[str, list[tuple]]:
    out = {}
    for table in ("graph_entities", "graph_aliases", "graph_facts"):
        rows = await db.fetchall(f"SELECT * FROM {table} ORDER BY 1")
        out[table] = [tuple(r) for r in rows]
    return out


async def test_moving_closes_the_old_home_and_keeps_it_as_history_zh(tmp_path: Path) -> None:
    clock = FakeClock()
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=clock)
        first = await graph.commit(FactInput("我", "住在", "北京", member="小明"))
        assert first.outcome == "new" and first.fact.relation == "lives_in"
        clock.advance(days=30)
        moved = await graph.commit(FactInput("我", "moved_to", "上海"))
        assert moved.outcome == "new"
        assert [f.object for f in moved.closed] == ["北京"]

        history = await graph.history("我", "lives_in")
        assert [(f.object, f.current) for f in history] == [("北京", False), ("上海", True)]
        beijing, shanghai = history
        assert beijing.valid_to == shanghai.valid_from == clock.now().timestamp()
        assert beijing.date_bucket == "2026-01-01" and shanghai.date_bucket == "2026-01-31"
        assert beijing.member == "小明"
        assert [f.object for f in await graph.current("我", "lives_in")] == ["上海"]


async def test_moving_in_english_and_a_late_statement_of_older_news(tmp_path: Path) -> None:
    clock = FakeClock()
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=clock)
        t0 = clock.now().timestamp()
        await graph.commit(FactInput("Alice", "lives in", "Beijing", at=t0))
        await graph.commit(FactInput("Alice", "moved to", "Shanghai", at=t0 + 86400))
        # Told later, but about a time before the move: history, not the present.
        late = await graph.commit(FactInput("Alice", "lives_in", "Hangzhou", at=t0 - 86400))
        assert late.outcome == "historical" and late.fact.valid_to == t0 + 86400 and not late.closed
        current = await graph.current("alice", "LIVES_IN")
        assert [f.object for f in current] == ["Shanghai"]
        assert {f.object for f in await graph.history("Alice", "lives_in")} == {
            "Beijing",
            "Shanghai",
            "Hangzhou",
        }


async def test_the_same_fact_twice_is_one_fact_with_more_mentions(tmp_path: Path) -> None:
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=FakeClock())
        await graph.commit(FactInput("user", "likes", "红烧肉", confidence=0.6))
        again = await graph.commit(FactInput("User", "likes", "红烧肉", confidence=0.9))
        assert again.outcome == "repeated"
        assert again.fact.mention_count == 2 and again.fact.confidence == 0.9
        await graph.commit(FactInput("user", "likes", "jazz"))
        rows = await db.fetchall("SELECT COUNT(*) FROM graph_facts")
        assert rows[0][0] == 2  # multi-valued: both likes stay current
        user = await graph.entity("USER")
        assert user is not None and user.mention_count == 3


async def test_opposite_relation_closes_and_declared_relations_are_data(tmp_path: Path) -> None:
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=FakeClock())
        await graph.commit(FactInput("user", "likes", "cilantro"))
        changed = await graph.commit(FactInput("user", "dislikes", "cilantro"))
        assert [f.relation for f in changed.closed] == ["likes"]
        # Unknown relations are multi-valued until declared otherwise.
        await graph.commit(FactInput("user", "favourite_colour", "blue"))
        await graph.commit(FactInput("user", "favourite_colour", "green"))
        assert len(await graph.current("user", "favourite_colour")) == 2
        await graph.declare_relation("favourite_colour", "one")
        third = await graph.commit(FactInput("user", "favourite colour", "red"))
        assert {f.object for f in third.closed} == {"blue", "green"}


async def test_invalid_facts_are_refused_with_the_field_named(tmp_path: Path) -> None:
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=FakeClock())
        with pytest.raises(ValueError, match="subject"):
            await graph.commit(FactInput("  ", "likes", "tea"))
        with pytest.raises(ValueError, match="object"):
            await graph.commit(FactInput("user", "likes", "x" * 300))
        with pytest.raises(ValueError, match="different"):
            await graph.commit(FactInput("Tom", "knows", "tom"))
        assert (await graph.stats()).facts == 0


async def test_graph_survives_a_restart(tmp_path: Path) -> None:
    clock = FakeClock()
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=clock)
        await graph.commit(FactInput("我", "住在", "北京"))
        clock.advance(days=1)
        await graph.commit(FactInput("我", "搬到", "上海"))
        await graph.commit(FactInput("我", "has_pet", "咪咪"))
        before = await table_rows(db)
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=clock)
        assert await table_rows(db) == before
        assert [(f.object, f.current) for f in await graph.history("我", "lives_in")] == [
            ("北京", False),
            ("上海", True),
        ]


async def test_k_hop_neighbourhood_as_networkx(tmp_path: Path) -> None:
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=FakeClock())
        await graph.commit_many([
            FactInput("user", "has_pet", "咪咪", object_type="pet"),
            FactInput("咪咪", "is_a", "猫"),
            FactInput("猫", "likes", "鱼"),
            FactInput("Bob", "knows", "Carol"),
        ])  # fmt: skip
        one = await graph.neighbourhood(["user"], hops=1)
        assert {d["name"] for _, d in one.nodes(data=True)} == {"user", "咪咪"}
        two = await graph.neighbourhood(["user"], hops=2)
        assert {d["name"] for _, d in two.nodes(data=True)} == {"user", "咪咪", "猫"}
        relations = {d["relation"] for _, _, d in two.edges(data=True)}
        assert relations == {"has_pet", "is_a"}
        assert (
            two.nodes[next(n for n, d in two.nodes(data=True) if d["name"] == "咪咪")]["type"]
            == "pet"
        )


async def test_synonym_merge_keeps_aliases_and_relations_and_undo_restores_rows(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=clock)
        await graph.commit_many([
            FactInput("user", "likes", "上海迪士尼乐园", object_type="place"),
            FactInput("user", "likes", "上海迪士尼乐园"),
            FactInput("上海迪士尼乐园", "located_in", "浦东"),
            FactInput("user", "likes", "上海迪士尼", object_type="place"),
            FactInput("上海迪士尼", "has", "城堡"),
            FactInput("user", "visited", "Central Park"),
            FactInput("Central Park NYC", "is_a", "park"),
            # Different types and values are never merged, however alike.
            FactInput("user", "birthday", "2024-01-01", object_type="value"),
            FactInput("Bob", "birthday", "2024-01-02", object_type="value"),
        ])  # fmt: skip
        pairs = {(c.keep_name, c.drop_name) for c in find_synonyms_sync(graph, 0.5)}
        assert pairs == {("上海迪士尼乐园", "上海迪士尼"), ("Central Park", "Central Park NYC")}
        before = await table_rows(db)

        clock.advance(hours=1)
        merges = await merge_synonyms(graph, 0.5)
        assert len(merges) == 2
        disney = await graph.entity("上海迪士尼")  # found through its alias now
        assert disney is not None and disney.name == "上海迪士尼乐园"
        assert disney.aliases == ("上海迪士尼",)
        assert disney.mention_count == 3 + 2
        facts = await graph.facts_about([disney.id])
        triples = {(f.subject, f.relation, f.object, f.mention_count) for f in facts}
        assert triples == {
            ("user", "likes", "上海迪士尼乐园", 3),  # duplicate facts folded, counts summed
            ("上海迪士尼乐园", "located_in", "浦东", 1),
            ("上海迪士尼乐园", "has", "城堡", 1),
        }
        park = await graph.entity("central park nyc")
        assert park is not None and park.name == "Central Park"

        # Undo the last merge, then the first: the exact rows come back.
        undone = await undo_merge(graph)
        assert undone.id == merges[-1].id
        await undo_merge(graph, merges[0].id)
        assert await table_rows(db) == before
        with pytest.raises(RequestError, match="already undone"):
            await undo_merge(graph, merges[0].id)
        with pytest.raises(NotFoundError):
            await undo_merge(graph)


async def test_undoing_an_earlier_merge_first_is_refused(tmp_path: Path) -> None:
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=FakeClock())
        await graph.commit_many([
            FactInput("user", "likes", "Golden Gate Bridge"),
            FactInput("user", "likes", "GoldenGate Bridge"),
        ])  # fmt: skip
        first = await merge_synonyms(graph, 0.5)
        await graph.commit(FactInput("user", "likes", "Golden  Gate Bridge SF"))
        second = await merge_synonyms(graph, 0.5)
        assert len(first) == 1 and len(second) == 1
        with pytest.raises(RequestError, match=f"undo merge {second[0].id} first"):
            await undo_merge(graph, first[0].id)
        await undo_merge(graph, second[0].id)
        await undo_merge(graph, first[0].id)
        assert (await graph.stats()).entities == 4


async def test_prefix_filtered_synonym_search_matches_brute_force(tmp_path: Path) -> None:
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=FakeClock())
        names = [f"{_word(i)} {_word(i * 7)[:2]}" for i in range(500)]
        names += [f"{_word(i)} {_word(i * 7)[:2]}x" for i in range(0, 500, 25)]  # near-duplicates
        names += [f"{_word(i)}{i % 3}" for i in range(0, 500, 50)]  # digits differ: never merged
        names += ["北京市朝阳区", "北京朝阳区", "上海迪士尼乐园", "上海迪士尼", "咪咪", "小咪咪"]
        await graph.commit_many([FactInput("user", "knows", n) for n in names])
        found = await anyio.to_thread.run_sync(find_synonyms_sync, graph, 0.5)
        got = {frozenset((c.keep_name, c.drop_name)) for c in found}

        entities = [e for e in (await graph.entities(list(range(1, len(names) + 10)))).values()]
        expected = set()
        for i, a in enumerate(entities):
            for b in entities[i + 1 :]:
                digits_a, digits_b = re.findall(r"\d+", a.name), re.findall(r"\d+", b.name)
                if bigram_jaccard(a.name, b.name) > 0.5 and digits_a == digits_b:
                    expected.add(frozenset((a.name, b.name)))
        assert got == expected
        assert frozenset(("上海迪士尼乐园", "上海迪士尼")) in got
        assert len(got) >= 15


async def test_incremental_synonym_pass_looks_only_at_changed_entities(tmp_path: Path) -> None:
    clock = FakeClock()
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=clock)
        await graph.commit_many([FactInput("user", "likes", "Golden Gate Bridge")])
        assert await merge_synonyms(graph, 0.5, incremental=True) == []  # sets the watermark
        clock.advance(minutes=30)
        # A pair of entities that exist already is not re-examined by an incremental pass ...
        await graph.commit(FactInput("user", "visited", "Golden Gate Bridge SF"))
        since = clock.now().timestamp()
        clock.advance(minutes=30)
        assert find_synonyms_sync(graph, 0.5, since=clock.now().timestamp()) == []
        assert len(find_synonyms_sync(graph, 0.5, since=since)) == 1
        # ... but an entity added since the last pass is compared with every other one.
        merged = await merge_synonyms(graph, 0.5, incremental=True)
        assert [(m.kept_name, m.dropped_name) for m in merged] == [
            ("Golden Gate Bridge", "Golden Gate Bridge SF")
        ]
        clock.advance(minutes=30)
        assert await merge_synonyms(graph, 0.5, incremental=True) == []


def _word(i: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return "".join(letters[(i * p) % 26] for p in (3, 5, 7, 11, 13))


async def test_indexer_node_index_has_names_types_counts_and_relations_only(tmp_path: Path) -> None:
    clock = FakeClock()
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=clock)
        await graph.commit_many([
            FactInput("user", "lives_in", "北京", 1.0, "person", "place"),
            FactInput("user", "lives_in", "上海", 1.0, "person", "place", at=clock.now().timestamp() + 10),
            FactInput("user", "has_pet", "咪咪", 1.0, "person", "pet"),
            FactInput("咪咪", "is_a", "猫", 1.0, "pet", "animal"),
            FactInput("Alice", "works_at", "Acme Corp", 1.0, "person", "organization"),
        ])  # fmt: skip
        indexer = GraphIndexer(graph, VectorIndex(db, ENTITY_NAMESPACE))
        report = await indexer.sync()
        assert report.added == 7

        text = await indexer.node_index("我的猫咪咪今天不吃饭", 200)
        assert "- 咪咪 (pet, 2×)" in text and "user (person" in text
        assert "has_pet" in text and "←has_pet" in text
        # Past values never leak as text: only relation types, no "北京".
        assert "北京" not in text and "上海" not in text
        assert estimate_tokens(text) <= 200

        english = await indexer.node_index("Does alice still work at Acme?", 200)
        assert "Alice (person" in english and "works_at" in english
        assert "Acme Corp" in english  # found by the vector search over names

        tight = await indexer.node_index("我的猫咪咪今天不吃饭", 25)
        assert estimate_tokens(tight) <= 25
        assert await indexer.node_index("咪咪", 0) == ""


async def test_indexer_follows_merges_and_undos(tmp_path: Path) -> None:
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=FakeClock())
        index = VectorIndex(db, ENTITY_NAMESPACE)
        indexer = GraphIndexer(graph, index)
        await graph.commit_many([
            FactInput("user", "likes", "上海迪士尼乐园"),
            FactInput("user", "likes", "上海迪士尼"),
        ])  # fmt: skip
        await indexer.sync()
        assert len(index) == 3
        await merge_synonyms(graph)
        assert (await indexer.sync()).removed == 1
        assert len(index) == 2
        await undo_merge(graph)
        await indexer.sync()
        assert len(index) == 3
        assert (await indexer.sync()) == type(await indexer.sync())(0, 0)  # nothing left queued


def test_candidate_keys_respect_word_boundaries() -> None:
    keys = candidate_keys("I met Tom in New York, 在北京")
    assert "tom" in keys and "new york" in keys and "北京" in keys and "在北京" in keys
    assert "to" not in keys and "ew york" not in keys


async def test_memory_tools_recall_commit_introspect(tmp_path: Path) -> None:
    clock = FakeClock()
    async with open_db(tmp_path) as db:
        graph = GraphDB(db, clock=clock)
        indexer = GraphIndexer(graph, VectorIndex(db, ENTITY_NAMESPACE))
        registry = ToolRegistry()
        for spec in memory_tools(graph, indexer):
            registry.register(spec)
        assert all("。" in s.description or "：" in s.description for s in registry)  # bilingual

        def ctx() -> ToolContext:
            return ToolContext(turn_id="t1", channel="test", now=clock.now, member="小明")

        async def call(name: str, **args: object) -> dict:
            result = await registry.execute(
                ToolCall("c", name, json.dumps(args, ensure_ascii=False)), ctx()
            )
            assert result.ok, result.content
            return json.loads(result.content)

        stored = await call("memory_commit", subject="我", relation="lives_in", object="北京")
        assert stored["stored"] == "new" and stored["fact"]["subject"] == "小明"
        clock.advance(days=40)
        moved = await call("memory_commit", subject="我", relation="moved_to", object="上海")
        assert (
            moved["closed"][0]["object"] == "北京" and moved["closed"][0]["until"] == "2026-02-10"
        )

        recalled = await call("memory_recall", query="我以前住在哪里？")
        facts = {(f["object"], f["current"], f.get("until")) for f in recalled["facts"]}
        assert ("北京", False, "2026-02-10") in facts and ("上海", True, None) in facts
        now_only = await call("memory_recall", query="where do I live", include_past=False)
        assert {f["object"] for f in now_only["facts"]} == {"上海"}

        stats = await call("memory_introspect")
        assert stats["entities"] == 3 and stats["past_facts"] == 1 and stats["current_facts"] == 1
        assert stats["top_entities"][0]["name"] == "小明"

        bad = await registry.execute(
            ToolCall(
                "c",
                "memory_commit",
                json.dumps({"subject": "我", "relation": "knows", "object": "me"}),
            ),
            ctx(),
        )
        assert not bad.ok and "different entities" in bad.content
