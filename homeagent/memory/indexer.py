"""The graph indexer: from a user message to the entities it is about, and from those to
the compact node index the prompt carries.

Matching is two-fold: names and aliases that occur verbatim in the message (looked up by
key, from the message's CJK substrings and Latin word n-grams, so it scales with the
message, not the graph), and a vector search over entity names (a `VectorIndex` in the
"entities" namespace) for partial and fuzzy matches. The prompt gets only entity names,
types, mention counts and relation types, never fact values or full text; the model calls
`memory_recall` for details.

Both take a `reader`: the member whose memory it is (see homeagent.members). Entities
only another member's facts mention, and those facts' relations, stay out of what that
reader gets; None reads the whole graph.

`sync()` keeps the entity-name index in step with the graph through the
`graph_index_dirty` queue that graph writes, merges and undos fill.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import anyio

from homeagent.log import get_logger
from homeagent.memory.graph import Entity, GraphDB, entity_key
from homeagent.memory.vector import VectorIndex
from homeagent.text import CJK as _CJK
from homeagent.text import estimate_tokens, tokenize

log = get_logger("homeagent.memory.indexer")

ENTITY_NAMESPACE = "entities"
_RUN_RE = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+(?:['\-][^\W_{_CJK}]+)*)")
_MAX_CJK_NAME = 12
_MAX_WORDS = 5
_MAX_KEYS = 3000
HEADER = "Memory graph, entities this message may concern (details: memory_recall) / 相关记忆实体:"


@dataclass(frozen=True)
class EntityMatch:
    entity: Entity
    score: float
    how: Literal["speaker", "exact", "vector"]


@dataclass(frozen=True)
class SyncReport:
    added: int = 0
    removed: int = 0


def candidate_keys(text: str) -> list[str]:
    """Every key an entity named inside `text` could have: CJK substrings up to 12
    characters and runs of up to 5 Latin words (so "to" never matches "Tom")."""
    keys: dict[str, None] = {}
    words: list[str] = []

    def flush_words() -> None:
        for i in range(len(words)):
            for j in range(i + 1, min(len(words), i + _MAX_WORDS) + 1):
                keys[" ".join(words[i:j])] = None
        words.clear()

    for cjk, word in _RUN_RE.findall(entity_key(text)):
        if word:
            words.append(word)
            continue
        flush_words()
        for i in range(len(cjk)):
            for j in range(i + 1, min(len(cjk), i + _MAX_CJK_NAME) + 1):
                keys[cjk[i:j]] = None
    flush_words()
    return list(keys)[:_MAX_KEYS]


class GraphIndexer:
    def __init__(
        self,
        graph: GraphDB,
        index: VectorIndex,
        *,
        max_entities: int = 12,
        min_score: float = 0.002,
        min_coverage: float = 0.34,
        speaker: str = "user",
    ):
        self.graph = graph
        self.index = index
        self.max_entities = max_entities
        self.min_score = min_score  # of the index's own score: only a pre-filter
        self.min_coverage = min_coverage  # share of a name the message must contain
        self.speaker = speaker  # the entity standing for "I" when no member is known

    # -- keeping the name index in step ---------------------------------------------

    async def sync(self, *, full: bool = False) -> SyncReport:
        return await anyio.to_thread.run_sync(lambda: self.sync_sync(full=full))

    def sync_sync(self, *, full: bool = False, batch: int = 2000) -> SyncReport:
        db = self.graph.db
        if full or len(self.index) == 0:
            # A new or lost index: queue every entity (cheap when there are none).
            db.write_sync(
                lambda c: c.execute(
                    "INSERT INTO graph_index_dirty(entity_id, seq) SELECT id, 1 FROM graph_entities"
                    " WHERE true ON CONFLICT(entity_id) DO UPDATE SET seq = seq + 1"
                )
            )
        added = removed = 0
        while True:
            dirty = db.read_sync(
                lambda c: c.execute(
                    "SELECT entity_id, seq FROM graph_index_dirty ORDER BY entity_id LIMIT ?",
                    (batch,),
                ).fetchall()
            )
            if not dirty:
                break
            ids = [int(r[0]) for r in dirty]
            found = self.graph.entities_sync(ids)
            items = [(str(e.id), " ".join((e.name, *e.aliases))) for e in found.values()]
            gone = [str(i) for i in ids if i not in found]
            if items:
                self.index.add_sync(items)
            if gone:
                removed += self.index.remove_sync(gone)
            added += len(items)

            def done(c: sqlite3.Connection, rows: Sequence[sqlite3.Row] = dirty) -> None:
                # Only what this pass saw: an entity changed meanwhile stays queued.
                c.executemany(
                    "DELETE FROM graph_index_dirty WHERE entity_id = ? AND seq = ?",
                    [(int(r[0]), int(r[1])) for r in rows],
                )

            db.write_sync(done)
        if added or removed:
            log.info("memory.indexer.synced", added=added, removed=removed, indexed=len(self.index))
        return SyncReport(added, removed)

    # -- recall -----------------------------------------------------------------------

    def recall_sync(
        self, query: str, *, member: str = "", k: int | None = None, reader: str | None = None
    ) -> list[EntityMatch]:
        """Entities `query` is about that `reader` may see, best first: the speaker,
        verbatim names, then vector matches over names."""
        k = k or self.max_entities
        keys = candidate_keys(query)
        speaker = member.strip() or self.speaker

        def exact(c: sqlite3.Connection) -> tuple[int | None, list[int]]:
            ids: dict[int, None] = {}
            for i in range(0, len(keys), 500):
                chunk = keys[i : i + 500]
                marks = ",".join("?" * len(chunk))
                for (eid,) in c.execute(
                    f"SELECT id FROM graph_entities WHERE key IN ({marks})"
                    f" UNION SELECT entity_id FROM graph_aliases WHERE key IN ({marks})",
                    (*chunk, *chunk),
                ):
                    ids[int(eid)] = None
            return self.graph.find_entity_id(c, speaker), list(ids)

        speaker_id, exact_ids = self.graph.db.read_sync(exact) if keys or speaker else (None, [])
        hits = (
            self.index.search_sync(query, k=k * 3, min_score=self.min_score)
            if len(self.index)
            else []
        )
        vector_ids = [int(h.id) for h in hits if h.id.isdigit()]
        wanted = list(
            dict.fromkeys([*([speaker_id] if speaker_id else []), *exact_ids, *vector_ids])
        )
        entities = self.graph.entities_sync(wanted)
        if reader is not None:
            seen = self.graph.visible_entities_sync(list(entities), reader)
            entities = {eid: e for eid, e in entities.items() if eid in seen}
        # The index scores against the whole message, so a name matching one word of a
        # long message scores low. What matters is how much of the *name* the message
        # covers (IDF-weighted): "Acme" covers half of "Acme Corp".
        query_terms = set(tokenize(query))
        coverage = {
            eid: max(self._coverage(n, query_terms) for n in (e.name, *e.aliases))
            for eid in vector_ids
            if (e := entities.get(eid)) is not None
        }
        matches: list[EntityMatch] = []
        for eid in wanted:
            e = entities.get(eid)
            if e is None:
                continue  # merged away since the index last synced
            if eid == speaker_id:
                matches.append(EntityMatch(e, 2.0, "speaker"))
            elif eid in exact_ids:
                # Longer names are more specific; mentions break ties.
                matches.append(
                    EntityMatch(
                        e,
                        1.0 + min(len(e.name), 20) / 100 + math.log1p(e.mention_count) / 1000,
                        "exact",
                    )
                )
            elif coverage.get(eid, 0.0) >= self.min_coverage:
                matches.append(EntityMatch(e, round(coverage[eid] * 0.99, 4), "vector"))
        matches.sort(key=lambda m: (-m.score, m.entity.id))
        return matches[:k]

    def _coverage(self, name: str, query_terms: set[str]) -> float:
        terms = set(tokenize(name))
        total = sum(self.index.idf(t) for t in terms)
        if not total:
            return 0.0
        return sum(self.index.idf(t) for t in terms & query_terms) / total

    async def recall(
        self, query: str, *, member: str = "", k: int | None = None, reader: str | None = None
    ) -> list[EntityMatch]:
        return await anyio.to_thread.run_sync(
            lambda: self.recall_sync(query, member=member, k=k, reader=reader)
        )

    # -- the prompt section -----------------------------------------------------------

    def node_index_sync(
        self, query: str, budget_tokens: int, *, member: str = "", reader: str | None = None
    ) -> str:
        if budget_tokens <= 0:
            return ""
        matches = self.recall_sync(query, member=member, reader=reader)
        if not matches:
            return ""
        relations = self.graph.relation_summary_sync([m.entity.id for m in matches], reader=reader)
        lines = [HEADER]
        used = estimate_tokens(HEADER)
        for m in matches:
            line = format_node(m.entity, relations.get(m.entity.id, {}))
            cost = estimate_tokens(line) + 1
            if used + cost > budget_tokens:
                continue  # a shorter line further down may still fit
            lines.append(line)
            used += cost
        return "\n".join(lines) if len(lines) > 1 else ""

    async def node_index(
        self, query: str, budget_tokens: int, *, member: str = "", reader: str | None = None
    ) -> str:
        """The graph section of the prompt for `query`: entity names, types, mention
        counts and relation types `reader` may see, within `budget_tokens`
        (estimate_tokens); "" if none."""
        return await anyio.to_thread.run_sync(
            lambda: self.node_index_sync(query, budget_tokens, member=member, reader=reader)
        )


def format_node(entity: Entity, relations: dict[str, int]) -> str:
    kind = f"{entity.type}, " if entity.type else ""
    head = f"- {entity.name} ({kind}{entity.mention_count}×)"
    if entity.aliases:
        head += " aka " + ", ".join(entity.aliases[:3])
    if not relations:
        return head
    rels = sorted(relations.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
    return head + ": " + ", ".join(f"{r}×{n}" if n > 1 else r for r, n in rels)
