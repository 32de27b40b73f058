"""The incremental sparse vector index shared by every memory tier.

One `VectorIndex` holds one namespace of documents. A document is the bag of terms the
shared tokenizer (`homeagent.text.tokenize`) gives for its text, plus the single
characters of its CJK runs (see `index_terms`); each term is
hashed with CRC-32 (stable across processes, unlike `hash()`) and folded into a fixed
feature space, the hashing trick of scikit-learn's HashingVectorizer. Nothing is ever
refitted: document frequencies live in a numpy array updated per added or removed
document, so an add costs work proportional to the document's length.

In memory the postings form an inverted index in two levels: a compacted level of numpy
arrays sorted by feature (CSC-like: features, pointers, slots, term counts) and a small
pending level of per-feature lists that new documents append to. When the pending level
grows past a quarter of the compacted one it is merged in, so merging costs amortised
O(log n) per posting. A query touches only the postings of its own few terms and scores
them with vectorised numpy: BM25 by default (scores normalised to 0..1 by the query's
best possible score) or lnc.ltc TF-IDF cosine, whose document vectors do not depend on
corpus statistics and therefore never change when other documents arrive.

Deletion is a tombstone: the slot is marked dead and its terms leave the document
frequencies at once; its postings are dropped at the next merge.

Persistence: one SQLite row per document holds its distinct term hashes and counts as
blobs (migration 3), so `load()` restores an index without re-tokenising any text.
Rows are written before memory is changed, so the index never serves what is not durable.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import numpy as np

from homeagent.log import get_logger
from homeagent.store.db import Database
from homeagent.text import CJK as _CJK
from homeagent.text import normalize, tokenize

log = get_logger("homeagent.memory.vector")

Scoring = Literal["bm25", "cosine"]

DEFAULT_FEATURES = 1 << 20
_MAX_TF = 65535
_MIN_MERGE = 65536  # pending postings tolerated before the first merge


@dataclass(frozen=True)
class Hit:
    id: str
    score: float


@dataclass(frozen=True)
class DocTerms:
    """One document's stored vector: distinct 32-bit term hashes and their counts."""

    doc_id: str
    hashes: np.ndarray  # uint32, sorted, distinct
    counts: np.ndarray  # uint16, same length
    length: int  # number of terms in the document
    stamp: float | None = None  # the document's time, epoch seconds

    def blobs(self) -> tuple[bytes, bytes]:
        return self.hashes.astype("<u4").tobytes(), self.counts.astype("<u2").tobytes()


def term_hash(term: str) -> int:
    """The stable 32-bit hash of a term (CRC-32 of its UTF-8 bytes)."""
    return zlib.crc32(term.encode("utf-8"))


