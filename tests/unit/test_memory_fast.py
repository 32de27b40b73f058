"""homeagent.memory.dense, the fast path of large indexes: centred sign bits pick the
candidates, only those are scored exactly; the search result is the candidates alone
(slots, cosines, stamps, ids, speakers), and the embedder keeps recent questions.
Real SQLite files in tmp dirs; the model is loaded only where a test embeds text."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from homeagent.memory.dense import DIM, DenseIndex, Embedder, quantize, top
from homeagent.schema import all_migrations
from homeagent.store import Database


@pytest.fixture
def db(tmp_path: Path):
    database = Database(tmp_path / "m.db", all_migrations())
    database.open()
    try:
        yield database
    finally:
        database.close()


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def e5_like(n: int, seed: int) -> np.ndarray:
    """Vectors that share one large common direction, as e5's do (mean cosine ~0.8)."""
    common = unit(np.random.default_rng(0).standard_normal(DIM, dtype=np.float32))
    rng = np.random.default_rng(seed)
    return unit(2.0 * common + rng.standard_normal((n, DIM), dtype=np.float32) / np.sqrt(DIM))


def filled(db: Database, vecs: np.ndarray, *, exact_below: int, candidates: int, sample: int = 50,
           scripts: list[int] | None = None, members: list[str] | None = None, name: str = "doc:x") -> DenseIndex:
    index = DenseIndex(db, name, Embedder())  # the model is never loaded here
    index.exact_below, index.candidates, index.sample = exact_below, candidates, sample
    q, scale = quantize(vecs)
    ids = [f"d{i}" for i in range(len(vecs))]
    for lo in range(0, len(ids), 1000):  # in batches, as the backlog applies them
        hi = lo + 1000
        index.apply(ids[lo:hi], q[lo:hi], scale[lo:hi], [float(i) for i in range(lo, min(hi, len(ids)))],
                    members[lo:hi] if members else None, scripts[lo:hi] if scripts else None)
    return index


def test_the_fast_path_returns_the_exhaustive_top_k_where_the_answer_is_known(db: Database) -> None:
    vecs = e5_like(6000, seed=1)
    rng = np.random.default_rng(9)
    question = e5_like(1, seed=2)[0]
    # Ten notes planted near the question, spread over the index: the answer.
    planted = [17, 900, 1500, 2048, 3001, 3333, 4096, 4500, 5000, 5999]
    for i, slot in enumerate(planted):
        vecs[slot] = unit(question + (0.004 + 0.0004 * i) * rng.standard_normal(DIM, dtype=np.float32))
    exact = filled(db, vecs, exact_below=10**9, candidates=0, name="doc:exact")
    fast = filled(db, vecs, exact_below=100, candidates=300, name="doc:fast")
    want = [h.id for h in exact.search(question, 10)]
    got = [h.id for h in fast.search(question, 10)]
    assert sorted(want) == sorted(f"d{i}" for i in planted)
    assert got == want  # same rows, same order
    result = fast.ranked(question)
    assert result.slots.size <= 300 + 6000 // 50 + 1  # only candidates and the sample were scored
    assert np.all(np.diff(result.slots) > 0)
    assert result.ids == [f"d{s}" for s in result.slots.tolist()]
    assert np.array_equal(result.stamps, result.slots.astype(np.float64))


def test_centred_signs_pick_better_candidates_than_raw_signs_on_e5_like_vectors(db: Database) -> None:
    vecs = e5_like(8000, seed=3)
    fast = filled(db, vecs, exact_below=100, candidates=400)
    assert np.linalg.norm(fast._center) > 0.5  # the common direction was found
    exact = filled(db, vecs, exact_below=10**9, candidates=0, name="doc:exact")
    raw = filled(db, vecs, exact_below=100, candidates=400, name="doc:raw")
    raw._center[:] = 0  # the signs as they were: of the vectors themselves
    q, scale = quantize(vecs)
    from homeagent.memory.dense import _row_signs

    raw._bits[:, : len(vecs)] = _row_signs(q, scale, raw._center)
    questions = e5_like(30, seed=4)
    agree = {"fast": 0, "raw": 0}
    for question in questions:
        want = {h.id for h in exact.search(question, 10)}
        agree["fast"] += len(want & {h.id for h in fast.search(question, 10)})
        agree["raw"] += len(want & {h.id for h in raw.search(question, 10)})
    assert agree["fast"] > agree["raw"]
    assert agree["fast"] >= 0.45 * 10 * len(questions), agree


def test_exact_path_scores_every_live_row_and_drops_dead_ones(db: Database) -> None:
    vecs = unit(np.random.default_rng(5).standard_normal((50, DIM), dtype=np.float32))
    index = filled(db, vecs, exact_below=1000, candidates=0)
    index.remove(["d3", "d10"])
    result = index.ranked(vecs[0])
    assert result.slots.size == 48 and "d3" not in result.ids and "d10" not in result.ids
    full, _, ids = index.scores(vecs[0])
    assert np.isneginf(full[[3, 10]]).all()
    assert np.array_equal(full[result.slots], result.cos)
    assert ids[int(np.argmax(full))] == "d0"


def test_the_cut_never_returns_dead_rows_even_when_it_wants_more_than_live(db: Database) -> None:
    vecs = unit(np.random.default_rng(6).standard_normal((500, DIM), dtype=np.float32))
    index = filled(db, vecs, exact_below=10, candidates=450)
    index.remove([f"d{i}" for i in range(0, 500, 2)])  # 250 live rows, fewer than the cut
    result = index.ranked(vecs[1])
    assert result.slots.size == 250
    assert all(int(i[1:]) % 2 == 1 for i in result.ids)
    assert index.search(vecs[1], 1)[0].id == "d1"


