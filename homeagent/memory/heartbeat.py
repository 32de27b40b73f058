"""The memory heartbeat: periodic upkeep of the three tiers, in a fixed order.

1. distill the text log's new exchanges into graph facts (no model call when nothing is new);
2. sync entity names into the entity-name index;
3. reindex the documents;
4. cold documents (unread for `cold_idle_seconds`, read at most `cold_max_access` times)
   become facts (document → mentions entities, tagged, from_source, is_a document), then
   move to the archive, where their text stays readable;
5. merge synonymous entities (character-bigram Jaccard above `merge_threshold`), each
   merge journaled with the rows as they were, so `undo_merge` restores them;
   then a last index sync drops merged-away names.

A failing step is logged and reported, and the next steps still run. Heavy work (SQLite
bulk reads and writes, tokenising, similarity search) runs in worker threads, so chats
stay responsive during a heartbeat. One `memory.heartbeat.finished` event carries the
counts and the duration.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from homeagent.clock import Clock
from homeagent.llm.base import Provider
from homeagent.log import get_logger
from homeagent.memory.graph import FactInput, GraphDB
from homeagent.memory.graph_merge import MergeRecord, merge_synonyms, undo_merge
from homeagent.memory.indexer import GraphIndexer, candidate_keys

if TYPE_CHECKING:
    from homeagent.memory.distiller import LogReader

log = get_logger("homeagent.memory.heartbeat")

__all__ = ["HeartbeatReport", "HeartbeatSettings", "heartbeat_loop", "run_heartbeat", "undo_merge"]

DOCUMENT_TYPE = "document"
_NO_MENTION_TYPES = ("document", "value")


@dataclass(frozen=True)
class HeartbeatSettings:
    cold_idle_seconds: float = 72 * 3600
    cold_max_access: int = 2
    cold_batch: int = 1000  # cold documents handled per heartbeat at most
    merge_threshold: float = 0.5
    merge_limit: int = 500  # merges per heartbeat at most
    # Compare only entities changed since the last pass (False: every pair, every time).
    merge_incremental: bool = True
    distill_batch: int = 8  # log records per extraction request
    distill_max_records: int = 2000  # log records per heartbeat at most
    distill_timeout: float = 120.0
    speaker: str = "user"


@dataclass(frozen=True)
class HeartbeatReport:
    records_distilled: int = 0
    facts_new: int = 0
    facts_repeated: int = 0
    facts_closed: int = 0
    facts_rejected: int = 0
    llm_calls: int = 0
    entities_indexed: int = 0
    entities_unindexed: int = 0
    documents_reindexed: int = 0
    cold_documents: int = 0
    cold_facts: int = 0
    documents_archived: int = 0
    merges: tuple[MergeRecord, ...] = ()
    duration_ms: float = 0.0
    errors: tuple[str, ...] = field(default=())

    def counts(self) -> dict[str, Any]:
        return {
            "records_distilled": self.records_distilled,
            "facts_new": self.facts_new,
            "facts_repeated": self.facts_repeated,
            "facts_closed": self.facts_closed,
            "facts_rejected": self.facts_rejected,
            "llm_calls": self.llm_calls,
            "entities_indexed": self.entities_indexed,
            "entities_unindexed": self.entities_unindexed,
            "documents_reindexed": self.documents_reindexed,
            "cold_documents": self.cold_documents,
            "cold_facts": self.cold_facts,
            "documents_archived": self.documents_archived,
            "merged": len(self.merges),
            "merge_ids": [m.id for m in self.merges],
            "errors": list(self.errors),
        }


async def run_heartbeat(
    *,
    graph: GraphDB,
    indexer: GraphIndexer,
    textlog: LogReader | None = None,
    documents: Any | None = None,
    provider: Provider | None = None,
    clock: Clock | None = None,
    settings: HeartbeatSettings = HeartbeatSettings(),
) -> HeartbeatReport:
    """One heartbeat. `provider` is the distiller's model (may be a cheaper one than
    chat's; None: rule-based extraction). `documents` is the L2 `DocumentStore`."""
    clock = clock or graph.clock
    started = time.monotonic()
    out: dict[str, Any] = {}
    errors: list[str] = []

    async def step(name: str, fn: Callable[[], Awaitable[None]]) -> None:
        try:
            await fn()
        except Exception as err:  # noqa: BLE001 - one failing step must not stop the others
            log.exception("memory.heartbeat.step_failed", step=name)
            errors.append(f"{name}: {type(err).__name__}: {err}")

    async def distill() -> None:
        if textlog is None:
            return
        # Imported here: its rules are a twentieth of a second of a daemon's start, and
        # the first heartbeat comes half an hour later.
        from homeagent.memory.distiller import Distiller

        distiller = Distiller(
            graph, textlog, provider=provider, speaker=settings.speaker,
            batch_records=settings.distill_batch, max_records=settings.distill_max_records,
            timeout=settings.distill_timeout,
        )  # fmt: skip
        report = await distiller.run()
        out.update(
            records_distilled=report.records, facts_new=report.facts_new,
            facts_repeated=report.facts_repeated, facts_closed=report.facts_closed,
            facts_rejected=report.rejected, llm_calls=report.llm_calls,
        )  # fmt: skip
        if report.error:
            errors.append(f"distill: {report.error}")

    async def sync() -> None:
        report = await indexer.sync()
        out["entities_indexed"] = out.get("entities_indexed", 0) + report.added
        out["entities_unindexed"] = out.get("entities_unindexed", 0) + report.removed

    async def reindex() -> None:
        if documents is not None:
            out["documents_reindexed"] = await documents.reindex()

    async def cold() -> None:
        if documents is None:
            return
        docs = await documents.cold(
            clock.now(),
            settings.cold_idle_seconds,
            settings.cold_max_access,
            limit=settings.cold_batch,
        )
        if not docs:
            return
        out["cold_documents"] = len(docs)
        facts = await anyio.to_thread.run_sync(_document_facts, graph, docs)
        stored = await graph.db.write(lambda c: _store_document_facts(graph, c, facts))
        out["cold_facts"] = stored
        # Facts first, then the archive move: a crash between repeats nothing (the
        # facts are keyed by their document source) and loses nothing.
        out["documents_archived"] = await documents.archive([d.id for d in docs])

    async def merge() -> None:
        out["merges"] = tuple(
            await merge_synonyms(
                graph,
                settings.merge_threshold,
                limit=settings.merge_limit,
                incremental=settings.merge_incremental,
            )
        )

    await step("distill", distill)
    await step("sync", sync)
    await step("reindex", reindex)
    await step("cold", cold)
    await step("merge", merge)
    if out.get("merges") or out.get("cold_facts"):
        await step("sync", sync)
    report = HeartbeatReport(
        **out, duration_ms=round((time.monotonic() - started) * 1000, 1), errors=tuple(errors)
    )
    log.info("memory.heartbeat.finished", duration_ms=report.duration_ms, **report.counts())
    return report


