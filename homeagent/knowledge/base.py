"""The knowledge base: files under knowledge/<topic>/, their chunks, and search over them.

The files are the source of truth. `KnowledgeBase` keeps two things in SQLite: per file
its content hash (table `knowledge_files`), per chunk its topic, heading path and text
(`knowledge_chunks`), and the chunk vectors in the shared `VectorIndex` (namespace
"knowledge"). A file's rows and its vectors are written in one transaction (through
`VectorIndex.commit_sync`), so the table and the index never disagree after a crash.

Syncing is incremental: a file whose size and mtime are unchanged is not read; one whose
bytes hash the same is not re-chunked; a changed file replaces its chunks (a chunk id is
`<path>#<hash of heading and text>`, so chunks an edit did not touch keep their vectors);
a vanished file loses its chunks. A file that is not UTF-8 text, too large or unreadable
is skipped with one warning (and its old chunks, if any, are dropped). Every mutation runs
in a worker thread under one lock: scans, watcher events, `create` and uploads never
interleave.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio

from homeagent.errors import StartupError
from homeagent.knowledge.chunker import DEFAULT_MAX_TOKENS, Chunk
from homeagent.knowledge.files import (
    BadFile,
    NameTaken,
    TooLarge,
    clean_filename,
    clean_topic,
    decode_text,
    slugify,
    write_atomic,
)
from homeagent.knowledge.query import focus_query
from homeagent.knowledge.scan import Known, Plan, Scanner
from homeagent.log import get_logger
from homeagent.memory.vector import VectorIndex
from homeagent.store.db import Database
from homeagent.text import estimate_tokens

log = get_logger("homeagent.knowledge")

NAMESPACE = "knowledge"
DEFAULT_MAX_FILE_BYTES = 1_048_576
COMMIT_BATCH_FILES = 50


@dataclass(frozen=True)
class KnowledgeHit:
    id: str
    topic: str
    path: str  # relative to the knowledge dir, '/'-separated
    heading: tuple[str, ...]
    text: str
    score: float

    def label(self) -> str:
        return " › ".join((self.topic, *self.heading))


@dataclass(frozen=True)
class TopicInfo:
    name: str
    files: int
    chunks: int


@dataclass(frozen=True)
class SyncReport:
    indexed: tuple[str, ...] = ()  # files (re-)chunked
    removed: tuple[str, ...] = ()  # files whose chunks were dropped
    skipped: tuple[tuple[str, str], ...] = ()  # (file, reason)
    unchanged: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.indexed or self.removed)


@dataclass(frozen=True)
class SavedFile:
    topic: str
    path: str
    chunks: int
    bytes: int
    replaced: bool


def chunk_ids(path: str, chunks: Sequence[Chunk]) -> list[str]:
    """Stable ids: the file path and a hash of the chunk, numbered when a file repeats one."""
    seen: dict[str, int] = {}
    ids = []
    for chunk in chunks:
        digest = hashlib.sha1(
            json.dumps([chunk.heading, chunk.text], ensure_ascii=False).encode("utf-8")
        ).hexdigest()[:12]
        n = seen.get(digest, 0) + 1
        seen[digest] = n
        ids.append(f"{path}#{digest}" + (f"-{n}" if n > 1 else ""))
    return ids


class KnowledgeBase:
    """Scan, index, search and extend the knowledge directory."""

    def __init__(
        self,
        root: Path,
        db: Database,
        *,
        index: VectorIndex | None = None,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        chunk_tokens: int = DEFAULT_MAX_TOKENS,
        prompt_min_score: float = 0.15,
        prompt_k: int = 3,
        before_write: Callable[[Path, str], object] | None = None,
    ):
        # Absolute, so paths from the watcher and from os.walk compare as equals.
        self.root = Path(root).absolute()
        self.db = db
        self._before_write = before_write
        self.index = index if index is not None else VectorIndex(db, NAMESPACE)
        self.max_file_bytes = max_file_bytes
        self.chunk_tokens = chunk_tokens
        self.prompt_min_score = prompt_min_score
        self.prompt_k = prompt_k
        self._scanner = Scanner(self.root, max_file_bytes=max_file_bytes, chunk_tokens=chunk_tokens)
        self._lock = anyio.Lock()

    # -- lifecycle ----------------------------------------------------------------------

    async def open(self) -> SyncReport:
        """Create the directory if needed, load the index, repair it, and sync every file."""
        await anyio.to_thread.run_sync(self._ensure_root)
        await self.index.load()
        async with self._lock:
            await anyio.to_thread.run_sync(self._reconcile_sync)
        return await self.sync()

    def _ensure_root(self) -> None:
        if self.root.exists() and not self.root.is_dir():
            raise StartupError(
                f"knowledge dir {self.root} is not a directory (check knowledge.dir)"
            )
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StartupError(
                f"knowledge dir {self.root} cannot be created: {err.strerror or err} "
                "(set knowledge.dir to a writable folder)"
            ) from err

    def _reconcile_sync(self) -> None:
        """Make the index hold exactly the stored chunks (after a restore or manual edit)."""
        rows = self.db.read_sync(
            lambda c: c.execute("SELECT id, heading, text FROM knowledge_chunks").fetchall()
        )
        stored = {r["id"]: _index_text(json.loads(r["heading"]), r["text"]) for r in rows}
        indexed = set(self.index.ids())
        missing = [(i, t) for i, t in stored.items() if i not in indexed]
        extra = [i for i in indexed if i not in stored]
        if not missing and not extra:
            return
        docs = self.index.prepare(missing)

        def write(conn: sqlite3.Connection) -> None:
            self.index.delete_rows(conn, extra)
            self.index.write_rows(conn, docs)

        self.index.commit_sync(write, add=docs, remove=extra)
        log.warning("knowledge.index.repaired", added=len(missing), removed=len(extra))

    # -- syncing files --------------------------------------------------------------------

    async def sync(self, paths: Iterable[Path] | None = None) -> SyncReport:
        """Bring the index in line with the files; `paths` limits the work to those
        files or folders (added, changed or deleted); None means the whole directory."""
        targets = [self.root] if paths is None else [Path(p) for p in paths]
        async with self._lock:
            return await anyio.to_thread.run_sync(self._sync_sync, targets)

    def _sync_sync(self, targets: list[Path]) -> SyncReport:
        started = time.monotonic()
        known = {
            r["path"]: Known(r["sha256"], r["size"], r["mtime"])
            for r in self.db.read_sync(
                lambda c: c.execute(
                    "SELECT path, sha256, size, mtime FROM knowledge_files"
                ).fetchall()
            )
        }
        plan = self._scanner.plan(targets, known)
        added = removed = 0
        # Commit in batches of files: a first scan of a big directory must not hold the
        # database's one writer for seconds while chats wait to be saved.
        for start in range(0, max(len(plan.updates), 1), COMMIT_BATCH_FILES):
            first = start == 0
            batch = Plan(
                updates=plan.updates[start : start + COMMIT_BATCH_FILES],
                touches=plan.touches if first else [],
                deletes=plan.deletes if first else [],
            )
            a, r = self._commit(batch)
            added, removed = added + a, removed + r
        report = SyncReport(
            indexed=tuple(u.path for u in plan.updates),
            removed=tuple(plan.deletes),
            skipped=tuple(plan.skipped),
            unchanged=plan.unchanged,
            chunks_added=added,
            chunks_removed=removed,
        )
        if report.changed or report.skipped:
            log.info(
                "knowledge.sync.finished",
                indexed=len(report.indexed),
                removed=len(report.removed),
                skipped=len(report.skipped),
                unchanged=report.unchanged,
                chunks_added=added,
                chunks_removed=removed,
                duration_ms=round((time.monotonic() - started) * 1000, 1),
            )
        return report

    def _commit(self, plan: Plan) -> tuple[int, int]:
        """Write the plan's rows and vectors in one transaction; (chunks added, removed)."""
        if not (plan.updates or plan.touches or plan.deletes):
            return 0, 0
        paths = [u.path for u in plan.updates] + plan.deletes
        old_ids: dict[str, set[str]] = {p: set() for p in paths}

        def read_old(conn: sqlite3.Connection) -> None:
            for p in paths:
                old_ids[p].update(
                    r[0]
                    for r in conn.execute("SELECT id FROM knowledge_chunks WHERE path = ?", (p,))
                )

        self.db.read_sync(read_old)
        rows: list[tuple[str, str, str, int, str, str]] = []
        add: list[tuple[str, str]] = []
        remove: set[str] = set()
        for u in plan.updates:
            ids = chunk_ids(u.path, u.chunks)
            for cid, chunk in zip(ids, u.chunks, strict=True):
                heading = json.dumps(chunk.heading, ensure_ascii=False)
                rows.append((cid, u.path, u.topic, chunk.ordinal, heading, chunk.text))
                if cid not in old_ids[u.path]:
                    add.append((cid, chunk.index_text()))
            remove |= old_ids[u.path] - set(ids)
        for rel in plan.deletes:
            remove |= old_ids[rel]
        docs = self.index.prepare(add)
        now = time.time()

        def write(conn: sqlite3.Connection) -> None:
            for rel in plan.deletes:
                conn.execute("DELETE FROM knowledge_chunks WHERE path = ?", (rel,))
                conn.execute("DELETE FROM knowledge_files WHERE path = ?", (rel,))
            for u in plan.updates:
                conn.execute(
                    "INSERT INTO knowledge_files(path, topic, sha256, size, mtime, indexed_at)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET"
                    " topic = excluded.topic, sha256 = excluded.sha256, size = excluded.size,"
                    " mtime = excluded.mtime, indexed_at = excluded.indexed_at",
                    (u.path, u.topic, u.sha256, u.size, u.mtime, now),
                )
                conn.execute("DELETE FROM knowledge_chunks WHERE path = ?", (u.path,))
            conn.executemany(
                "INSERT INTO knowledge_chunks(id, path, topic, ordinal, heading, text)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            conn.executemany(
                "UPDATE knowledge_files SET size = ?, mtime = ? WHERE path = ?",
                [(size, mtime, rel) for rel, size, mtime in plan.touches],
            )
            self.index.delete_rows(conn, sorted(remove))
            self.index.write_rows(conn, docs)

        self.index.commit_sync(write, add=docs, remove=sorted(remove))
        for rel in plan.deletes:
            log.info("knowledge.file.removed", path=rel, chunks=len(old_ids[rel]))
        for u in plan.updates:
            log.info("knowledge.file.indexed", path=u.path, chunks=len(u.chunks))
        return len(docs), len(remove)

    # -- reading --------------------------------------------------------------------------

    async def search(
        self, query: str, k: int = 5, *, topic: str | None = None, min_score: float = 0.0
    ) -> list[KnowledgeHit]:
        """The `k` chunks that best match `query`, best first (scores 0..1).

        Function words are dropped first (see `focus_query`); a query of nothing else
        ("how are you") finds nothing."""
        focused = focus_query(query)
        if k <= 0 or not focused:
            return []
        return await self._search(focused, k, topic, min_score)

    async def _search(
        self, query: str, k: int, topic: str | None, min_score: float
    ) -> list[KnowledgeHit]:
        # Over-fetch when filtering by topic: other topics' hits are dropped afterwards.
        fetch = k * 5 + 10 if topic else k
        hits = await self.index.search(query, fetch, min_score=min_score)
        if not hits:
            return []
        ids = [h.id for h in hits]

        def rows(conn: sqlite3.Connection) -> dict[str, sqlite3.Row]:
            marks = ",".join("?" * len(ids))
            cur = conn.execute(
                f"SELECT id, topic, path, heading, text FROM knowledge_chunks WHERE id IN ({marks})",
                ids,
            )
            return {r["id"]: r for r in cur}

        found = await self.db.read(rows)
        wanted = topic.casefold() if topic else None
        out: list[KnowledgeHit] = []
        for hit in hits:
            row = found.get(hit.id)
            if row is None or (wanted and row["topic"].casefold() != wanted):
                continue
            out.append(
                KnowledgeHit(
                    hit.id,
                    row["topic"],
                    row["path"],
                    tuple(json.loads(row["heading"])),
                    row["text"],
                    hit.score,
                )
            )
            if len(out) == k:
                break
        return out

    async def topics(self) -> list[TopicInfo]:
        """Every topic folder (empty ones too) with its indexed file and chunk counts."""

        def counts(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
            cur = conn.execute(
                "SELECT f.topic, COUNT(DISTINCT f.path), COUNT(c.id) FROM knowledge_files f"
                " LEFT JOIN knowledge_chunks c ON c.path = f.path GROUP BY f.topic"
            )
            return {r[0]: (r[1], r[2]) for r in cur}

        indexed = await self.db.read(counts)

        def folders() -> list[str]:
            try:
                return [
                    p.name for p in self.root.iterdir() if p.is_dir() and not p.name.startswith(".")
                ]
            except OSError:
                return []

        names = set(indexed) | set(await anyio.to_thread.run_sync(folders))
        return [TopicInfo(n, *indexed.get(n, (0, 0))) for n in sorted(names)]

    async def prompt_section(self, query: str, budget_tokens: int) -> str:
        """Knowledge hits for the prompt, best first, within `budget_tokens` (estimated).

        Only hits scoring at least `prompt_min_score` are shown, so small talk pulls in
        nothing; the last hit that fits only in part is cut at the budget."""
        focused = focus_query(query)
        if budget_tokens <= 0 or not focused:
            return ""
        hits = await self._search(focused, self.prompt_k, None, self.prompt_min_score)
        parts: list[str] = []
        used = 0
        for hit in hits:
            entry = f"[{hit.label()}]\n{hit.text}"
            cost = estimate_tokens(entry) + 1
            if used + cost <= budget_tokens:
                parts.append(entry)
                used += cost
                continue
            room = budget_tokens - used - 1
            if room >= 16:
                parts.append(_truncate(entry, room))
            break
        return "\n\n".join(parts)

    # -- writing --------------------------------------------------------------------------

    async def create(self, topic: str, title: str, content: str) -> SavedFile:
        """Write new knowledge as knowledge/<topic>/<slug>.md and index it at once.

        Never replaces a file: a taken name gets a numeric suffix."""
        clean_title = " ".join(title.split())
        if not clean_title:
            raise BadFile("title is empty: give the knowledge a short title")
        body = content.strip()
        if not body:
            raise BadFile("content is empty: write the knowledge itself in content")
        first = body.split("\n", 1)[0]
        text = (body if first.startswith("# ") else f"# {clean_title}\n\n{body}") + "\n"
        self._check_size(len(text.encode("utf-8")))
        topic_name = clean_topic(topic)
        async with self._lock:
            return await anyio.to_thread.run_sync(
                self._create_sync, topic_name, slugify(clean_title), text
            )

    def _create_sync(self, topic: str, slug: str, text: str) -> SavedFile:
        folder = self._topic_dir(topic)
        n = 1
        while True:
            target = folder / (f"{slug}.md" if n == 1 else f"{slug}-{n}.md")
            if not target.exists():
                break
            n += 1
        return self._save_sync(target, text, replaced=False)

    async def save_upload(
        self, topic: str, filename: str, data: bytes, *, overwrite: bool = False
    ) -> SavedFile:
        """Store an uploaded text file as knowledge/<topic>/<filename> and index it.

        Raises BadFile (or NotText, TooLarge, NameTaken) naming the problem."""
        self._check_size(len(data))
        name = clean_filename(filename)
        topic_name = clean_topic(topic)
        text = decode_text(data, name=name)
        if not text.strip():
            raise BadFile(f"{name} is empty: upload a file with some text in it")
        async with self._lock:
            return await anyio.to_thread.run_sync(
                self._upload_sync, topic_name, name, text, overwrite
            )

    def _upload_sync(self, topic: str, name: str, text: str, overwrite: bool) -> SavedFile:
        target = self._topic_dir(topic) / name
        exists = target.exists()
        if exists and target.is_dir():
            raise NameTaken(f"{topic}/{name} is a folder; choose another file name")
        if exists and not overwrite:
            raise NameTaken(
                f"{topic}/{name} already exists; choose another name or ask to overwrite it"
            )
        return self._save_sync(target, text, replaced=exists)

    def _check_size(self, size: int) -> None:
        if size > self.max_file_bytes:
            raise TooLarge(
                f"content is {size} bytes, over the limit of {self.max_file_bytes} bytes"
            )

    def _topic_dir(self, topic: str) -> Path:
        """The folder for `topic`, reusing an existing folder that differs only in case."""
        try:
            for entry in self.root.iterdir():
                if entry.is_dir() and entry.name.casefold() == topic.casefold():
                    return entry
        except OSError:
            pass
        return self.root / topic

    def _save_sync(self, target: Path, text: str, *, replaced: bool) -> SavedFile:
        # Names were validated already; this is a second line of defence.
        root = os.path.abspath(self.root)
        if (
            os.path.commonpath([root, os.path.abspath(target)]) != root
            or target.parent.parent != self.root
        ):
            raise BadFile(f"{target.name} would be written outside the knowledge directory")
        if self._before_write is not None:
            # Versioned before it changes (the change tracker); a failure stops the write.
            self._before_write(target, text)
        write_atomic(target, text)
        report = self._sync_sync([target])
        rel = self._scanner.rel(target) or target.name
        counted = self.db.read_sync(
            lambda c: c.execute(
                "SELECT COUNT(*) FROM knowledge_chunks WHERE path = ?", (rel,)
            ).fetchone()[0]
        )
        if report.skipped:
            raise BadFile(report.skipped[0][1])
        log.info("knowledge.file.saved", path=rel, replaced=replaced, chunks=counted)
        return SavedFile(rel.split("/", 1)[0], rel, counted, len(text.encode("utf-8")), replaced)


def _index_text(heading: Sequence[str], text: str) -> str:
    return Chunk(tuple(heading), text, 0).index_text()


def _truncate(text: str, budget: int) -> str:
    """The longest prefix of `text` within `budget` estimated tokens, marked as cut."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if estimate_tokens(text[:mid]) + 1 <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"