def hash_terms(terms: Iterable[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """Distinct sorted hashes of `terms`, their counts, and the number of terms."""
    # Counter over a C-level map beats np.unique on the short texts memory holds.
    counted = Counter(map(zlib.crc32, map(str.encode, terms)))
    keys = sorted(counted)
    hashes = np.array(keys, dtype=np.uint32)
    counts = np.array([min(counted[k], _MAX_TF) for k in keys], dtype=np.uint16)
    return hashes, counts, sum(counted.values())


# Runs of two or more CJK characters; their single characters are indexed too.
_CJK_RUN = re.compile(f"[{_CJK}]{{2,}}")


def index_terms(text: str) -> list[str]:
    """The terms a document is indexed under: `tokenize(text)` plus every character of
    its CJK runs as a unigram.

    Queries are tokenised with plain `tokenize`, which keeps a lone CJK character as a
    unigram: with unigrams indexed, a one-character word of a question (虾, 药, 买, 车)
    still finds "对虾过敏" or "买了一台", while longer runs match on bigrams as before
    (the same trade as Lucene's CJK bigram filter with unigram output).
    """
    return tokenize(text) + _cjk_unigrams(text)


def _cjk_unigrams(text: str) -> list[str]:
    return [ch for run in _CJK_RUN.findall(normalize(text)) for ch in run]


def doc_terms(doc_id: str, text: str, stamp: float | None = None) -> DocTerms:
    terms = tokenize(text)
    hashes, counts, _ = hash_terms(terms + _cjk_unigrams(text))
    # The length BM25 normalises by counts the tokenizer's terms only: the extra unigrams
    # would make every Chinese document look twice as long as an English one.
    length = len(terms)
    return DocTerms(doc_id, hashes, counts, length, stamp)


# A reranker gets every slot's lexical score (0 for non-matching and dead slots) and
# every slot's stamp (NaN when unknown) and returns the final scores, same shape.
Rerank = Callable[[np.ndarray, np.ndarray], np.ndarray]


class VectorIndex:
    """Incremental sparse index over homeagent.text.tokenize terms, one namespace."""

    def __init__(
        self,
        db: Database,
        namespace: str,
        *,
        scoring: Scoring = "bm25",
        n_features: int = DEFAULT_FEATURES,
        k1: float = 1.2,
        b: float = 0.75,
    ):
        if not namespace:
            raise ValueError("a vector index needs a non-empty namespace")
        if n_features < 2 or n_features & (n_features - 1):
            raise ValueError(f"n_features must be a power of two, got {n_features}")
        if scoring not in ("bm25", "cosine"):
            raise ValueError(f"scoring must be 'bm25' or 'cosine', got {scoring!r}")
        self.db = db
        self.namespace = namespace
        self.scoring: Scoring = scoring
        self.k1, self.b = k1, b
        self._mask = np.uint32(n_features - 1)
        # _lock guards the in-memory state; _commit_lock orders persist+apply pairs so
        # two writers of one id cannot leave memory and SQLite disagreeing.
        self._lock = threading.RLock()
        self._commit_lock = threading.Lock()
        self._loaded = False
        self._reset(n_features)

    # -- state ------------------------------------------------------------------------

    def _reset(self, n_features: int) -> None:
        self._df = np.zeros(n_features, dtype=np.int32)
        self._slot_of: dict[str, int] = {}
        self._ids: list[str] = []
        self._terms: list[tuple[np.ndarray, np.ndarray] | None] = []  # masked feats, tfs
        self._len = np.zeros(1024, dtype=np.float32)
        self._norm = np.ones(1024, dtype=np.float32)  # lnc norm of each slot
        self._stamp = np.full(1024, np.nan, dtype=np.float64)
        self._alive = np.zeros(1024, dtype=bool)
        self._n_alive = 0
        self._total_len = 0.0
        # Compacted postings: _feats[i] owns _slots[_ptr[i]:_ptr[i+1]] and _tfs[...].
        self._feats = np.zeros(0, dtype=np.uint32)
        self._ptr = np.zeros(1, dtype=np.int64)
        self._slots = np.zeros(0, dtype=np.int32)
        self._tfs = np.zeros(0, dtype=np.uint16)
        self._pending: dict[int, tuple[list[int], list[int]]] = {}
        self._n_pending = 0
        self._dead_postings = 0

    def __len__(self) -> int:
        return self._n_alive

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and doc_id in self._slot_of

    def ids(self) -> list[str]:
        with self._lock:
            return [i for i in self._ids if i in self._slot_of]

    def df(self, term: str) -> int:
        """How many live documents contain the term (a token of `tokenize`; it is
        normalised the same way). Hash collisions may add a few."""
        return int(self._df[np.uint32(term_hash(normalize(term))) & self._mask])

    def idf(self, term: str) -> float:
        """Smoothed inverse document frequency, ln((1 + N) / (1 + df)) + 1 (as scikit-learn)."""
        return math.log((1 + self._n_alive) / (1 + self.df(term))) + 1.0

    def stats(self) -> dict[str, int | str]:
        with self._lock:
            return {
                "namespace": self.namespace,
                "documents": self._n_alive,
                "postings": int(self._slots.size) + self._n_pending,
                "pending": self._n_pending,
                "dead_postings": self._dead_postings,
                "features": int(self._df.size),
            }

    # -- persistence ------------------------------------------------------------------

    async def load(self) -> None:
        await anyio.to_thread.run_sync(self.load_sync)

    def load_sync(self) -> None:
        """Replace the in-memory index with what SQLite holds for this namespace."""
        rows = self.db.read_sync(
            lambda c: c.execute(
                "SELECT doc_id, terms, counts, length, stamp FROM vector_terms"
                " WHERE namespace = ? ORDER BY seq",
                (self.namespace,),
            ).fetchall()
        )
        with self._lock:
            self._reset(self._df.size)
            self._load_rows(rows)
            self._loaded = True
        log.debug("memory.vector.loaded", namespace=self.namespace, documents=len(rows))

    def _load_rows(self, rows: Sequence[Sequence[object]]) -> None:
        """Bulk restore: one concatenation and one sort instead of a loop per posting."""
        n = len(rows)
        if not n:
            return
        ids = [str(r[0]) for r in rows]
        sizes = np.fromiter((len(r[2]) // 2 for r in rows), dtype=np.int64, count=n)  # type: ignore[arg-type]
        hashes = np.frombuffer(b"".join(r[1] for r in rows), dtype="<u4")  # type: ignore[misc]
        counts = np.frombuffer(b"".join(r[2] for r in rows), dtype="<u2").astype(np.uint16)  # type: ignore[misc]
        feats = (hashes & self._mask).astype(np.uint32)
        slots = np.repeat(np.arange(n, dtype=np.int32), sizes)
        # Distinct hashes can fold into one feature; merge them per document.
        key = (slots.astype(np.int64) << 32) | feats
        if np.any(key[1:] <= key[:-1]):
            key, inverse = np.unique(key, return_inverse=True)
            counts = np.minimum(np.bincount(inverse, weights=counts), _MAX_TF).astype(np.uint16)
            slots = (key >> 32).astype(np.int32)
            feats = (key & 0xFFFFFFFF).astype(np.uint32)
            sizes = np.bincount(slots, minlength=n).astype(np.int64)
        self._grow(n)
        self._ids = ids
        self._slot_of = {doc_id: i for i, doc_id in enumerate(ids)}
        bounds = np.cumsum(sizes)[:-1]
        self._terms = list(zip(np.split(feats, bounds), np.split(counts, bounds), strict=True))
        self._len[:n] = np.fromiter((r[3] for r in rows), dtype=np.float32, count=n)
        self._stamp[:n] = np.fromiter(
            (np.nan if r[4] is None else r[4] for r in rows), dtype=np.float64, count=n
        )
        logtf = 1.0 + np.log(counts.astype(np.float64))
        sq = np.bincount(slots, weights=logtf * logtf, minlength=n)
        self._norm[:n] = np.where(sq > 0, np.sqrt(sq), 1.0)
        self._alive[:n] = True
        self._n_alive = n
        self._total_len = float(self._len[:n].sum(dtype=np.float64))
        self._df += np.bincount(feats, minlength=self._df.size).astype(np.int32)
        order = np.argsort(feats, kind="stable")
        self._set_compacted(feats[order], slots[order], counts[order])

    def _set_compacted(self, feats: np.ndarray, slots: np.ndarray, tfs: np.ndarray) -> None:
        """Install postings sorted by feature (slot order within a feature)."""
        self._slots, self._tfs = slots, tfs
        if feats.size:
            starts = np.flatnonzero(np.r_[True, feats[1:] != feats[:-1]])
        else:
            starts = np.zeros(0, dtype=np.int64)
        self._feats = feats[starts]
        self._ptr = np.r_[starts, feats.size].astype(np.int64)

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            with self._lock:
                if not self._loaded:
                    self.load_sync()

    def write_rows(self, conn: sqlite3.Connection, docs: Sequence[DocTerms]) -> None:
        """Persist `docs` inside the caller's write transaction (see `commit_sync`)."""
        conn.executemany(
            "INSERT OR REPLACE INTO vector_terms(namespace, doc_id, terms, counts, length, stamp)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(self.namespace, d.doc_id, *d.blobs(), d.length, d.stamp) for d in docs],
        )

    def delete_rows(self, conn: sqlite3.Connection, ids: Sequence[str]) -> None:
        conn.executemany(
            "DELETE FROM vector_terms WHERE namespace = ? AND doc_id = ?",
            [(self.namespace, i) for i in ids],
        )

    def stored(self, doc_id: str) -> DocTerms | None:
        """The vector stored in SQLite for `doc_id` (what a restart would load)."""
        row = self.db.read_sync(
            lambda c: c.execute(
                "SELECT terms, counts, length, stamp FROM vector_terms"
                " WHERE namespace = ? AND doc_id = ?",
                (self.namespace, doc_id),
            ).fetchone()
        )
        if row is None:
            return None
        return DocTerms(
            doc_id,
            np.frombuffer(row[0], dtype="<u4").astype(np.uint32),
            np.frombuffer(row[1], dtype="<u2").astype(np.uint16),
            int(row[2]),
            row[3],
        )

    # -- writes -----------------------------------------------------------------------

    async def add(
        self, items: Sequence[tuple[str, str]], *, stamps: Sequence[float | None] | None = None
    ) -> None:
        await anyio.to_thread.run_sync(lambda: self.add_sync(items, stamps=stamps))

    async def remove(self, ids: Sequence[str]) -> int:
        return await anyio.to_thread.run_sync(self.remove_sync, ids)

    def add_sync(
        self, items: Sequence[tuple[str, str]], *, stamps: Sequence[float | None] | None = None
    ) -> None:
        """Index `(doc_id, text)` pairs; re-adding an id replaces its vector.

        `stamps` (epoch seconds, one per item) give documents a time for rerankers.
        """
        docs = self.prepare(items, stamps)
        self.commit_sync(lambda conn: self.write_rows(conn, docs), add=docs)

    def remove_sync(self, ids: Sequence[str]) -> int:
        """Delete documents; returns how many were present."""
        self._ensure_loaded()
        wanted = list(dict.fromkeys(ids))
        with self._commit_lock:
            self.db.write_sync(lambda conn: self.delete_rows(conn, wanted))
            with self._lock:
                return sum(self._kill(i) for i in wanted)

    def prepare(
        self, items: Sequence[tuple[str, str]], stamps: Sequence[float | None] | None = None
    ) -> list[DocTerms]:
        """Tokenise and hash outside every lock (the expensive part of an add)."""
        if stamps is not None and len(stamps) != len(items):
            raise ValueError(f"got {len(stamps)} stamps for {len(items)} documents")
        latest: dict[str, tuple[str, float | None]] = {}
        for i, (doc_id, text) in enumerate(items):
            if not isinstance(doc_id, str) or not doc_id:
                raise ValueError(f"document ids must be non-empty strings, got {doc_id!r}")
            latest[doc_id] = (text, None if stamps is None else stamps[i])
        return [doc_terms(doc_id, text, stamp) for doc_id, (text, stamp) in latest.items()]

    def commit_sync(
        self,
        write: Callable[[sqlite3.Connection], object] | None,
        *,
        add: Sequence[DocTerms] = (),
        remove: Sequence[str] = (),
    ) -> object:
        """Run `write(conn)` in one transaction, then apply `add`/`remove` to memory.

        The rows of `add` must be written by `write` (with `write_rows`), removals with
        `delete_rows`.

        Callers that keep their own rows next to the vectors (the document store) pass a
        `write` that stores both, so a document and its vector commit together.
        """
        self._ensure_loaded()
        with self._commit_lock:
            # write=None: the caller already committed the rows (in another index's
            # transaction); only memory changes here.
            result = None if write is None else self.db.write_sync(write)
            with self._lock:
                for doc_id in remove:
                    self._kill(doc_id)
                self._apply(add)
                if self._n_pending > max(_MIN_MERGE, self._slots.size // 4):
                    self._merge()
        return result

    def _grow(self, need: int) -> None:
        if need <= self._len.size:
            return
        size = max(need, self._len.size * 2)
        for name in ("_len", "_norm", "_alive", "_stamp"):
            old = getattr(self, name)
            new = np.full(size, np.nan) if name == "_stamp" else np.zeros(size, dtype=old.dtype)
            new[: old.size] = old
            setattr(self, name, new)

    def _apply(self, docs: Sequence[DocTerms]) -> None:
        if not docs:
            return
        for d in docs:
            self._kill(d.doc_id)
        base = len(self._ids)
        self._grow(base + len(docs))
        pending = self._pending
        for offset, d in enumerate(docs):
            slot = base + offset
            feats = d.hashes & self._mask
            tfs = d.counts
            feat_list = feats.tolist()
            if len(set(feat_list)) != len(feat_list):
                # Two terms folded into one feature: merge their counts.
                feats, inverse = np.unique(feats, return_inverse=True)
                tfs = np.minimum(np.bincount(inverse, weights=d.counts), _MAX_TF).astype(
                    np.uint16
                )
                feat_list = feats.tolist()
            tf_list = tfs.tolist()
            self._ids.append(d.doc_id)
            self._slot_of[d.doc_id] = slot
            self._terms.append((feats, tfs))
            self._len[slot] = d.length
            self._stamp[slot] = np.nan if d.stamp is None else d.stamp
            self._norm[slot] = math.sqrt(sum((1.0 + math.log(t)) ** 2 for t in tf_list)) or 1.0
            self._alive[slot] = True
            self._df[feats] += 1
            for f, tf in zip(feat_list, tf_list, strict=True):
                entry = pending.get(f)
                if entry is None:
                    pending[f] = ([slot], [tf])
                else:
                    entry[0].append(slot)
                    entry[1].append(tf)
            self._n_pending += int(feats.size)
            self._total_len += d.length
        self._n_alive += len(docs)

    def _kill(self, doc_id: str) -> bool:
        slot = self._slot_of.pop(doc_id, None)
        if slot is None:
            return False
        terms = self._terms[slot]
        assert terms is not None
        self._df[terms[0]] -= 1
        self._dead_postings += int(terms[0].size)
        self._terms[slot] = None
        self._alive[slot] = False
        self._total_len -= float(self._len[slot])
        self._n_alive -= 1
        return True

    def compact_sync(self) -> None:
        """Merge pending postings and drop dead ones now (normally done lazily)."""
        self._ensure_loaded()
        with self._lock:
            self._merge()

    def _merge(self) -> None:
        """Fold the pending postings (and drop dead ones) into the compacted arrays."""
        if not self._n_pending and not self._dead_postings:
            return
        feats = np.fromiter(
            (f for f, (s, _) in self._pending.items() for _ in range(len(s))),
            dtype=np.uint32,
            count=self._n_pending,
        )
        slots = np.fromiter(
            (x for s, _ in self._pending.values() for x in s), dtype=np.int32, count=self._n_pending
        )
        tfs = np.fromiter(
            (x for _, t in self._pending.values() for x in t), dtype=np.uint16, count=self._n_pending
        )
        old_feats = np.repeat(self._feats, np.diff(self._ptr))
        all_feats = np.concatenate([old_feats, feats])
        all_slots = np.concatenate([self._slots, slots])
        all_tfs = np.concatenate([self._tfs, tfs])
        keep = self._alive[all_slots]
        if not keep.all():
            all_feats, all_slots, all_tfs = all_feats[keep], all_slots[keep], all_tfs[keep]
        # Stable sort by feature keeps each posting list in slot order.
        order = np.argsort(all_feats, kind="stable")
        self._set_compacted(all_feats[order], all_slots[order], all_tfs[order])
        self._pending = {}
        self._n_pending = 0
        self._dead_postings = 0

    # -- search -----------------------------------------------------------------------

    async def search(
        self,
        query: str,
        k: int = 10,
        *,
        min_score: float = 0.0,
        rerank: Rerank | None = None,
        scoring: Scoring | None = None,
        extra: str = "",
        extra_weight: float = 0.4,
    ) -> list[Hit]:
        return await anyio.to_thread.run_sync(
            lambda: self.search_sync(
                query, k, min_score=min_score, rerank=rerank, scoring=scoring,
                extra=extra, extra_weight=extra_weight,
            )
        )

    def search_sync(
        self,
        query: str,
        k: int = 10,
        *,
        min_score: float = 0.0,
        rerank: Rerank | None = None,
        scoring: Scoring | None = None,
        extra: str = "",
        extra_weight: float = 0.4,
    ) -> list[Hit]:
        """Top `k` live documents for `query`, best first; lexical scores are in 0..1.

        `rerank` turns the lexical scores of every slot (and their stamps) into final
        scores, so time-aware ranking sees the whole index, not a truncated top list.
        `scoring` overrides the index's default for this query (both use the same
        postings). `extra` is text whose terms count `extra_weight` times as much as the
        query's own (query expansion: synonyms, translations).
        """
        if k <= 0:
            return []
        self._ensure_loaded()
        hashes, qtf, _ = hash_terms(tokenize(query))
        mult = np.ones(hashes.size)
        if extra:
            more, more_tf, _ = hash_terms(tokenize(extra))
            hashes = np.concatenate([hashes, more])
            qtf = np.concatenate([qtf, more_tf])
            mult = np.concatenate([mult, np.full(more.size, extra_weight)])
        with self._lock:
            scores = self._score(hashes, qtf, mult, scoring or self.scoring)
            if rerank is not None:
                n = len(self._ids)
                if scores is None:
                    scores = np.zeros(n, dtype=np.float64)
                scores = np.asarray(rerank(scores, self._stamp[:n].copy()), dtype=np.float64)
                scores = scores * self._alive[:n]
            if scores is None:
                return []
            return self._top(scores, k, min_score)

    def _postings(self, f: int) -> tuple[np.ndarray, np.ndarray]:
        i = int(np.searchsorted(self._feats, f))
        parts_s: list[np.ndarray] = []
        parts_t: list[np.ndarray] = []
        if i < self._feats.size and self._feats[i] == f:
            lo, hi = self._ptr[i], self._ptr[i + 1]
            parts_s.append(self._slots[lo:hi])
            parts_t.append(self._tfs[lo:hi])
        extra = self._pending.get(f)
        if extra is not None:
            parts_s.append(np.asarray(extra[0], dtype=np.int32))
            parts_t.append(np.asarray(extra[1], dtype=np.uint16))
        if not parts_s:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint16)
        if len(parts_s) == 1:
            return parts_s[0], parts_t[0]
        return np.concatenate(parts_s), np.concatenate(parts_t)

    def _score(
        self, hashes: np.ndarray, qtf: np.ndarray, mult: np.ndarray, scoring: Scoring
    ) -> np.ndarray | None:
        n_slots = len(self._ids)
        if not hashes.size or not self._n_alive:
            return None
        feats = hashes & self._mask
        feats, inverse = np.unique(feats, return_inverse=True)
        qtf = np.bincount(inverse, weights=qtf).astype(np.float64)
        weight = np.zeros(feats.size)
        np.maximum.at(weight, inverse, mult)  # a term both asked and expanded counts fully
        df = self._df[feats].astype(np.float64)
        n = float(self._n_alive)
        all_slots: list[np.ndarray] = []
        all_w: list[np.ndarray] = []
        if scoring == "bm25":
            idf = np.log1p((n - df + 0.5) / (df + 0.5))
            # Query term repetition counts, saturated like a document's.
            qw = idf * (qtf * (self.k1 + 1) / (qtf + self.k1)) * weight
            best = float(qw.sum())  # a document matching every term with huge tf
            avgdl = max(self._total_len / n, 1.0)
            for f, w in zip(feats.tolist(), qw.tolist(), strict=True):
                if w <= 0:
                    continue
                slots, tfs = self._postings(f)
                if not slots.size:
                    continue
                tf = tfs.astype(np.float32)
                norm = self.k1 * (1 - self.b + self.b * self._len[slots] / avgdl)
                all_slots.append(slots)
                all_w.append(w * tf / (tf + norm))
        else:
            idf = np.log((1 + n) / (1 + df)) + 1.0
            q = (1.0 + np.log(qtf)) * idf * weight
            q /= float(np.sqrt(q @ q)) or 1.0
            best = 1.0
            for f, w in zip(feats.tolist(), q.tolist(), strict=True):
                slots, tfs = self._postings(f)
                if not slots.size:
                    continue
                all_slots.append(slots)
                all_w.append(w * (1.0 + np.log(tfs.astype(np.float32))) / self._norm[slots])
        if not all_slots or best <= 0:
            return None
        slots = np.concatenate(all_slots)
        weights = np.concatenate(all_w)
        scores = np.bincount(slots, weights=weights, minlength=n_slots).astype(np.float64)
        scores *= self._alive[:n_slots]
        scores /= best
        return scores

    def _top(self, scores: np.ndarray, k: int, min_score: float) -> list[Hit]:
        candidates = np.flatnonzero(scores > max(min_score, 0.0) - 1e-12)
        candidates = candidates[scores[candidates] > 0]
        if not candidates.size:
            return []
        if candidates.size > k:
            part = np.argpartition(-scores[candidates], k - 1)[:k]
            # Ties at the cut: keep every candidate scoring the k-th best, ordered by slot.
            kth = scores[candidates[part]].min()
            candidates = candidates[scores[candidates] >= kth]
        # Best first; equal scores in insertion order, so results are reproducible.
        order = np.lexsort((candidates, -scores[candidates]))[:k]
        return [Hit(self._ids[s], round(float(scores[s]), 6)) for s in candidates[order]]


async def index_counts(db: Database) -> list[Any]:
    """Per index namespace: (namespace, documents, total terms) rows."""
    return list(await db.fetchall(
        "SELECT namespace, COUNT(*), SUM(length) FROM vector_terms GROUP BY namespace ORDER BY namespace"
    ))