def _document_facts(graph: GraphDB, docs: list[Any]) -> list[tuple[str, list[FactInput]]]:
    """Facts for each cold document: what it mentions (its own entity list plus known
    entities named in its text), its tags and its source."""
    known = _entities_named_in(graph, docs)
    out = []
    for doc in docs:
        name = (doc.summary or doc.text).strip()[:80] or f"document {doc.id}"
        source = f"document:{doc.id}"
        at = doc.created_at.timestamp()

        def fact(
            relation: str,
            obj: str,
            obj_type: str = "",
            conf: float = 1.0,
            name: str = name,
            member: str = doc.member,
            source: str = source,
            at: float = at,
        ) -> FactInput:
            return FactInput(
                name, relation, obj, conf, DOCUMENT_TYPE, obj_type, member=member, source=source, at=at
            )  # fmt: skip

        mentioned = dict.fromkeys([*doc.entities, *known.get(doc.id, ())])
        items = [fact("mentions", e, conf=0.9) for e in mentioned if e.strip()]
        items += [fact("tagged", t, "tag") for t in doc.tags if t.strip()]
        if doc.source.strip():
            items.append(fact("from_source", doc.source, "source"))
        if not items:
            # Still a node of its own, so the entity index finds it by its summary.
            items.append(fact("is_a", "document", "category"))
        out.append((source, items))
    return out


def _entities_named_in(graph: GraphDB, docs: list[Any], per_doc: int = 20) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for doc in docs:
        keys = [k for k in candidate_keys(f"{doc.summary}\n{doc.text}") if len(k) >= 2]
        if not keys:
            continue

        def read(c: Any, keys: list[str] = keys) -> list[str]:
            names: dict[str, None] = {}
            for i in range(0, len(keys), 500):
                chunk = keys[i : i + 500]
                marks = ",".join("?" * len(chunk))
                for (name,) in c.execute(
                    f"SELECT name FROM graph_entities WHERE key IN ({marks})"
                    f" AND type NOT IN ({','.join('?' * len(_NO_MENTION_TYPES))})",
                    (*chunk, *_NO_MENTION_TYPES),
                ):
                    names[name] = None
            return list(names)[:per_doc]

        found[doc.id] = graph.db.read_sync(read)
    return found


def _store_document_facts(
    graph: GraphDB, conn: Any, facts: list[tuple[str, list[FactInput]]]
) -> int:
    stored = 0
    for source, items in facts:
        if graph.has_source_tx(conn, source):
            continue  # converted by an earlier heartbeat that stopped before archiving
        for item in items:
            try:
                graph.commit_tx(conn, item)
                stored += 1
            except ValueError as err:
                log.warning("memory.heartbeat.document_fact_skipped", source=source, error=str(err))
    return stored


async def heartbeat_loop(interval_seconds: float, beat: Callable[[], Awaitable[object]]) -> None:
    """Run `beat` every `interval_seconds` until cancelled; a failed beat is logged and
    the next one runs on schedule."""
    if interval_seconds <= 0:
        raise ValueError("the heartbeat interval must be positive")
    while True:
        await anyio.sleep(interval_seconds)
        try:
            await beat()
        except Exception:  # noqa: BLE001 - the daemon outlives a failed heartbeat
            log.exception("memory.heartbeat.failed")
