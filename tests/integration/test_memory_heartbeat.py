"""The memory heartbeat over real SQLite, a real text log and the real document store:
distillation, entity index sync, cold-document archival with an injected clock, synonym
merges undone from the CLI, no model call without new records, and a responsive event
loop while a heartbeat works through a big graph."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import anyio
import pytest
import structlog
from structlog.testing import capture_logs

import homeagent.store
from homeagent.cli import heartbeat as heartbeat_cli
from homeagent.clock import FakeClock
from homeagent.config import load_config
from homeagent.llm.testing import ScriptedProvider
from homeagent.memory.documents import DocumentStore, NewDocument
from homeagent.memory.graph import FactInput, GraphDB
from homeagent.memory.graph_schema import MIGRATIONS as GRAPH_MIGRATIONS
from homeagent.memory.heartbeat import HeartbeatSettings, heartbeat_loop, run_heartbeat
from homeagent.memory.indexer import ENTITY_NAMESPACE, GraphIndexer
from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.memory.textlog import TextMemory
from homeagent.memory.vector import VectorIndex
from homeagent.store import Database
from tests.conftest import write_config

pytestmark = pytest.mark.anyio
MIGRATIONS = (*homeagent.store.MIGRATIONS, *MEMORY_MIGRATIONS, *GRAPH_MIGRATIONS)
HOUR = 3600.0


async def graph_rows(db: Database) -> dict[str, list[tuple]]:
    return {
        t: [tuple(r) for r in await db.fetchall(f"SELECT * FROM {t} ORDER BY 1")]
        for t in ("graph_entities", "graph_aliases", "graph_facts")
    }


async def test_heartbeat_distills_syncs_and_archives_cold_documents(tmp_path: Path) -> None:
    clock = FakeClock()
    async with (
        Database(tmp_path / "h.db", MIGRATIONS) as db,
        TextMemory(tmp_path / "memory.jsonl", clock=clock) as log,
    ):
        graph = GraphDB(db, clock=clock)
        index = VectorIndex(db, ENTITY_NAMESPACE)
        indexer = GraphIndexer(graph, index)
        store = DocumentStore(db, clock=clock)
        await store.load()
        await log.append(
            "我有一只猫叫咪咪，我住在北京。", "好的，记住了。", turn_id="t1", member="小明"
        )
        await log.append("I like jazz", "Noted.", turn_id="t2")
        cold_doc = await store.add(
            "咪咪去北京的宠物医院打了疫苗，医生说一切正常。",
            entities=("咪咪",),
            tags=("pets",),
            source="context",
        )
        busy_doc = await store.add("Jazz playlist for Sunday mornings", tags=("music",))
        for _ in range(3):
            await store.query("jazz playlist", 1)
        clock.advance(hours=72)
        fresh_doc = await store.add("明天下午三点开会", tags=("work",))
        clock.advance(hours=1)
        provider = ScriptedProvider()  # must stay unused: no provider means rules

        with capture_logs() as logs:
            report = await run_heartbeat(
                graph=graph, indexer=indexer, textlog=log, documents=store, clock=clock
            )
        assert not report.errors
        assert report.records_distilled == 2 and report.facts_new == 4 and report.llm_calls == 0
        assert report.documents_reindexed == 3
        assert (
            report.cold_documents == 1 and report.documents_archived == 1 and report.cold_facts == 4
        )
        assert report.entities_indexed >= 6 and len(index) == (await graph.stats()).entities
        finished = [e for e in logs if e["event"] == "memory.heartbeat.finished"]
        assert len(finished) == 1
        assert finished[0]["facts_new"] == 4 and finished[0]["documents_archived"] == 1
        assert finished[0]["duration_ms"] >= 0
        assert provider.requests == []

        # The cold document became facts and moved to the archive, its text kept.
        archived = await store.get(cold_doc.id)
        assert archived is not None and archived.archived_at is not None
        assert archived.text == cold_doc.text
        assert (
            await store.get(busy_doc.id) is not None
            and (await store.get(busy_doc.id)).archived_at is None
        )
        assert (await store.get(fresh_doc.id)).archived_at is None
        rows = await db.fetchall(
            "SELECT f.relation, o.name FROM graph_facts f JOIN graph_entities o ON o.id = f.object_id"
            " WHERE f.source = ?",
            (f"document:{cold_doc.id}",),
        )
        assert {(r[0], r[1]) for r in rows} == {
            ("mentions", "咪咪"),
            ("mentions", "北京"),
            ("tagged", "pets"),
            ("from_source", "context"),
        }
        # The graph now answers from the document too; the node index finds it.
        text = await indexer.node_index("咪咪打疫苗了吗", 300, member="小明")
        assert "咪咪 (pet" in text and "←mentions" in text

        # A second heartbeat has nothing to do and changes nothing.
        before = await graph_rows(db)
        again = await run_heartbeat(
            graph=graph, indexer=indexer, textlog=log, documents=store, clock=clock
        )
        assert (again.records_distilled, again.cold_documents, len(again.merges)) == (0, 0, 0)
        assert await graph_rows(db) == before


async def test_no_new_log_records_means_no_model_call(tmp_path: Path) -> None:
    clock = FakeClock()
    reply = json.dumps(
        {"facts": [{"record": 1, "subject": "user", "relation": "likes", "object": "tea"}]}
    )
    distill_provider = ScriptedProvider([reply])  # the cheap model; chat uses another
    async with (
        Database(tmp_path / "h.db", MIGRATIONS) as db,
        TextMemory(tmp_path / "memory.jsonl", clock=clock) as log,
    ):
        graph = GraphDB(db, clock=clock)
        indexer = GraphIndexer(graph, VectorIndex(db, ENTITY_NAMESPACE))
        empty = ScriptedProvider()
        first = await run_heartbeat(graph=graph, indexer=indexer, textlog=log, provider=empty)
        assert first.llm_calls == 0 and empty.requests == []

        await log.append("I like tea", "OK")
        second = await run_heartbeat(
            graph=graph, indexer=indexer, textlog=log, provider=distill_provider
        )
        assert (
            second.llm_calls == 1 and second.facts_new == 1 and len(distill_provider.requests) == 1
        )
        third = await run_heartbeat(
            graph=graph, indexer=indexer, textlog=log, provider=distill_provider
        )
        assert third.llm_calls == 0 and len(distill_provider.requests) == 1


async def test_a_failing_step_does_not_stop_the_others(tmp_path: Path) -> None:
    class BrokenDocuments:
        async def reindex(self) -> int:
            raise RuntimeError("index file damaged")

        async def cold(self, *args: object, **kwargs: object) -> list:
            return []

    async with Database(tmp_path / "h.db", MIGRATIONS) as db:
        graph = GraphDB(db, clock=FakeClock())
        await graph.commit_many(
            [FactInput("user", "likes", "NewYork"), FactInput("user", "likes", "New York")]
        )
        report = await run_heartbeat(
            graph=graph,
            indexer=GraphIndexer(graph, VectorIndex(db, ENTITY_NAMESPACE)),
            documents=BrokenDocuments(),
        )
        assert report.errors == ("reindex: RuntimeError: index file damaged",)
        assert len(report.merges) == 1


@pytest.fixture
def restore_logging():
    """The CLI configures logging for the process; put the test defaults back after."""
    saved, handlers = structlog.get_config(), logging.getLogger().handlers[:]
    yield
    structlog.configure(**saved)
    logging.getLogger().handlers[:] = handlers


def test_cli_heartbeat_merges_and_undo_merge_restores_the_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], restore_logging: None
) -> None:
    config_path = write_config(tmp_path)
    config = load_config(config_path, env={})

    async def seed() -> dict[str, list[tuple]]:
        async with heartbeat_cli.open_memory(config) as parts:
            await parts.graph.commit_many([
                FactInput("小明", "likes", "上海迪士尼乐园", object_type="place"),
                FactInput("小明", "visited", "上海迪士尼", object_type="place"),
                FactInput("上海迪士尼", "located_in", "浦东"),
                FactInput("Bob", "likes", "Central Park"),
                FactInput("Central Park NYC", "is_a", "park"),
            ])  # fmt: skip
            return await graph_rows(parts.db)

    async def current() -> dict[str, list[tuple]]:
        async with heartbeat_cli.open_memory(config) as parts:
            return await graph_rows(parts.db)

    before = anyio.run(seed)
    capsys.readouterr()
    assert heartbeat_cli.main(["memory", "heartbeat", "--json", "--config", str(config_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["merged"] == 2 and len(report["merge_ids"]) == 2 and "duration_ms" in report
    assert anyio.run(current) != before

    assert (
        heartbeat_cli.main(
            ["memory", "undo-merge", "--list", "--json", "--config", str(config_path)]
        )
        == 0
    )
    listed = json.loads(capsys.readouterr().out)
    # The entity with more mentions stays; on a tie, the older one.
    assert {m["dropped_name"] for m in listed} == {"上海迪士尼乐园", "Central Park NYC"}

    for _ in range(2):
        assert heartbeat_cli.main(["memory", "undo-merge", "--config", str(config_path)]) == 0
        assert "undid merge" in capsys.readouterr().out
    assert anyio.run(current) == before
    # Nothing left to undo: a clear error, no traceback.
    assert heartbeat_cli.main(["memory", "undo-merge", "--config", str(config_path)]) == 2
    assert "no merge to undo" in capsys.readouterr().err


async def test_event_loop_keeps_ticking_during_a_big_heartbeat(tmp_path: Path) -> None:
    clock = FakeClock()
    async with (
        Database(tmp_path / "big.db", MIGRATIONS) as db,
        TextMemory(tmp_path / "memory.jsonl", clock=clock) as log,
    ):
        graph = GraphDB(db, clock=clock)
        indexer = GraphIndexer(graph, VectorIndex(db, ENTITY_NAMESPACE))
        store = DocumentStore(db, clock=clock)
        await store.load()
        names = [f"{_syllables(i)} {i}" for i in range(3000)] + [
            f"地点{_hanzi(i)}" for i in range(1500)
        ]
        await graph.commit_many([FactInput("user", "knows", n) for n in names])
        await anyio.to_thread.run_sync(
            lambda: [
                log.append_sync(
                    f"我喜欢{_hanzi(i)}，I live in {_syllables(i)} town", "OK", turn_id=f"t{i}"
                )
                for i in range(600)
            ]
        )
        await store.commit([
            NewDocument(f"{_hanzi(i)}的笔记 note about {names[i]} and {names[i + 1]}", tags=("notes",))
            for i in range(400)
        ])  # fmt: skip
        clock.advance(hours=80)

        gaps: list[float] = []
        done = anyio.Event()

        async def ticker() -> None:
            last = time.monotonic()
            while not done.is_set():
                await anyio.sleep(0.01)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        result = {}
        async with anyio.create_task_group() as tg:
            tg.start_soon(ticker)
            with anyio.fail_after(600):
                started = time.monotonic()
                result["report"] = await run_heartbeat(
                    graph=graph, indexer=indexer, textlog=log, documents=store, clock=clock,
                    settings=HeartbeatSettings(distill_max_records=5000),
                )  # fmt: skip
                duration = time.monotonic() - started
            done.set()
        report = result["report"]
        assert not report.errors
        assert report.records_distilled == 600 and report.entities_indexed > 4000
        assert report.documents_archived == 400
        assert len(gaps) > 10
        # The loop was never held for anything like the whole heartbeat.
        assert max(gaps) < 0.5 * duration, (max(gaps), duration)


def _syllables(i: int) -> str:
    parts = ["ka", "lo", "mi", "ren", "tu", "sha", "vo", "ne", "di", "qua", "zel", "bor"]
    out, n = [], i + 7
    for _ in range(3):
        out.append(parts[n % len(parts)])
        n //= len(parts)
    return "".join(out).capitalize()


def _hanzi(i: int) -> str:
    base = "山水林风云石桥花鸟月星河湖海田竹松梅兰菊"
    return base[i % 20] + base[(i // 20) % 20] + base[(i // 400) % 20]


async def test_heartbeat_loop_survives_a_failed_beat() -> None:
    calls: list[int] = []
    third = anyio.Event()

    async def beat() -> None:
        calls.append(1)
        if len(calls) == 3:
            third.set()
        if len(calls) == 1:
            raise RuntimeError("first beat fails")

    with capture_logs() as logs, anyio.move_on_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(heartbeat_loop, 0.01, beat)
            await third.wait()
            tg.cancel_scope.cancel()
    assert len(calls) >= 3
    assert [e["event"] for e in logs].count("memory.heartbeat.failed") == 1
    with pytest.raises(ValueError):
        await heartbeat_loop(0, beat)
