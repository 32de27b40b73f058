"""homeagent.memory.documents: L2 document memory on a real SQLite file, injected clock."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from homeagent.clock import FakeClock
from homeagent.llm.base import ToolCall
from homeagent.memory.documents import (
    DocumentStore,
    NewDocument,
    summarize,
    time_rerank,
)
from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.memory.timecues import parse_time_cue
from homeagent.memory.tools import document_tools
from homeagent.store import MIGRATIONS, Database
from homeagent.tools.registry import Permission, ToolContext, ToolRegistry

pytestmark = pytest.mark.anyio

TZ = ZoneInfo("Asia/Shanghai")


def open_db(path: Path) -> Database:
    return Database(path, (*MIGRATIONS, *MEMORY_MIGRATIONS))


def clock_at(*args: int) -> FakeClock:
    return FakeClock(datetime(*args, tzinfo=TZ))


async def make_store(db: Database, clock: FakeClock, namespace: str = "documents") -> DocumentStore:
    store = DocumentStore(db, clock=clock, namespace=namespace)
    await store.load()
    return store


def test_summary_is_the_first_sentence_cjk_aware() -> None:
    assert summarize("洗碗机坏了。明天找人修。") == "洗碗机坏了。"
    assert summarize("The dishwasher broke. A repairman comes tomorrow.") == "The dishwasher broke."
    assert summarize("  Version 2.5 is out!  Great news.") == "Version 2.5 is out!"
    long_zh = "我们" * 100
    assert summarize(long_zh) == long_zh[:120] + "…"
    long_en = " ".join(["dishwasher"] * 40)
    cut = summarize(long_en)
    assert cut.endswith("dishwasher…") and len(cut) <= 121
    assert summarize("第一行没有句号\n第二行") == "第一行没有句号"


async def test_commit_query_and_access_stats(tmp_path: Path) -> None:
    clock = clock_at(2026, 3, 1, 9)
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock)
        doc = await store.add(
            "洗碗机又漏水了，师傅说是密封圈老化。下周三来换。",
            tags=("家电", "repair"), entities=("洗碗机",), source="chat", member="mom",
        )
        assert doc.summary == "洗碗机又漏水了，师傅说是密封圈老化。"
        assert doc.tags == ("家电", "repair") and doc.member == "mom"
        assert doc.created_at == clock.now() and doc.access_count == 0 and doc.last_access is None
        await store.commit([
            NewDocument("The dishwasher is leaking; the seal is worn out.", id="en1", source="chat"),
            NewDocument("Buy milk, eggs and bread on Saturday.", id="en2"),
            NewDocument("周六去超市买牛奶和鸡蛋。", id="zh2"),
        ])
        assert await store.count() == 4
        clock.advance(hours=1)
        hits = await store.query("洗碗机漏水", k=1)
        assert hits[0].document.id == doc.id and hits[0].score > 0
        hits = await store.query("dishwasher seal", k=2)
        # The English note first; the Chinese one through the glossary (洗碗机), lower.
        assert [h.document.id for h in hits] == ["en1", doc.id]
        assert hits[0].score > 2 * hits[1].score
        again = await store.get("en1")
        assert again is not None and again.access_count == 1
        assert again.last_access == clock.now()
        # touch=False reads without counting as an access.
        await store.query("dishwasher seal", touch=False)
        assert (await store.get("en1")).access_count == 1  # type: ignore[union-attr]


async def test_replacing_a_document_keeps_access_stats(tmp_path: Path) -> None:
    clock = clock_at(2026, 3, 1, 9)
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock)
        await store.commit([NewDocument("The garage door code is 1234.", id="code")])
        await store.query("garage door code")
        await store.commit([NewDocument("车库门密码改成 5678 了。", id="code", summary="车库门密码")])
        doc = await store.get("code")
        assert doc is not None and doc.summary == "车库门密码" and doc.access_count == 1
        assert await store.count() == 1
        assert (await store.query("车库门密码"))[0].document.id == "code"
        assert await store.query("1234") == []  # the old text is gone from the index


async def test_empty_text_is_refused(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock_at(2026, 3, 1))
        with pytest.raises(ValueError, match="non-empty text"):
            await store.add("   ")
        assert await store.count() == 0


async def test_time_words_narrow_the_search(tmp_path: Path) -> None:
    clock = clock_at(2026, 3, 18, 20)  # a Wednesday
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock)
        await store.commit([
            NewDocument("洗碗机有点响，先观察一下。", id="jan", created_at=datetime(2026, 1, 10, 9, tzinfo=TZ)),
            NewDocument("洗碗机漏水了，叫了维修。", id="feb", created_at=datetime(2026, 2, 14, 9, tzinfo=TZ)),
            NewDocument("洗碗机修好了，不漏了。", id="mar", created_at=datetime(2026, 3, 17, 9, tzinfo=TZ)),
            NewDocument("The dishwasher made a noise.", id="en-jan", created_at=datetime(2026, 1, 10, tzinfo=TZ)),
            NewDocument("The dishwasher leaked.", id="en-feb", created_at=datetime(2026, 2, 14, tzinfo=TZ)),
            NewDocument("Dentist on Friday.", id="en-mar", created_at=datetime(2026, 3, 17, 8, tzinfo=TZ)),
        ])
        assert (await store.query("上个月我说洗碗机怎么了？", k=1))[0].document.id == "feb"
        assert (await store.query("what did I say about the dishwasher last month?", k=1))[0].document.id == "en-feb"
        assert (await store.query("一月份洗碗机", k=1))[0].document.id == "jan"
        # Only a time: that day's documents, nothing else.
        yesterday = await store.query("我昨天说了什么", k=5)
        assert {h.document.id for h in yesterday} >= {"mar", "en-mar"}
        assert all(h.document.created_at.date() == datetime(2026, 3, 17).date() for h in yesterday[:2])
        # `now` pins the reference time: "last month" seen from April is March.
        pinned = await store.query("洗碗机 last month", k=1, now=datetime(2026, 4, 2, tzinfo=TZ))
        assert pinned[0].document.id == "mar"


def test_rerank_keeps_documents_outside_the_window_but_lower() -> None:
    import numpy as np

    now = datetime(2026, 3, 18, 20, tzinfo=TZ)
    cue = parse_time_cue("last month", now)
    rerank = time_rerank(cue, now, has_terms=True)
    inside = datetime(2026, 2, 10, tzinfo=TZ).timestamp()
    near = datetime(2026, 3, 2, tzinfo=TZ).timestamp()  # just after the window
    far = datetime(2025, 6, 1, tzinfo=TZ).timestamp()
    out = rerank(np.array([0.5, 0.5, 0.5, 0.5, 0.0]), np.array([inside, near, far, np.nan, inside]))
    assert out[0] > out[1] > out[2] > out[4] > 0 and out[3] > out[4]
    # Without words, only the window counts.
    only_time = time_rerank(cue, now, has_terms=False)(np.zeros(3), np.array([inside, far, np.nan]))
    assert only_time[0] > 0 and only_time[1] == 0 and only_time[2] == 0


async def test_cold_documents_and_archive(tmp_path: Path) -> None:
    clock = clock_at(2026, 3, 1, 9)
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock)
        await store.commit([
            NewDocument("Old note about the boiler service.", id="boiler"),
            NewDocument("旧笔记：热水器每年检修一次。", id="heater"),
            NewDocument("Popular note: the Wi-Fi password is on the router.", id="wifi"),
        ])
        for _ in range(3):
            await store.query("Wi-Fi password router")  # read 3 times: never cold
        clock.advance(hours=71)
        assert await store.cold() == []
        clock.advance(hours=2)
        cold = await store.cold()
        assert [d.id for d in cold] == ["boiler", "heater"]
        assert [d.id for d in await store.cold(limit=1)] == ["boiler"]
        assert await store.cold(idle_seconds=100 * 3600) == []
        assert [d.id for d in await store.cold(max_access=3)] == ["boiler", "heater", "wifi"]

        assert await store.archive(["boiler", "heater", "nope"]) == 2
        assert await store.count() == 1
        assert await store.query("boiler service") == []
        archived = await store.get("heater")
        assert archived is not None and archived.archived_at == clock.now()
        assert archived.text == "旧笔记：热水器每年检修一次。"
        found = await store.search_archive("热水器 检修")
        assert [h.document.id for h in found] == ["heater"]
        assert (await store.search_archive("boiler"))[0].document.text.startswith("Old note")
        assert await store.archive(["boiler"]) == 0
    # Archive survives a restart, including its search.
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock)
        assert (await store.search_archive("boiler service"))[0].document.id == "boiler"
        assert await store.count() == 1


async def test_restart_gives_the_same_results_and_reindex(tmp_path: Path) -> None:
    clock = clock_at(2026, 3, 1, 9)
    queries = ["洗碗机", "dishwasher leaking", "超市 牛奶", "上周 dishwasher"]
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock, "household")
        await store.commit([
            NewDocument(f"{i}: {'洗碗机漏水' if i % 3 == 0 else '去超市买牛奶'} dishwasher {'leaking' if i % 2 else 'fine'}",
                        id=f"d{i}", created_at=clock.now() - timedelta(days=i))
            for i in range(40)
        ])
        before = [[(h.document.id, h.score) for h in await store.query(q, touch=False)] for q in queries]
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock, "household")
        after = [[(h.document.id, h.score) for h in await store.query(q, touch=False)] for q in queries]
        assert after == before
        assert await store.reindex() == 40  # nothing to repair; every document indexed
        assert await store.reindex(full=True) == 40
        assert [[(h.document.id, h.score) for h in await store.query(q, touch=False)] for q in queries] == before
        # Repair: a vector lost (or a document written without one) is rebuilt.
        await db.execute("DELETE FROM vector_terms WHERE namespace = 'doc:household' AND doc_id IN ('d3', 'd4')")
        await db.execute(
            "INSERT INTO vector_terms(namespace, doc_id, terms, counts, length) VALUES ('doc:household', 'ghost', x'', x'', 0)"
        )
        await store.load()
        assert "d3" not in store.index and "ghost" in store.index
        assert await store.reindex() == 40
        assert "d3" in store.index and "d4" in store.index and "ghost" not in store.index
        assert [[(h.document.id, h.score) for h in await store.query(q, touch=False)] for q in queries] == before
        other = await make_store(db, clock, "other")
        assert await other.query("洗碗机") == [] and await other.count() == 0


async def test_tools_query_and_commit_through_the_registry(tmp_path: Path) -> None:
    clock = clock_at(2026, 3, 1, 9)
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock)
        registry = ToolRegistry()
        tools = document_tools(store)
        for spec in tools:
            registry.register(spec)
        assert {t.name: t.permission for t in tools} == {"doc_query": Permission.READ, "doc_commit": Permission.WRITE}
        assert all("/" in t.description and any("\u4e00" <= c <= "\u9fff" for c in t.description) for t in tools)
        ctx = ToolContext(turn_id="t1", channel="test", now=clock.now)
        made = await registry.execute(
            ToolCall("c1", "doc_commit", json.dumps({"text": "冰箱的滤芯六月要换。The fridge filter is due in June.", "tags": ["fridge"]})),
            ctx,
        )
        assert made.ok, made.content
        doc_id = json.loads(made.content)["id"]
        found = await registry.execute(ToolCall("c2", "doc_query", json.dumps({"query": "fridge filter"})), ctx)
        assert found.ok and json.loads(found.content)[0]["id"] == doc_id
        assert json.loads(found.content)[0]["summary"] == "冰箱的滤芯六月要换。"
        stored = await store.get(doc_id)
        assert stored is not None and stored.source == "agent:test" and stored.tags == ("fridge",)
        bad = await registry.execute(ToolCall("c3", "doc_query", json.dumps({"query": "", "k": 99})), ctx)
        assert not bad.ok and "query" in bad.content and "k" in bad.content


async def test_documents_and_vectors_commit_together(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock_at(2026, 3, 1))
        await store.commit([NewDocument(f"note {i} 笔记", id=f"n{i}") for i in range(10)])
    with sqlite3.connect(tmp_path / "h.db") as conn:
        docs = conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        vectors = conn.execute("SELECT COUNT(*) FROM vector_terms WHERE namespace = 'doc:documents'").fetchone()[0]
        assert docs == vectors == 10


def test_time_cues_in_chinese_and_english() -> None:
    now = datetime(2026, 3, 18, 20, tzinfo=TZ)  # Wednesday
    day = lambda *a: datetime(*a, tzinfo=TZ)  # noqa: E731
    cases = {
        "上个月我说洗碗机怎么了？": (day(2026, 2, 1), day(2026, 3, 1), "我说洗碗机怎么了？"),
        "what did I say about the dishwasher last month?": (day(2026, 2, 1), day(2026, 3, 1), None),
        "昨天说的快递": (day(2026, 3, 17), day(2026, 3, 18), "说的快递"),
        "前天": (day(2026, 3, 16), day(2026, 3, 17), ""),
        "上周三去哪了": (day(2026, 3, 11), day(2026, 3, 12), "去哪了"),
        "上周末": (day(2026, 3, 14), day(2026, 3, 16), ""),
        "两周前": (day(2026, 3, 2), day(2026, 3, 9), ""),
        "三个月前": (day(2025, 12, 1), day(2026, 1, 1), ""),
        "二月份的电费": (day(2026, 2, 1), day(2026, 3, 1), "的电费"),
        "in February": (day(2026, 2, 1), day(2026, 3, 1), ""),
        "3 days ago": (day(2026, 3, 15), day(2026, 3, 16), ""),
        "this week": (day(2026, 3, 16), day(2026, 3, 23), ""),
        "a couple of weeks ago": (day(2026, 3, 2), day(2026, 3, 9), ""),
        "去年": (day(2025, 1, 1), day(2026, 1, 1), ""),
    }
    for query, (start, end, rest) in cases.items():
        cue = parse_time_cue(query, now)
        assert cue is not None, query
        assert (cue.start, cue.end) == (start, end), query
        if rest is not None:
            assert cue.rest == rest, query
    assert parse_time_cue("洗碗机漏水", now) is None
    assert parse_time_cue("what did I say about the dishwasher?", now) is None
    # January from March is this year's; December from March is last year's.
    assert parse_time_cue("十二月", now).start == day(2025, 12, 1)  # type: ignore[union-attr]


def test_query_plan_strips_question_words_and_expands_both_ways() -> None:
    from homeagent.memory.query import QueryPlanner, plan_query, strip_scaffolding

    now = datetime(2026, 3, 20, 20, tzinfo=TZ)
    zh = plan_query("上个月我说洗碗机怎么了？", now)
    assert zh.text == "洗碗机" and "dishwasher" in zh.expansion and zh.cue is not None
    en = plan_query("What did I say about the dishwasher last month?", now)
    assert en.text == "dishwasher" and "洗碗机" in en.expansion
    assert strip_scaffolding("冰箱的噪音是怎么解决的？") == "冰箱 噪音"
    assert strip_scaffolding("what is it?") == ""
    assert plan_query("what is it?", None).text == "what is it?"  # nothing else to match
    only_time = plan_query("我昨天说了什么", now)
    assert only_time.text == "" and only_time.cue is not None
    household = QueryPlanner().with_groups([["Lily", "莉莉"], ["solo"]])
    assert "莉莉" in household.plan("Is Lily allergic?", None).expansion
    assert QueryPlanner(expand=False).plan("dishwasher", None).expansion == ""


async def test_delete_forgets_live_and_archived_documents(tmp_path: Path) -> None:
    clock = clock_at(2026, 3, 1, 9)
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock)
        await store.commit([
            NewDocument("我的银行卡密码写在抽屉里", id="secret"),
            NewDocument("The old bank PIN note", id="old"),
            NewDocument("Keep this one: 牛奶在冰箱里", id="keep"),
        ])
        await store.archive(["old"])
        assert await store.delete(["secret", "old", "missing"]) == 2
        assert await store.get("secret") is None and await store.get("old") is None
        assert await store.query("银行卡密码") == [] and await store.search_archive("bank PIN") == []
        assert await store.count() == 1 and await store.delete([]) == 0
    async with open_db(tmp_path / "h.db") as db:
        store = await make_store(db, clock)
        assert [h.document.id for h in await store.query("牛奶 bank 银行卡")] == ["keep"]
        assert await store.search_archive("bank PIN") == []
