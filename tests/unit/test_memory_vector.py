"""homeagent.memory.vector: the incremental sparse index on a real SQLite file."""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import numpy as np
import pytest

from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.memory.vector import Hit, VectorIndex
from homeagent.store import MIGRATIONS, Database

pytestmark = pytest.mark.anyio

DOCS = [
    ("zh-dish", "洗碗机又坏了，底部一直漏水，得找人来修。"),
    ("zh-milk", "明天去超市买牛奶和面包。"),
    ("zh-dog", "小狗今天在花园里挖了一个洞。"),
    ("en-dish", "The dishwasher is leaking again, water all over the kitchen floor."),
    ("en-dentist", "Emma has a dentist appointment on Friday at 3pm."),
    ("en-rent", "Remember to pay the rent before the first of the month."),
    ("mixed", "买了新的 Bosch dishwasher，安装师傅周六来。"),
]


def open_db(path: Path) -> Database:
    return Database(path, (*MIGRATIONS, *MEMORY_MIGRATIONS))


async def make_index(db: Database, namespace: str = "notes", **kwargs) -> VectorIndex:
    index = VectorIndex(db, namespace, **kwargs)
    await index.load()
    return index


async def test_finds_chinese_and_english_documents(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add(DOCS)
        assert len(index) == len(DOCS)
        zh = await index.search("洗碗机漏水", k=3)
        assert zh[0].id == "zh-dish"
        en = await index.search("dishwasher leaking", k=3)
        assert en[0].id == "en-dish"
        assert {h.id for h in await index.search("dishwasher")} == {"en-dish", "mixed"}
        assert [h.id for h in await index.search("牙医 dentist Friday")] == ["en-dentist"]
        assert all(isinstance(h, Hit) and 0 < h.score <= 1 for h in zh + en)
        scores = [h.score for h in await index.search("洗碗机 dishwasher", k=10)]
        assert scores == sorted(scores, reverse=True)


async def test_k_min_score_and_empty_queries(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add(DOCS)
        assert len(await index.search("dishwasher 洗碗机", k=1)) == 1
        assert await index.search("dishwasher", k=0) == []
        assert await index.search("", k=5) == []
        assert await index.search("！？。，", k=5) == []
        assert await index.search("zebra", k=5) == []
        everything = await index.search("dishwasher 洗碗机 牛奶", k=10)
        cut = everything[1].score
        assert all(h.score >= cut for h in await index.search("dishwasher 洗碗机 牛奶", min_score=cut))
        assert len(await index.search("dishwasher 洗碗机 牛奶", min_score=cut)) < len(everything)


async def test_readding_an_id_replaces_it(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add(DOCS)
        await index.add([("zh-milk", "冰箱里的牛奶过期了 the milk expired")])
        assert len(index) == len(DOCS)
        assert await index.search("超市 面包") == []
        assert (await index.search("过期"))[0].id == "zh-milk"
        assert index.df("过期") == 1 and index.df("超市") == 0
        # The last of several versions in one batch wins.
        await index.add([("x", "first version 第一版"), ("x", "second version 第二版")])
        assert (await index.search("第二版"))[0].id == "x"
        assert await index.search("第一版") == []


async def test_remove_is_a_tombstone_with_df_update(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add(DOCS)
        assert index.df("dishwasher") == 2
        idf_before = index.idf("dishwasher")
        assert await index.remove(["en-dish", "missing", "en-dish"]) == 1
        assert "en-dish" not in index and "zh-dish" in index
        assert index.df("dishwasher") == 1
        assert index.idf("dishwasher") != idf_before
        assert [h.id for h in await index.search("dishwasher leaking")] == ["mixed"]
        assert await index.remove(["en-dish"]) == 0
        index.compact_sync()
        assert [h.id for h in await index.search("dishwasher leaking")] == ["mixed"]
        assert index.stats()["dead_postings"] == 0
    async with open_db(tmp_path / "h.db") as db:
        again = await make_index(db)
        assert "en-dish" not in again and len(again) == len(DOCS) - 1


async def test_restart_gives_the_same_results(tmp_path: Path) -> None:
    queries = ["洗碗机漏水", "dishwasher", "牛奶 面包", "dentist Friday", "安装 Bosch"]
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add(DOCS[:4])
        await index.add(DOCS[4:])
        before = [await index.search(q) for q in queries]
    async with open_db(tmp_path / "h.db") as db:
        reopened = await make_index(db)
        assert len(reopened) == len(DOCS)
        assert [await reopened.search(q) for q in queries] == before


async def test_hash_collisions_fold_the_same_live_and_reloaded(tmp_path: Path) -> None:
    # A tiny feature space forces many collisions through both the incremental and the
    # bulk-load path; both must give identical scores.
    queries = ["洗碗机", "dishwasher water", "牛奶", "rent month", "花园 小狗"]
    async with open_db(tmp_path / "h.db") as db:
        live = await make_index(db, n_features=8)
        await live.add(DOCS)
        expected = [await live.search(q) for q in queries]
        live.compact_sync()
        assert [await live.search(q) for q in queries] == expected
        reloaded = await make_index(db, n_features=8)
        assert [await reloaded.search(q) for q in queries] == expected


async def test_incremental_adds_leave_stored_vectors_unchanged(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add(DOCS[:2])
        first = await anyio.to_thread.run_sync(index.stored, "zh-dish")
        assert first is not None and first.length > 0
        await index.add([(f"more-{i}", f"洗碗机 dishwasher note {i}") for i in range(200)])
        later = await anyio.to_thread.run_sync(index.stored, "zh-dish")
        assert later is not None
        assert np.array_equal(first.hashes, later.hashes)
        assert np.array_equal(first.counts, later.counts)
        assert first.length == later.length


async def test_cosine_scoring_ranks_identical_text_first(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db, scoring="cosine")
        await index.add(DOCS)
        # lnc.ltc: only the query is idf-weighted, so identical text scores near 1, not 1.
        hits = await index.search(DOCS[3][1])
        assert hits[0].id == "en-dish" and 0.95 < hits[0].score <= 1.0
        assert all(h.score < hits[0].score / 2 for h in hits[1:])
        single = await index.search("dishwasher")
        assert {h.id for h in single} == {"en-dish", "mixed"}
        zh = await index.search(DOCS[0][1])
        assert zh[0].id == "zh-dish" and 0.5 < zh[0].score < 1.0
        # The same postings answer BM25 when asked per query.
        assert (await index.search("洗碗机", scoring="bm25"))[0].id == "zh-dish"


async def test_namespaces_are_isolated(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        a = await make_index(db, "a")
        b = await make_index(db, "b")
        await a.add([("1", "洗碗机 dishwasher")])
        await b.add([("1", "冰箱 fridge")])
        assert await a.search("fridge") == [] and await b.search("dishwasher") == []
        assert await b.remove(["1"]) == 1
        assert "1" in a and len(b) == 0
    async with open_db(tmp_path / "h.db") as db:
        assert len(await make_index(db, "a")) == 1 and len(await make_index(db, "b")) == 0


async def test_df_and_idf_for_other_tiers(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add(DOCS)
        assert index.df("洗碗") == 1  # CJK bigram of 洗碗机
        assert index.df("DISHWASHER") == 2  # case-folded like the tokenizer
        assert index.df("nothing-like-this") == 0
        assert index.idf("nothing-like-this") > index.idf("dishwasher") > 1.0


async def test_merging_pending_postings_keeps_results(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        # Enough postings to pass the automatic merge threshold more than once.
        for start in range(0, 6000, 1000):
            await index.add(
                [(f"d{i}", f"note {i} 记录{i % 97} dishwasher {'漏水' if i % 50 == 0 else '正常'}")
                 for i in range(start, start + 1000)]
            )
        hits = await index.search("漏水", k=200)
        assert {h.id for h in hits} == {f"d{i}" for i in range(0, 6000, 50)}
        assert index.stats()["documents"] == 6000


async def test_threads_add_and_search_concurrently(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        errors: list[BaseException] = []

        def writer(w: int) -> None:
            try:
                for i in range(30):
                    index.add_sync([(f"w{w}-{i}", f"worker {w} 第{i}条 洗碗机 dishwasher")])
            except Exception as err:  # noqa: BLE001 - reported by the assertion below
                errors.append(err)

        def reader() -> None:
            try:
                for _ in range(60):
                    index.search_sync("洗碗机 dishwasher", k=5)
            except Exception as err:  # noqa: BLE001 - reported by the assertion below
                errors.append(err)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
        threads += [threading.Thread(target=reader) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors
        assert len(index) == 90
        reloaded = await make_index(db)
        assert len(reloaded) == 90


async def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        with pytest.raises(ValueError, match="namespace"):
            VectorIndex(db, "")
        with pytest.raises(ValueError, match="power of two"):
            VectorIndex(db, "x", n_features=1000)
        index = await make_index(db)
        with pytest.raises(ValueError, match="non-empty strings"):
            await index.add([("", "text")])
        assert len(index) == 0


async def test_single_cjk_characters_in_a_question_match(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add([("shrimp", "检测结果是对虾过敏"), ("buy", "昨天买了一台扫地机器人"), ("x", "今天天气很好")])
        # A lone character is a unigram in the query; documents index their characters too.
        assert [h.id for h in await index.search("虾")] == ["shrimp"]
        assert [h.id for h in await index.search("买")] == ["buy"]
        # Bigrams still rank a two-character match above a one-character one.
        assert [h.id for h in await index.search("天气")][0] == "x"


async def test_stamps_persist_and_reach_the_reranker(tmp_path: Path) -> None:
    seen: list[np.ndarray] = []

    def newest_first(scores: np.ndarray, stamps: np.ndarray) -> np.ndarray:
        seen.append(stamps)
        return np.where(scores > 0, np.nan_to_num(stamps, nan=0.0), 0.0)

    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add([("old", "洗碗机 old"), ("new", "洗碗机 new"), ("none", "洗碗机")], stamps=[100.0, 200.0, None])
        assert [h.id for h in await index.search("洗碗机", rerank=newest_first)] == ["new", "old"]
        reloaded = await make_index(db)
        assert [h.id for h in await reloaded.search("洗碗机", rerank=newest_first)] == ["new", "old"]
        assert np.isnan(seen[-1][2]) and seen[-1][0] == 100.0
        with pytest.raises(ValueError, match="stamps"):
            await index.add([("a", "x")], stamps=[1.0, 2.0])


async def test_expansion_terms_count_less_than_the_query(tmp_path: Path) -> None:
    async with open_db(tmp_path / "h.db") as db:
        index = await make_index(db)
        await index.add([("en", "the dishwasher leaks"), ("zh", "洗碗机漏水")])
        hits = await index.search("dishwasher", extra="洗碗机", extra_weight=0.5)
        assert [h.id for h in hits] == ["en", "zh"] and hits[1].score < hits[0].score
        # Weight 0: the expansion adds nothing.
        assert [h.id for h in await index.search("dishwasher", extra="洗碗机", extra_weight=0.0)] == ["en"]
        only_zh = await index.search("洗碗机", extra="dishwasher", extra_weight=0.5)
        assert only_zh[0].id == "zh"
