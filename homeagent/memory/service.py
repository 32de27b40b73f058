"""The three memory tiers as the agent sees them: one object the composition root opens.

`MemoryService` owns the working context (L1), the document store (L2), the graph with
its entity index (L3) and the JSONL text log, and gives the agent exactly what a turn
needs: the history for the prompt, prompt sections (the graph's node index and the top
document summaries), the memory tools, an after-turn hook (append, prune, log) and a
forgetter for messages the user wants gone. The heartbeat runs from here too.

Members are sealed here (the definition of what is shared is in homeagent.members):
the history, both prompt sections and the memory tools give the speaking member only
their own memories and the household's; an exchange is recorded as the member's, or as
shared when the member says it is for everyone, and then what was committed during that
turn (documents, facts) is shared too, as are the facts the heartbeat distils from it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from homeagent.clock import Clock
from homeagent.llm.base import Message, Provider
from homeagent.log import get_logger, redact_text
from homeagent.members import for_everyone
from homeagent.memory.context import ContextEntry, RelevanceContext
from homeagent.memory.dense import Embedder, resolve_mode
from homeagent.memory.documents import DocumentStore, NewDocument
from homeagent.memory.graph import GraphDB
from homeagent.memory.heartbeat import HeartbeatReport, HeartbeatSettings, run_heartbeat
from homeagent.memory.indexer import ENTITY_NAMESPACE, GraphIndexer
from homeagent.memory.textlog import TextMemory
from homeagent.memory.tools import document_tools, memory_tools
from homeagent.memory.vector import VectorIndex
from homeagent.store import Database
from homeagent.store.health import WriterHealth
from homeagent.text import estimate_tokens
from homeagent.tools.registry import ToolSpec

log = get_logger("homeagent.memory")

TEXT_LOG_FILE = "memory.jsonl"
_PENDING_TURNS = 64  # turns whose committed documents wait for the turn to be recorded


@dataclass(frozen=True)
class MemorySettings:
    context_top_k: int = 30
    context_keep_last: int = 3
    history_tokens: int = 1200  # of the working context replayed into the prompt
    graph_prompt_tokens: int = 300
    documents_prompt_tokens: int = 300
    documents_in_prompt: int = 3
    documents_min_score: float = 0.05
    heartbeat: HeartbeatSettings = HeartbeatSettings()
    dense: bool = False  # dense retrieval for documents (resolved from memory.dense)
    dense_threads: int = 1
    dense_query_threads: int = 1
    dense_fast_questions: bool = True


def memory_settings(config: Any) -> MemorySettings:
    """The memory section of the config as the service's settings."""
    m = config.memory
    return MemorySettings(
        context_top_k=m.context_top_k, context_keep_last=m.context_keep_last,
        history_tokens=m.history_tokens, graph_prompt_tokens=m.graph_prompt_tokens,
        documents_prompt_tokens=m.documents_prompt_tokens, documents_in_prompt=m.documents_in_prompt,
        heartbeat=HeartbeatSettings(
            cold_idle_seconds=m.cold_after, cold_max_access=m.cold_max_access,
            cold_batch=m.cold_batch, merge_threshold=m.merge_threshold, merge_limit=m.merge_limit,
            merge_incremental=m.merge_incremental, distill_batch=m.distill_batch,
            distill_max_records=m.distill_max_records, distill_timeout=m.distill_timeout,
            speaker=m.speaker,
        ),
        dense=resolve_mode(m.dense), dense_threads=m.dense_threads,
        dense_query_threads=m.dense_query_threads, dense_fast_questions=m.dense_fast_questions,
    )  # fmt: skip


def _turn_doc_id(turn_id: str, role: str) -> str:
    return f"turn-{turn_id}-{role}"