def test_ties_at_the_cut_are_taken_in_slot_order(db: Database) -> None:
    same = unit(np.random.default_rng(7).standard_normal(DIM, dtype=np.float32))
    vecs = np.repeat(same[None], 300, axis=0)  # every row at one Hamming distance
    index = filled(db, vecs, exact_below=10, candidates=40, sample=1)  # the sample: row 0
    slots, sample = index._prefilter(same, 300, index._alive[:300])
    assert slots.tolist() == list(range(40))  # no sample row beyond the cut: the first 40 rows
    assert sample[0] and not sample[1:].any()


def test_speaker_codes_and_centring_follow_the_candidates(db: Database) -> None:
    vecs = e5_like(3000, seed=8)
    members = ["mom" if i % 3 == 0 else "dad" for i in range(3000)]
    scripts = [i % 2 for i in range(3000)]
    index = filled(db, vecs, exact_below=100, candidates=500, members=members, scripts=scripts)
    question = e5_like(1, seed=9)[0]
    result = index.ranked(question, center=True)
    mom = index.code_of("mom")
    assert mom is not None and index.code_of("nobody") is None and index.code_of("") is None
    assert [members[s] == "mom" for s in result.slots.tolist()] == (result.speakers == mom).tolist()
    plain = index.ranked(question)
    # Centring shifts each writing system by one constant: the order inside one is kept.
    for script in (0, 1):
        mask = np.asarray(scripts)[result.slots] == script
        shift = result.cos[mask] - plain.cos[mask]
        assert np.allclose(shift, shift[0], atol=1e-5)


def test_compaction_across_storage_blocks_keeps_rows_and_their_signs(db: Database) -> None:
    vecs = e5_like(40_000, seed=10)  # three 16,384-row blocks
    index = filled(db, vecs, exact_below=1000, candidates=2000)
    gone = [f"d{i}" for i in range(0, 30_000)]
    assert index.remove(gone) == 30_000
    q, scale = quantize(vecs[:1])
    index.apply(["new"], q, scale, [None])  # past the dead-row limit: compacts
    assert len(index) == 10_001 and index._dead == 0 and len(index._blocks) == 1
    for i in (30_000, 32_767, 39_999):
        assert top(*_cos_ids(index, vecs[i]), 1)[0].id == f"d{i}"
    assert index.search(vecs[0], 1)[0].id == "new"


def _cos_ids(index: DenseIndex, question: np.ndarray) -> tuple[np.ndarray, list[str]]:
    result = index.ranked(question)
    return result.cos, result.ids


def test_the_embedder_keeps_recent_questions_and_validates_its_settings() -> None:
    model = Embedder(cache=2)
    first = model.query("what did the vet say about Bruno?")
    again = model.query("what did the vet say about Bruno?")
    assert again is first and model.cache_hits == 1
    assert not first.flags.writeable  # shared with later calls: nobody may change it
    model.query("狗狗得了什么病？")
    model.query("when is the book club?")  # the cache holds two: the vet question goes
    assert model.query("what did the vet say about Bruno?") is not first
    assert np.allclose(model.query("what did the vet say about Bruno?"), first, atol=1e-6)
    off = Embedder(cache=0)
    assert off.query("hello") is not off.query("hello") and off.cache_hits == 0
    with pytest.raises(ValueError, match="threads must be 1..64"):
        Embedder(threads=0)
    with pytest.raises(ValueError, match="query cache"):
        Embedder(cache=-1)


def test_query_threads_are_validated_and_reach_the_embedder(make_config) -> None:
    from homeagent.errors import ConfigError
    from homeagent.memory.service import memory_settings

    for bad in (0, 9):
        with pytest.raises(ConfigError, match="memory.dense_query_threads"):
            make_config(memory={"dense_query_threads": bad})
    settings = memory_settings(make_config(memory={"dense_threads": 1, "dense_query_threads": 3}))
    assert settings.dense_threads == 1 and settings.dense_query_threads == 3
    assert memory_settings(make_config()).dense_query_threads == 1  # the default
    with pytest.raises(ValueError, match="query threads must be 1..64"):
        Embedder(query_threads=65)
    assert Embedder(threads=3).query_threads == 3  # unset: as many as for documents


def test_a_question_uses_its_own_thread_count_and_documents_theirs() -> None:
    # In a fresh process: OpenMP keeps its worker threads once started, so an earlier
    # test's engine in this one would hide whether a second thread joined.
    import subprocess
    import sys

    script = """
import os, numpy as np
from homeagent.memory.dense import Embedder
threads = lambda: len(os.listdir("/proc/self/task"))
model = Embedder(threads=1, query_threads=2, cache=0, fast_questions=False)  # the engine's threads
wait = os.environ.get("OMP_WAIT_POLICY")
model.load()
assert os.environ.get("OMP_WAIT_POLICY") == wait, "the process environment was not restored"
assert model._omp_set is not None, "the engine's OpenMP runtime was not found"
before = threads()
model.passages(["The printer in the study is out of cyan ink again."])
assert threads() == before, ("documents used more than one thread", before, threads())
vector = model.query("what is the printer out of?")
assert threads() > before, ("the question used one thread", before, threads())
assert vector.shape == (384,) and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-3
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]
