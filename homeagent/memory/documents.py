"""L2 document memory: documents in SQLite, searched through a `VectorIndex`.

A document is a summary, its full text, tags, entities, a source, the member it belongs
to ("" = the household), a creation time and access statistics. Documents live in the
`documents` table (migration 4) of one namespace; each has a vector in the index
namespace `doc:<namespace>`, written in the same transaction as its row so a document
is never stored without its vector or the reverse.

Queries rank with BM25 plus time and query analysis (homeagent.memory.query): a time
expression in the question (上个月, last week, yesterday) is cut out of the text and
turned into a window that boosts documents written inside it (softly: people misplace
dates by a little); question words are dropped; household words are expanded into the
other language with a lower weight. Every document a query
returns has its access count and last access updated, which is what makes unread
documents "cold". Searches take a `reader`: a member finds their own documents and the
household's (see homeagent.members); None searches them all. `archive()` moves cold documents to `documents_archive` with every
column kept: archived text stays readable by id and through `search_archive()`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import sqlite3
import threading
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import anyio
import numpy as np

from homeagent.clock import Clock
from homeagent.log import get_logger, redact_text
from homeagent.memory.dense import DenseIndex, Embedder, Scored, quantize, script_of, top
from homeagent.memory.query import EXPANSION_WEIGHT, QueryPlanner
from homeagent.memory.timecues import TimeCue
from homeagent.memory.vector import Hit, Rerank, Scoring, VectorIndex
from homeagent.store.db import Database
from homeagent.text import normalize

log = get_logger("homeagent.memory.documents")

SUMMARY_CHARS = 120
_SENTENCE_END = re.compile(r"(?<=[。！？!?…])|(?<=[.])(?=\s)|\n")
_COLUMNS = (
    "doc_id, namespace, summary, text, tags, entities, source, member,"
    " created_at, updated_at, access_count, last_access"
)


@dataclass(frozen=True)
class Document:
    id: str
    namespace: str
    summary: str
    text: str
    tags: tuple[str, ...]
    entities: tuple[str, ...]
    source: str
    member: str
    created_at: datetime
    updated_at: datetime
    access_count: int
    last_access: datetime | None
    archived_at: datetime | None = None  # set for documents read from the archive


@dataclass(frozen=True)
class DocumentHit:
    document: Document
    score: float


@dataclass(frozen=True)
class NewDocument:
    """What a caller commits; missing fields are filled in by the store."""

    text: str
    id: str = ""  # "" = a new random id
    summary: str = ""  # "" = made from the text
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    source: str = ""
    member: str = ""
    created_at: datetime | None = None  # None = now


def summarize(text: str, limit: int = SUMMARY_CHARS) -> str:
    """The first sentence, at most `limit` characters (Chinese and English aware)."""
    text = re.sub(r"[ \t\r\f\v]+", " ", text).strip()
    first = next((s.strip() for s in _SENTENCE_END.split(text) if s.strip()), "")
    if len(first) <= limit:
        return first
    cut = first[:limit]
    # Latin text: end at a word boundary when one is near; CJK text has none to find.
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,，、;；:：") + "…"


def time_rerank(
    cue: TimeCue | None, now: datetime, *, has_terms: bool, floor: float = 0.001
) -> Rerank:
    """Combine lexical scores with the question's time window and a mild recency prior.

    Inside the window a document keeps its full score; outside it drops to 25 %, with a
    linear ramp over a margin of a quarter of the window (at least a day) because "last
    month" said on the 2nd may mean five weeks ago. A question that is only a time
    ("what did I say yesterday?") returns the window's documents, newest first; with
    words, the window's other documents come after every lexical match.
    """
    now_ts = now.timestamp()

    def rerank(scores: np.ndarray, stamps: np.ndarray) -> np.ndarray:
        # Only documents that matched, or sit near the window, can score: compute on those.
        hit = scores > 0
        if cue is not None:
            start, end = cue.start.timestamp(), cue.end.timestamp()
            margin = max((end - start) / 4, 86400.0)
            hit |= (stamps >= start - margin) & (stamps < end + margin)  # NaN: False
        idx = np.flatnonzero(hit)
        out = np.zeros_like(scores, dtype=np.float64)
        if not idx.size:
            return out
        lex, when = scores[idx], stamps[idx]
        known = ~np.isnan(when)
        age_days = np.where(known, np.maximum(now_ts - np.nan_to_num(when), 0.0) / 86400, 365.0)
        recency = np.exp(-age_days / 90.0)  # 1 today, 0.37 after three months
        if cue is None:
            out[idx] = lex * (0.95 + 0.05 * recency)
            return out
        outside = np.where(when < start, start - when, np.where(when >= end, when - end, 0.0))
        # NaN stamps compare false both ways, so `known` must zero them explicitly.
        inside = np.where(known, np.clip(1.0 - outside / margin, 0.0, 1.0), 0.0)
        by_time = inside * (0.5 + 0.5 * recency)
        if not has_terms:
            out[idx] = by_time
            return out
        # Documents of the window that share no word with the question still follow
        # every lexical match: "我昨天说了什么" has words, but none a document would share.
        out[idx] = lex * (0.25 + 0.75 * inside) * (0.95 + 0.05 * recency) + floor * by_time
        return out

    return rerank


# Hybrid ranking (dense retrieval on): reciprocal rank fusion (Cormack, Clarke and
# Büttcher 2009) of the lexical ranking, the dense ranking and, when the question names
# someone who spoke, that speaker's documents in dense order. k = 60 is the paper's
# constant, chosen there on other collections; nothing here was tuned on our evaluations.
FUSION_K = 60
FUSION_DEPTH = 50  # how deep each ranking is read
# With a min_score (the prompt's documents section), a document only the dense ranking
# found must stand out: its cosine at least this many standard deviations above the mean
# cosine of every document. e5's cosines crowd 0.7–0.85 whatever the question, so no
# absolute floor separates an answer from noise; two deviations is a principle, not a fit.
DENSE_Z = 2.0
EMBED_BATCH = 8  # documents per embedding call: a question waits for at most one batch
# Centre each writing system's cosines (DenseIndex.scores): decided on the household set.
LANGUAGE_CENTERING = True


def window_weight(cue: TimeCue | None, stamps: np.ndarray) -> np.ndarray:
    """The weight the question's time window gives each stamp: 1 inside, 0.25 outside,
    a linear ramp over a quarter of the window between (as `time_rerank`)."""
    if cue is None:
        return np.ones(stamps.shape, dtype=np.float32)
    start, end = cue.start.timestamp(), cue.end.timestamp()
    margin = max((end - start) / 4, 86400.0)
    known = ~np.isnan(stamps)
    when = np.nan_to_num(stamps)
    outside = np.where(when < start, start - when, np.where(when >= end, when - end, 0.0))
    inside = np.where(known, np.clip(1.0 - outside / margin, 0.0, 1.0), 0.0)
    return (0.25 + 0.75 * inside).astype(np.float32)


def speaker_keys(name: str) -> list[str]:
    """How a question may name a speaker: the name, and the given name alone for a
    three-character Chinese name (surname + given name: 王秀兰 → 秀兰) or the first word
    of a Latin name of several words (Rachel Green → rachel)."""
    key = normalize(name).strip()
    keys = [key] if key else []
    if re.fullmatch(r"[\u3400-\u9fff]{3}", key):
        keys.append(key[1:])
    elif " " in key:
        keys.append(key.split()[0])
    return keys


def _named(name: str, text: str) -> bool:
    """Whether `name` (a speaker) occurs in the normalised `text` as a word."""
    if not name:
        return False
    if re.search(r"[\u3400-\u9fff]", name):
        return name in text
    return re.search(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", text) is not None


def _ts(value: datetime) -> float:
    return value.timestamp()



def _dense_text(plan: Any, query: str) -> str:
    """What the model embeds for a question: the question without its time words."""
    return plan.cue.rest if plan.cue else query

class DocumentStore:
    """L2 documents of one namespace, with their vector index."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Clock,
        namespace: str = "documents",
        planner: QueryPlanner | None = None,
        embedder: Embedder | None = None,
    ):
        self.db = db
        self.clock = clock
        self.namespace = namespace
        self.planner = planner or QueryPlanner()
        self.index = VectorIndex(db, f"doc:{namespace}")
        self.archive_index = VectorIndex(db, f"docarchive:{namespace}")
        # Dense retrieval (homeagent.memory.dense), when an embedder is given: vectors of
        # live documents only; archived ones are searched lexically.
        self.dense = (
            DenseIndex(db, self.index.namespace, embedder, doc_namespace=namespace)
            if embedder is not None else None
        )  # fmt: skip
        self._dense_dirty = True  # documents may lack vectors: the backlog should look
        self._dense_lock = threading.Lock()  # orders vector writes against replacements
        self._query_pool: ThreadPoolExecutor | None = None

    async def load(self) -> None:
        await anyio.to_thread.run_sync(self.load_sync)

    def load_sync(self) -> None:
        self.index.load_sync()
        if self.dense is not None:
            self.dense.load_sync()
            self._dense_dirty = True

    # -- rows -------------------------------------------------------------------------

    def _doc(self, row: sqlite3.Row | Sequence[Any], archived: bool = False) -> Document:
        tz = self.clock.now().tzinfo

        def when(value: float | None) -> datetime | None:
            return None if value is None else datetime.fromtimestamp(value, tz)

        return Document(
            id=row[0],
            namespace=row[1],
            summary=row[2],
            text=row[3],
            tags=tuple(json.loads(row[4])),
            entities=tuple(json.loads(row[5])),
            source=row[6],
            member=row[7],
            created_at=when(row[8]),  # type: ignore[arg-type]
            updated_at=when(row[9]),  # type: ignore[arg-type]
            access_count=row[10],
            last_access=when(row[11]),
            archived_at=when(row[12]) if archived else None,
        )

    def fetch_sync(self, ids: Sequence[str], table: str = "documents") -> dict[str, Document]:
        """Documents by id from `documents` (or `documents_archive`); missing ids absent."""
        extra = ", archived_at" if table == "documents_archive" else ""
        out: dict[str, Document] = {}

        def read(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            rows: list[sqlite3.Row] = []
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rows += conn.execute(
                    f"SELECT {_COLUMNS}{extra} FROM {table}"
                    f" WHERE namespace = ? AND doc_id IN ({marks})",
                    (self.namespace, *chunk),
                ).fetchall()
            return rows

        for row in self.db.read_sync(read):
            out[row[0]] = self._doc(row, archived=bool(extra))
        return out

    # -- writes -----------------------------------------------------------------------

    async def commit(
        self, docs: Sequence[NewDocument], *, return_documents: bool = True
    ) -> list[Document]:
        return await anyio.to_thread.run_sync(
            lambda: self.commit_sync(docs, return_documents=return_documents)
        )

    async def add(self, text: str, **fields: Any) -> Document:
        """Commit one document; `fields` are those of `NewDocument`."""
        return (await self.commit([NewDocument(text=text, **fields)]))[0]

    def commit_sync(
        self, docs: Sequence[NewDocument], *, return_documents: bool = True
    ) -> list[Document]:
        """Store documents and their vectors in one transaction; an existing id is replaced
        (keeping its access statistics). Bulk loaders pass `return_documents=False` to
        skip reading the stored rows back (the result is then empty)."""
        now = _ts(self.clock.now())
        rows = []
        # Secrets are redacted at rest, with the rules of the run recorder and the logs.
        docs = [d if (clean := redact_text(d.text)) == d.text else dataclasses.replace(d, text=clean) for d in docs]
        for doc in docs:
            if not doc.text.strip():
                raise ValueError("a document needs non-empty text")
            doc_id = doc.id or uuid.uuid4().hex
            created = _ts(doc.created_at) if doc.created_at is not None else now
            rows.append((
                doc_id, self.namespace, doc.summary.strip() or summarize(doc.text), doc.text,
                json.dumps(list(doc.tags), ensure_ascii=False),
                json.dumps(list(doc.entities), ensure_ascii=False),
                doc.source, doc.member, created, now,
            ))  # fmt: skip
        # The vector covers the summary too, so a hand-written summary is searchable.
        vectors = self.index.prepare(
            [(r[0], f"{r[2]}\n{r[3]}" if r[2] not in r[3] else r[3]) for r in rows],
            [r[8] for r in rows],
        )

        def write(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "INSERT INTO documents(doc_id, namespace, summary, text, tags, entities, source,"
                " member, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(namespace, doc_id) DO UPDATE SET summary = excluded.summary,"
                " text = excluded.text, tags = excluded.tags, entities = excluded.entities,"
                " source = excluded.source, member = excluded.member,"
                " created_at = excluded.created_at, updated_at = excluded.updated_at",
                rows,
            )
            self.index.write_rows(conn, vectors)
            if self.dense is not None:
                # A replaced text's embedding is stale: the backlog embeds it again.
                self.dense.delete_rows(conn, [r[0] for r in rows])

        with self._dense_lock:
            self.index.commit_sync(write, add=vectors)
            if self.dense is not None:
                self.dense.remove([r[0] for r in rows])
                self._dense_dirty = True
        if not return_documents:
            return []
        stored = self.fetch_sync([r[0] for r in rows])
        return [stored[r[0]] for r in rows]

    async def share(self, ids: Sequence[str]) -> int:
        """Make documents the household's (member ""), live or archived; returns how many."""
        wanted = [(self.namespace, i) for i in dict.fromkeys(ids)]
        if not wanted:
            return 0

        def write(conn: sqlite3.Connection) -> int:
            return sum(
                conn.executemany(
                    f"UPDATE {table} SET member = '' WHERE namespace = ? AND doc_id = ?", wanted
                ).rowcount
                for table in ("documents", "documents_archive")
            )

        return await self.db.write(write)

    async def archive(self, ids: Sequence[str]) -> int:
        return await anyio.to_thread.run_sync(self.archive_sync, ids)

    def archive_sync(self, ids: Sequence[str]) -> int:
        """Move documents to the archive (every column kept); returns how many moved."""
        wanted = list(dict.fromkeys(ids))
        live = self.fetch_sync(wanted)
        if not live:
            return 0
        moved = [i for i in wanted if i in live]
        now = _ts(self.clock.now())
        vectors = self.archive_index.prepare(
            [(i, f"{live[i].summary}\n{live[i].text}") for i in moved],
            [_ts(live[i].created_at) for i in moved],
        )

        def write(conn: sqlite3.Connection) -> None:
            for doc_id in moved:
                conn.execute(
                    f"INSERT OR REPLACE INTO documents_archive({_COLUMNS}, archived_at)"
                    f" SELECT {_COLUMNS}, ? FROM documents WHERE namespace = ? AND doc_id = ?",
                    (now, self.namespace, doc_id),
                )
                conn.execute(
                    "DELETE FROM documents WHERE namespace = ? AND doc_id = ?",
                    (self.namespace, doc_id),
                )
            self.index.delete_rows(conn, moved)
            self.archive_index.write_rows(conn, vectors)
            if self.dense is not None:
                self.dense.delete_rows(conn, moved)

        # Both indexes change in one transaction; then each one's memory follows.
        with self._dense_lock:
            self.index.commit_sync(write, remove=moved)
            if self.dense is not None:
                self.dense.remove(moved)
        self.archive_index.commit_sync(None, add=vectors)
        log.info("memory.documents.archived", namespace=self.namespace, count=len(moved))
        return len(moved)

    async def delete(self, ids: Sequence[str]) -> int:
        return await anyio.to_thread.run_sync(self.delete_sync, ids)

    def delete_sync(self, ids: Sequence[str]) -> int:
        """Forget documents for good, live or archived (a user asked to forget them);
        returns how many were deleted. Archiving, not this, is how memory ages."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return 0
        archived = list(self.fetch_sync(wanted, "documents_archive"))

        def write(conn: sqlite3.Connection) -> int:
            deleted = 0
            for table in ("documents", "documents_archive"):
                deleted += conn.executemany(
                    f"DELETE FROM {table} WHERE namespace = ? AND doc_id = ?",
                    [(self.namespace, i) for i in wanted],
                ).rowcount
            self.index.delete_rows(conn, wanted)
            self.archive_index.delete_rows(conn, archived)
            if self.dense is not None:
                self.dense.delete_rows(conn, wanted)
            return deleted

        with self._dense_lock:
            deleted = self.index.commit_sync(write, remove=wanted)
            if self.dense is not None:
                self.dense.remove(wanted)
        if archived:
            self.archive_index.commit_sync(None, remove=archived)
        if deleted:
            log.info("memory.documents.deleted", namespace=self.namespace, count=deleted)
        return deleted if isinstance(deleted, int) else 0

    async def reindex(self, *, full: bool = False) -> int:
        return await anyio.to_thread.run_sync(lambda: self.reindex_sync(full=full))

    def reindex_sync(self, *, full: bool = False) -> int:
        """Bring the index in line with the documents; returns the number of documents
        indexed (every live document of the namespace).

        Vectors never go stale as the corpus grows (no refit), so the routine pass only
        repairs: documents without a vector get one, vectors without a document go, and
        the in-memory postings are compacted. `full=True` rebuilds every vector from its
        text (after a tokenizer change).
        """
        missing_sql = "" if full else (
            " AND doc_id NOT IN (SELECT doc_id FROM vector_terms WHERE namespace = ?)"
        )
        params = (self.namespace,) if full else (self.namespace, self.index.namespace)
        rows = self.db.read_sync(
            lambda c: c.execute(
                "SELECT doc_id, summary, text, created_at FROM documents WHERE namespace = ?"
                f"{missing_sql} ORDER BY created_at, doc_id",
                params,
            ).fetchall()
        )
        for start in range(0, len(rows), 2000):
            chunk = rows[start : start + 2000]
            vectors = self.index.prepare(
                [(r[0], f"{r[1]}\n{r[2]}" if r[1] not in r[2] else r[2]) for r in chunk],
                [r[3] for r in chunk],
            )
            self.index.commit_sync(functools.partial(self.index.write_rows, docs=vectors), add=vectors)
        orphans = self.db.read_sync(
            lambda c: [
                r[0]
                for r in c.execute(
                    "SELECT doc_id FROM vector_terms WHERE namespace = ? AND doc_id NOT IN"
                    " (SELECT doc_id FROM documents WHERE namespace = ?)",
                    (self.index.namespace, self.namespace),
                )
            ]
        )
        if orphans:
            self.index.remove_sync(orphans)
        self.index.compact_sync()
        if rows or orphans:
            log.info("memory.documents.reindexed", namespace=self.namespace, built=len(rows),
                     removed=len(orphans), full=full)
        return len(self.index)

    # -- reads ------------------------------------------------------------------------

    async def get(self, doc_id: str) -> Document | None:
        """A live or archived document by id (archived ones have `archived_at` set)."""
        return await anyio.to_thread.run_sync(self.get_sync, doc_id)

    def get_sync(self, doc_id: str) -> Document | None:
        found = self.fetch_sync([doc_id]) or self.fetch_sync([doc_id], "documents_archive")
        return found.get(doc_id)

    async def recent(self, *, reader: str | None, limit: int = 50, offset: int = 0) -> list[Document]:
        """Documents `reader` may see (their own and the shared; None: all), newest first."""
        seen = "1" if reader is None else "member IN ('', ?)"
        params: tuple[Any, ...] = () if reader is None else (reader,)

        def read(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            return conn.execute(
                "SELECT doc_id, namespace, summary, text, tags, entities, source, member, created_at,"
                f" updated_at, access_count, last_access FROM documents WHERE namespace = ? AND {seen}"
                " ORDER BY created_at DESC, doc_id LIMIT ? OFFSET ?",
                (self.namespace, *params, int(limit), int(offset)),
            ).fetchall()

        return [self._doc(r) for r in await self.db.read(read)]

    async def count(self) -> int:
        rows = await self.db.fetchall(
            "SELECT COUNT(*) FROM documents WHERE namespace = ?", (self.namespace,)
        )
        return int(rows[0][0])

    async def query(
        self,
        query: str,
        k: int = 5,
        *,
        now: datetime | None = None,
        min_score: float = 0.0,
        touch: bool = True,
        reader: str | None = None,
    ) -> list[DocumentHit]:
        return await anyio.to_thread.run_sync(
            lambda: self.query_sync(
                query, k, now=now, min_score=min_score, touch=touch, reader=reader
            )
        )

    def _visible_hits_sync(
        self, rank: Any, k: int, reader: str | None, table: str = "documents"
    ) -> tuple[list[Hit], dict[str, Document]]:
        """The top `k` hits of `rank(n)` whose documents `reader` may read, with them.
        Other members' documents are skipped, so the ranking is asked for more until `k`
        are found or it runs dry."""
        want = k if reader is None else k * 4
        while True:
            hits = rank(want)
            docs = self.fetch_sync([h.id for h in hits], table)
            if reader is not None:
                docs = {i: d for i, d in docs.items() if d.member in ("", reader)}
            found = [h for h in hits if h.id in docs]
            if reader is None or len(found) >= k or len(hits) < want:
                found = found[:k]
                return found, {h.id: docs[h.id] for h in found}
            want *= 4

    def query_sync(
        self,
        query: str,
        k: int = 5,
        *,
        now: datetime | None = None,
        min_score: float = 0.0,
        touch: bool = True,
        reader: str | None = None,
    ) -> list[DocumentHit]:
        """Top `k` documents `reader` may read for `query`, best first. `now` pins "now"
        for time expressions (default: the clock). `touch` updates the access statistics."""
        hits, docs = self._visible_hits_sync(
            lambda n: self.rank_sync(query, n, now=now, min_score=min_score), k, reader
        )
        if touch and docs:
            stamp = _ts(self.clock.now())
            self.db.write_sync(
                lambda conn: conn.executemany(
                    "UPDATE documents SET access_count = access_count + 1, last_access = ?"
                    " WHERE namespace = ? AND doc_id = ?",
                    [(stamp, self.namespace, doc_id) for doc_id in docs],
                )
            )
        return [DocumentHit(docs[h.id], h.score) for h in hits if h.id in docs]

    def rank_sync(
        self, query: str, k: int, *, now: datetime | None = None, min_score: float = 0.0,
        query_vector: np.ndarray | None = None,
    ) -> list[Hit]:
        """Ids and scores only (no row reads, no access update). With dense retrieval,
        `query_vector` is the question's embedding when the caller already has it."""
        now = now or self.clock.now()
        plan = self.planner.plan(query, now)
        rerank = time_rerank(plan.cue, now, has_terms=bool(plan.text))
        if self.dense is None or not len(self.dense) or not plan.text.strip():
            # Lexical only: no embeddings yet, or a question that is only a time.
            return self.index.search_sync(
                plan.text, k, min_score=min_score, rerank=rerank,
                extra=plan.expansion, extra_weight=EXPANSION_WEIGHT,
            )
        # The question's embedding and the dense scores are computed on another thread
        # while the lexical search runs here (both release the GIL in native code).
        pending = self._embed_thread().submit(self._dense_scores, _dense_text(plan, query), query_vector, plan.cue)
        depth = max(k, FUSION_DEPTH)
        lexical = self.index.search_sync(
            plan.text, depth, rerank=rerank, extra=plan.expansion, extra_weight=EXPANSION_WEIGHT,
        )
        try:
            scored, weighted = pending.result()
        except Exception as err:  # noqa: BLE001 - a failing model leaves lexical search working
            log.warning("memory.dense.query_failed", error=str(err))
            return [h for h in lexical if h.score >= min_score][:k]
        return self._fuse(query, lexical, scored, weighted, k, min_score)

    def _embed_thread(self) -> ThreadPoolExecutor:
        if self._query_pool is None:
            with self._dense_lock:
                if self._query_pool is None:
                    self._query_pool = ThreadPoolExecutor(1, thread_name_prefix="memory-embed")
        return self._query_pool

    def foresee(self, query: str) -> None:
        """Begin embedding `query` now, on the embedding thread, and return at once. A turn
        calls this as it arrives: the model is the slowest part of a search (5-8 ms for a
        question on the question encoder, 11-17 on the engine, against ~4 ms for the rest
        at 100k documents on a quiet AVX-512 box), and it then runs beside
        the intent step and the history instead of after them; the turn's search finds
        the vector in the embedder's cache, or waits for it behind this on the one thread."""
        if self.dense is None or not len(self.dense) or not self.dense.embedder.cache_size:
            return
        self._embed_thread().submit(self._foresee, query)

    def _foresee(self, query: str) -> None:
        assert self.dense is not None
        plan = self.planner.plan(query, self.clock.now())
        if not plan.text.strip():
            return  # a question that is only a time: searched without the model
        try:
            self.dense.embedder.query(_dense_text(plan, query))
        except Exception as err:  # noqa: BLE001 - the search itself says so if it fails again
            log.debug("memory.dense.foresee_failed", error=str(err))

    def _dense_scores(self, text: str, vector: np.ndarray | None, cue: TimeCue | None) -> tuple[Scored, np.ndarray]:
        """The dense search's scored documents and their cosines weighted by the
        question's time window."""
        assert self.dense is not None
        if vector is None:
            # (the embedder keeps recent questions' vectors: a reader's search asking
            # again for more hits, or the same question again, skips the model)
            vector = self.dense.embedder.query(text)
        scored = self.dense.ranked(vector, center=LANGUAGE_CENTERING)
        return scored, scored.cos * window_weight(cue, scored.stamps)

    def _fuse(
        self, query: str, lexical: list[Hit], scored: Scored, weighted: np.ndarray, k: int,
        min_score: float,
    ) -> list[Hit]:
        assert self.dense is not None
        depth = max(k, FUSION_DEPTH)
        ids = scored.ids
        rankings = [[h.id for h in lexical], [h.id for h in top(weighted, ids, depth)]]
        norm = normalize(query)
        for speaker in self.dense.speakers():
            if any(_named(key, norm) for key in speaker_keys(speaker)):
                mine = np.where(scored.speakers == self.dense.code_of(speaker), weighted, -np.inf)
                rankings.append([h.id for h in top(mine, ids, depth)])
        fused: dict[str, float] = {}
        for ranking in rankings:
            for rank, doc_id in enumerate(ranking[:depth]):
                fused[doc_id] = fused.get(doc_id, 0.0) + 1.0 / (FUSION_K + rank + 1)
        lex_score = {h.id: h.score for h in lexical}
        floor = np.inf
        position: dict[str, int] = {}
        if min_score > 0:
            if weighted.size > 1:
                floor = float(weighted.mean() + DENSE_Z * weighted.std())
            position = {doc_id: i for i, doc_id in enumerate(ids)}
        best = len(rankings) / (FUSION_K + 1)
        out = []
        for doc_id, score in sorted(fused.items(), key=lambda item: -item[1]):
            if min_score > 0 and lex_score.get(doc_id, 0.0) < min_score:
                # Found by meaning only: its cosine must stand out (a document the dense
                # search did not score, or added since, has none: skipped).
                i = position.get(doc_id)
                if i is None or weighted[i] < floor:
                    continue
            out.append(Hit(doc_id, round(score / best, 6)))
            if len(out) >= k:
                break
        return out

    def dense_rank_sync(self, query: str, k: int, *, now: datetime | None = None) -> list[Hit]:
        """The dense ranking alone (cosine; the question's time window applied), for
        evaluations. Empty when dense retrieval is off."""
        if self.dense is None:
            return []
        now = now or self.clock.now()
        cue = self.planner.plan(query, now).cue
        scored, weighted = self._dense_scores(cue.rest if cue else query, None, cue)
        return [Hit(h.id, round(h.score, 6)) for h in top(weighted, scored.ids, k)]

    # -- the embedding backlog -----------------------------------------------------------

    def embed_backlog_sync(self, limit: int | None = None, *, batch: int = EMBED_BATCH) -> int:
        """Embed live documents that have no vector yet, newest first, `batch` at a time;
        returns how many were embedded. Runs on a worker thread, never on a turn's path."""
        if self.dense is None:
            return 0
        self._dense_dirty = False
        done = 0
        while limit is None or done < limit:
            n = self._embed_batch(batch if limit is None else min(batch, limit - done))
            if not n:
                return done
            done += n
        self._dense_dirty = True  # stopped at the limit: there may be more
        return done

    def _embed_batch(self, n: int) -> int:
        """Embed up to `n` documents without a vector; returns how many were read."""
        dense = self.dense
        assert dense is not None
        rows = self.db.read_sync(
            lambda c: c.execute(
                "SELECT d.doc_id, d.summary, d.text, d.created_at, d.member FROM documents d"
                " WHERE d.namespace = ? AND NOT EXISTS (SELECT 1 FROM dense_vectors v"
                " WHERE v.namespace = ? AND v.doc_id = d.doc_id AND v.model = ?)"
                " ORDER BY d.created_at DESC, d.doc_id LIMIT ?",
                (self.namespace, dense.namespace, dense.embedder.model, n),
            ).fetchall()
        )
        if not rows:
            return 0
        vectors = dense.embedder.passages([f"{r[1]}\n{r[2]}" if r[1] not in r[2] else r[2] for r in rows])
        # A model that returns non-finite values gets a zero vector stored (cosine 0), so
        # the document is not retried forever.
        vectors = np.where(np.isfinite(vectors), vectors, 0.0).astype(np.float32)
        q, scale = quantize(vectors)
        scripts = [script_of(r[2]) for r in rows]
        wanted = {r[0]: (r[1], r[2]) for r in rows}

        def write(conn: sqlite3.Connection) -> list[int]:
            # A document replaced while it was being embedded keeps no stale vector.
            marks = ",".join("?" * len(wanted))
            current = {
                r[0]: (r[1], r[2]) for r in conn.execute(
                    f"SELECT doc_id, summary, text FROM documents WHERE namespace = ?"
                    f" AND doc_id IN ({marks})", (self.namespace, *wanted),
                )
            }  # fmt: skip
            keep = [i for i, r in enumerate(rows) if current.get(r[0]) == wanted[r[0]]]
            dense.write_rows(conn, [rows[i][0] for i in keep], q[keep], scale[keep],
                             [rows[i][3] for i in keep], [scripts[i] for i in keep])
            return keep

        with self._dense_lock:
            keep = self.db.write_sync(write)
            dense.apply([rows[i][0] for i in keep], q[keep], scale[keep],
                        [rows[i][3] for i in keep], [rows[i][4] for i in keep],
                        [scripts[i] for i in keep])
        return len(rows)

    async def dense_worker(self, *, idle: float = 1.0, limit: int = 64) -> None:
        """Embed the backlog in the background until cancelled (the memory service runs
        one). A failing model is logged and retried after a pause; lexical search is
        unaffected."""
        if self.dense is None:
            return
        while True:
            if self._dense_dirty:
                try:
                    await anyio.to_thread.run_sync(lambda: self.embed_backlog_sync(limit))
                    continue
                except Exception:  # noqa: BLE001 - the daemon outlives a failing model
                    log.exception("memory.dense.backlog_failed", namespace=self.namespace)
                    self._dense_dirty = True
                    await anyio.sleep(30.0)
                    continue
            await anyio.sleep(idle)

    def lexical_sync(self, query: str, k: int, *, scoring: Scoring = "bm25") -> list[Hit]:
        """Plain lexical ranking without time cues (for evaluations and comparisons)."""
        return self.index.search_sync(query, k, scoring=scoring)

    async def search_archive(
        self, query: str, k: int = 5, *, reader: str | None = None
    ) -> list[DocumentHit]:
        return await anyio.to_thread.run_sync(
            lambda: self.search_archive_sync(query, k, reader=reader)
        )

    def search_archive_sync(
        self, query: str, k: int = 5, *, reader: str | None = None
    ) -> list[DocumentHit]:
        hits, docs = self._visible_hits_sync(
            lambda n: self.archive_index.search_sync(query, n), k, reader, "documents_archive"
        )
        return [DocumentHit(docs[h.id], h.score) for h in hits]

    async def cold(
        self,
        now: datetime | None = None,
        idle_seconds: float = 72 * 3600,
        max_access: int = 2,
        *,
        limit: int | None = None,
    ) -> list[Document]:
        """Documents unread for `idle_seconds` (counting from creation when never read)
        and read at most `max_access` times, oldest first."""
        cutoff = _ts(now or self.clock.now()) - idle_seconds
        rows = await self.db.fetchall(
            f"SELECT {_COLUMNS} FROM documents WHERE namespace = ? AND access_count <= ?"
            " AND COALESCE(last_access, created_at) <= ?"
            " ORDER BY COALESCE(last_access, created_at), doc_id LIMIT ?",
            (self.namespace, max_access, cutoff, -1 if limit is None else limit),
        )
        return [self._doc(r) for r in rows]


async def namespace_counts(db: Database) -> tuple[list[Any], dict[str, int]]:
    """Per namespace: (namespace, documents, oldest, newest) rows, and archived counts."""
    live = await db.fetchall(
        "SELECT namespace, COUNT(*), MIN(created_at), MAX(created_at) FROM documents GROUP BY namespace"
    )
    rows = await db.fetchall("SELECT namespace, COUNT(*) FROM documents_archive GROUP BY namespace")
    return list(live), {r[0]: r[1] for r in rows}