class MemoryService:
    def __init__(self, db: Database, data_dir: Path, clock: Clock, settings: MemorySettings):
        self.db = db
        self.clock = clock
        self.settings = settings
        self.graph = GraphDB(db, clock=clock)
        embedder = (
            Embedder(threads=settings.dense_threads,
                     query_threads=min(settings.dense_query_threads, os.cpu_count() or 1),
                     fast_questions=settings.dense_fast_questions)
            if settings.dense else None
        )  # fmt: skip
        self.documents = DocumentStore(db, clock=clock, embedder=embedder)
        self.indexer = GraphIndexer(self.graph, VectorIndex(db, ENTITY_NAMESPACE))
        self.context = RelevanceContext(
            db,
            top_k=settings.context_top_k,
            keep_last=settings.context_keep_last,
            archive=self._archive,
            clock=clock,
        )
        self.textlog = TextMemory(Path(data_dir) / TEXT_LOG_FILE, clock=clock)
        self.text_log_health = WriterHealth("text_log")
        self._text_pending: list[tuple[str, str, dict[str, Any]]] = []
        self.last_heartbeat: HeartbeatReport | None = None
        # Documents committed during a turn not yet recorded, by turn id.
        self._committed: dict[str, list[str]] = {}
        self._heartbeat_lock = anyio.Lock()

    @contextlib.asynccontextmanager
    async def opened(self) -> AsyncIterator[MemoryService]:
        async with self.textlog:
            await self.documents.load()
            await self.indexer.index.load()
            await self.context.load()
            yield self

    def tools(self) -> tuple[ToolSpec, ...]:
        return (
            *memory_tools(self.graph, self.indexer),
            *document_tools(self.documents, on_commit=self._note_commit),
        )

    def _note_commit(self, turn_id: str, doc_id: str) -> None:
        if not turn_id:
            return
        self._committed.setdefault(turn_id, []).append(doc_id)
        # A failed or cancelled turn is never recorded: forget the oldest such turns.
        while len(self._committed) > _PENDING_TURNS:
            self._committed.pop(next(iter(self._committed)))

    # -- what a turn reads ---------------------------------------------------------------

    async def history(self, member: str) -> list[Message]:
        """The working context `member` may see (their exchanges and the shared ones),
        newest entries first to fill the budget, in order."""
        chosen: list[ContextEntry] = []
        budget = self.settings.history_tokens
        for entry in reversed(self.context.entries(reader=member)):
            cost = estimate_tokens(entry.content) + 4
            if chosen and cost > budget:
                break
            chosen.append(entry)
            budget -= cost
        chosen.reverse()
        # A prompt starts with a user turn: drop a leading orphan assistant entry.
        while chosen and chosen[0].role != "user":
            chosen.pop(0)
        return [Message(e.role, e.content) for e in chosen]  # type: ignore[arg-type]

    async def graph_section(self, text: str, member: str) -> tuple[str, str]:
        index = await self.indexer.node_index(
            text, self.settings.graph_prompt_tokens, member=member, reader=member
        )
        return "What memory knows about (people, places, things)", index

    def foresee(self, text: str, member: str) -> None:
        """A turn has arrived: begin what its context will need and can be started now."""
        self.documents.foresee(text)

    async def documents_section(self, text: str, member: str) -> tuple[str, str]:
        hits = await self.documents.query(
            text, self.settings.documents_in_prompt * 3,
            min_score=self.settings.documents_min_score, reader=member,
        )  # fmt: skip
        lines: list[str] = []
        budget = self.settings.documents_prompt_tokens
        for hit in hits:
            doc = hit.document
            line = f"- {doc.created_at:%Y-%m-%d}: {doc.summary}"
            cost = estimate_tokens(line)
            if cost > budget or len(lines) >= self.settings.documents_in_prompt:
                break
            lines.append(line)
            budget -= cost
        return "Related earlier conversations", "\n".join(lines)

    # -- what a turn leaves behind -------------------------------------------------------

    async def after_turn(self, interrupt: Any, answer: str) -> None:
        """Append the exchange to L1 (pruning the rest of its owner's into L2) and to the
        text log. An exchange said for everyone is shared, and so is what its turn
        committed."""
        member = interrupt.member
        shared = bool(member) and for_everyone(interrupt.text)
        owner = "" if shared else member
        committed = self._committed.pop(interrupt.turn_id, [])
        # Secrets the user typed ("sk-…", "password: …") never reach memory at rest: the
        # text log, the context and what is archived from it keep them redacted.
        said, answer = redact_text(interrupt.text), redact_text(answer)
        # The log keeps who spoke (the distiller's "I"); `shared` makes its facts shared.
        await self._append_text(
            said, answer, turn_id=interrupt.turn_id, channel=interrupt.channel,
            device_id=interrupt.device_id, member=member, meta={"shared": True} if shared else None,
        )  # fmt: skip
        if shared:
            await self.documents.share(committed)
            await self.graph.share_turn(interrupt.turn_id)
        await self.context.append("user", said, interrupt.turn_id, owner)
        if answer:
            await self.context.append("assistant", answer, interrupt.turn_id, owner)
        await self.context.prune(answer or said, member=owner)

    async def _append_text(self, user: str, assistant: str, **fields: Any) -> None:
        """Append to memory.jsonl; an exchange that cannot be written (a full disk) is kept
        and written before the next one, and the failure shows in /healthz."""
        self._text_pending.append((user, assistant, fields))
        while self._text_pending:
            u, a, f = self._text_pending[0]
            try:
                await self.textlog.append(u, a, **f)
            except OSError as err:
                self._text_pending = self._text_pending[-10_000:]
                self.text_log_health.failed(err)
                self.text_log_health.pending = len(self._text_pending)
                log.warning("memory.text_log.write_failed", error=str(err), pending=len(self._text_pending))
                return
            self._text_pending.pop(0)
        self.text_log_health.succeeded()
        self.text_log_health.pending = 0

    async def _archive(self, entries: Sequence[ContextEntry]) -> None:
        await self.documents.commit([
            NewDocument(
                text=e.content,
                id=_turn_doc_id(e.turn_id, e.role),
                tags=("context", e.role),
                source="context",
                member=e.member,
                created_at=datetime.fromtimestamp(e.created_at, UTC),
            )
            for e in entries
        ], return_documents=False)  # fmt: skip

    async def forget_message(self, message: Any) -> dict[str, int]:
        """Forget one message everywhere: L1, L2, the facts of its turn, the log's text."""
        counts = await self.context.forget_message(message)
        counts["documents"] = await self.documents.delete([_turn_doc_id(message.turn_id, message.role)])
        counts["facts"] = await self.graph.forget_turn(message.turn_id)

        def tombstones() -> int:
            n = 0
            for record in self.textlog.read_from(0):
                if record.kind == "exchange" and record.turn_id == message.turn_id and not record.forgotten:
                    self.textlog.forget_sync(record.id, reason="forgotten on request")
                    n += 1
            return n

        counts["log_records"] = await anyio.to_thread.run_sync(tombstones)
        return counts

    # -- the heartbeat -------------------------------------------------------------------

    async def heartbeat(self, provider: Provider | None = None) -> HeartbeatReport:
        async with self._heartbeat_lock:
            started = time.monotonic()
            report = await run_heartbeat(
                graph=self.graph, indexer=self.indexer, textlog=self.textlog,
                documents=self.documents, provider=provider, clock=self.clock,
                settings=self.settings.heartbeat,
            )  # fmt: skip
            self.last_heartbeat = report
            log.debug("memory.heartbeat.ran", duration_ms=round((time.monotonic() - started) * 1000, 1))
            return report
