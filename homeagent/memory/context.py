"""L1 working context: the exchanges the prompt carries, kept by relevance, not age.

Each entry's term vector (sublinear term frequencies of the shared tokenizer's terms) is
computed once, on append, and cached. After every answer `prune(answer)` ranks the entries
by TF-IDF cosine to the answer, always keeps the last `keep_last` exchanges (turns), keeps
the best until `top_k` entries are kept, and hands the rest to the `archive` callback (the
document store), then forgets them. Archiving comes first: if it fails, the entries stay
in the context, so nothing is lost.

Each entry belongs to the member whose exchange it is ("" = shared; see
homeagent.members). Owners are pruned apart: `prune(answer, member)` ranks and archives
only that owner's entries, so one member's talk never pushes out another's, and each
owner keeps up to `top_k`. With no members everything is "" and there is one pool.

The entries are mirrored to SQLite (`memory_context`), so a restart resumes the same
context. IDF comes from a function passed in (a `VectorIndex.idf` over the archive) or,
without one, from the context's own entries.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio

from homeagent.clock import Clock, SystemClock
from homeagent.log import get_logger
from homeagent.members import visible_to
from homeagent.store.db import Database
from homeagent.text import tokenize

log = get_logger("homeagent.memory.context")


@dataclass(frozen=True)
class ContextEntry:
    seq: int
    turn_id: str
    role: str
    content: str
    member: str
    created_at: float
    # term -> 1 + ln(tf): the cached vector, before IDF weighting.
    terms: dict[str, float] = field(default_factory=dict, compare=False, repr=False)


ArchiveFn = Callable[[Sequence[ContextEntry]], Awaitable[None]]
IdfFn = Callable[[str], float]


def term_vector(text: str) -> dict[str, float]:
    return {t: 1.0 + math.log(n) for t, n in Counter(tokenize(text)).items()}


def _weighted(terms: dict[str, float], idf: IdfFn) -> dict[str, float]:
    return {t: w * idf(t) for t, w in terms.items()}


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if not a or not b:
        return 0.0
    if len(a) > len(b):
        a, b = b, a
    dot = sum(w * b.get(t, 0.0) for t, w in a.items())
    if dot == 0.0:
        return 0.0
    na = math.sqrt(sum(w * w for w in a.values()))
    nb = math.sqrt(sum(w * w for w in b.values()))
    return dot / (na * nb)


class RelevanceContext:
    def __init__(
        self,
        db: Database,
        *,
        top_k: int = 30,
        keep_last: int = 3,
        archive: ArchiveFn | None = None,
        idf: IdfFn | None = None,
        clock: Clock | None = None,
    ):
        if top_k < 1 or keep_last < 0:
            raise ValueError("top_k must be at least 1 and keep_last at least 0")
        self.db = db
        self.top_k = top_k
        self.keep_last = keep_last
        self.archive = archive
        self.idf = idf
        self.clock = clock or SystemClock()
        self._entries: list[ContextEntry] = []
        self._lock = anyio.Lock()

    async def load(self) -> None:
        """Resume the context the database holds (vectors are recomputed once here)."""
        rows = await self.db.fetchall(
            "SELECT seq, turn_id, role, content, member, created_at FROM memory_context ORDER BY seq"
        )

        def build() -> list[ContextEntry]:
            return [
                ContextEntry(int(r[0]), r[1], r[2], r[3], r[4], float(r[5]), term_vector(r[3]))
                for r in rows
            ]

        self._entries = await anyio.to_thread.run_sync(build)

    def entries(self, reader: str | None = None) -> list[ContextEntry]:
        """The kept entries `reader` may see (their own and the shared; None: all),
        oldest first, for the prompt."""
        if reader is None:
            return list(self._entries)
        return [e for e in self._entries if visible_to(e.member, reader)]

    def _pool(self, member: str | None) -> list[ContextEntry]:
        """The entries one prune ranks: `member`'s own (None: every entry)."""
        if member is None:
            return self._entries
        return [e for e in self._entries if e.member == member]

    def __len__(self) -> int:
        return len(self._entries)

    async def append(self, role: str, content: str, turn_id: str, member: str = "") -> ContextEntry:
        created = self.clock.now().timestamp()
        terms = term_vector(content)
        async with self._lock:
            seq = await self.db.execute(
                "INSERT INTO memory_context(turn_id, role, content, member, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (turn_id, role, content, member, created),
            )
            entry = ContextEntry(seq, turn_id, role, content, member, created, terms)
            self._entries.append(entry)
        return entry

    async def forget(self, turn_id: str, role: str | None = None) -> int:
        """Remove the entries of one exchange (only `role`'s when given); returns how
        many were removed."""

        def gone(e: ContextEntry) -> bool:
            return e.turn_id == turn_id and (role is None or e.role == role)

        async with self._lock:
            if role is None:
                await self.db.execute("DELETE FROM memory_context WHERE turn_id = ?", (turn_id,))
            else:
                await self.db.execute(
                    "DELETE FROM memory_context WHERE turn_id = ? AND role = ?", (turn_id, role)
                )
            before = len(self._entries)
            self._entries = [e for e in self._entries if not gone(e)]
            return before - len(self._entries)

    async def forget_message(self, message: Any) -> dict[str, int]:
        """A forgetter for the app: drops the context entry of a forgotten message
        (anything with `turn_id` and `role`)."""
        return {"context_entries": await self.forget(message.turn_id, message.role)}

    def rank(
        self, answer_text: str, member: str | None = None
    ) -> list[tuple[ContextEntry, float]]:
        """Every entry of `member` (None: all) with its cosine to the answer (TF-IDF),
        in context order."""
        pool = self._pool(member)
        answer = term_vector(answer_text)
        idf = self.idf or self._own_idf(answer, pool)
        a = _weighted(answer, idf)
        return [(e, cosine(_weighted(e.terms, idf), a)) for e in pool]

    def _own_idf(self, answer: dict[str, float], pool: Sequence[ContextEntry]) -> IdfFn:
        docs = [e.terms for e in pool] + [answer]
        df: Counter[str] = Counter(t for d in docs for t in d)
        n = len(docs)
        return lambda t: math.log((1 + n) / (1 + df.get(t, 0))) + 1.0

    def plan(
        self, answer_text: str, member: str | None = None
    ) -> tuple[list[ContextEntry], list[ContextEntry]]:
        """(kept, archived) for `answer_text`, both in context order; changes nothing.
        Only `member`'s entries (None: all) can be archived; the others are kept."""
        pool = self._pool(member)
        turns = list(dict.fromkeys(e.turn_id for e in reversed(pool)))
        protected = set(turns[: self.keep_last])
        scored = self.rank(answer_text, member)
        kept_seqs = {e.seq for e, _ in scored if e.turn_id in protected}
        room = self.top_k - len(kept_seqs)
        others = [(e, s) for e, s in scored if e.turn_id not in protected]
        # Best first; among equals, the newer entry stays.
        others.sort(key=lambda es: (-es[1], -es[0].seq))
        kept_seqs.update(e.seq for e, _ in others[: max(0, room)])
        archived_seqs = {e.seq for e in pool} - kept_seqs
        kept = [e for e in self._entries if e.seq not in archived_seqs]
        archived = [e for e in self._entries if e.seq in archived_seqs]
        return kept, archived

    async def prune(self, answer_text: str, member: str | None = None) -> list[ContextEntry]:
        """Keep the most relevant entries of `member` (None: of all); archive and
        return the rest of them."""
        async with self._lock:
            if len(self._pool(member)) <= self.top_k:
                return []
            kept, archived = await anyio.to_thread.run_sync(self.plan, answer_text, member)
            if not archived:
                return []
            if self.archive is not None:
                # First into L2, then out of L1: a failure leaves them here, not lost.
                await self.archive(archived)
            seqs = [(e.seq,) for e in archived]

            def delete(c: sqlite3.Connection) -> None:
                c.executemany("DELETE FROM memory_context WHERE seq = ?", seqs)

            await self.db.write(delete)
            self._entries = kept
        log.info("memory.context.pruned", kept=len(kept), archived=len(archived))
        return archived


def archive_to_documents(store: Any, *, source: str = "context") -> ArchiveFn:
    """An `archive` callback that commits pruned entries to a `DocumentStore` (L2) with
    their full text; ids are `context-<seq>`, so archiving twice replaces, never doubles."""
    from homeagent.memory.documents import NewDocument

    async def archive(entries: Sequence[ContextEntry]) -> None:
        await store.commit([
            NewDocument(
                text=e.content,
                id=f"context-{e.seq}",
                tags=("context", e.role),
                source=source,
                member=e.member,
                created_at=datetime.fromtimestamp(e.created_at, UTC),
            )
            for e in entries
        ])  # fmt: skip

    return archive
