"""L3 graph memory: entities and temporal facts in SQLite, networkx for traversal.

An entity has a display name, a normalised key (one entity a key), a type, a mention count
and aliases. A fact is (subject, relation, object) with confidence, session and turn ids,
the household member who stated it, a source, a date bucket and a validity interval.

Facts are temporal. A fact stated again is the same row with a higher mention count. A
fact whose relation is single-valued (declared in `graph_relations`: lives_in, name,
works_at, age, …) closes the validity of the open fact it contradicts instead of deleting
it, so "where did I live before?" keeps an answer. Unknown relations are multi-valued.

A fact belongs to the member who stated it ("" = shared; see homeagent.members). The same
triple stated by two members is two facts; a member's new fact closes only that member's
own facts (so nobody's memory changes, or shows a change, because of what another member
said in private), while a shared one closes anyone's. Reads take a
`reader`: a member reads their own facts and the shared ones, and an entity is visible
when no fact hides it (it has a visible fact, or none at all); None reads everything.

Synonym merges and their undo live in `homeagent.memory.graph_merge`.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import anyio

from homeagent.clock import Clock, SystemClock
from homeagent.store.db import Database
from homeagent.text import normalize

if TYPE_CHECKING:
    import networkx as nx

MAX_NAME_CHARS = 200
MAX_RELATION_CHARS = 64
_SPACES = re.compile(r"\s+")
_REL_SEP = re.compile(r"[\s\-]+")

FACT_COLUMNS = (
    "id, subject_id, relation, object_id, confidence, session_id, turn_id, member, source,"
    " date_bucket, valid_from, valid_to, mention_count, created_at, updated_at"
)
_FACT_SELECT = (
    "SELECT f.id, s.name, f.relation, o.name, f.subject_id, f.object_id, f.confidence,"
    " f.session_id, f.turn_id, f.member, f.source, f.date_bucket, f.valid_from, f.valid_to,"
    " f.mention_count FROM graph_facts f JOIN graph_entities s ON s.id = f.subject_id"
    " JOIN graph_entities o ON o.id = f.object_id"
)


def entity_key(name: str) -> str:
    """The identity of a name: NFKC, case-folded, inner whitespace collapsed."""
    return _SPACES.sub(" ", normalize(name)).strip()


def relation_key(relation: str) -> str:
    return _REL_SEP.sub("_", normalize(relation).strip())


@dataclass(frozen=True)
class Entity:
    id: int
    name: str
    type: str
    mention_count: int
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fact:
    id: int
    subject: str
    relation: str
    object: str
    subject_id: int
    object_id: int
    confidence: float
    session_id: str
    turn_id: str
    member: str
    source: str
    date_bucket: str
    valid_from: float
    valid_to: float | None
    mention_count: int

    @property
    def current(self) -> bool:
        return self.valid_to is None


@dataclass(frozen=True)
class FactInput:
    """A fact to store. `at` (epoch seconds) is when it was stated; default now."""

    subject: str
    relation: str
    object: str
    confidence: float = 1.0
    subject_type: str = ""
    object_type: str = ""
    session_id: str = ""
    turn_id: str = ""
    member: str = ""
    source: str = ""
    at: float | None = None


@dataclass(frozen=True)
class CommitResult:
    fact: Fact
    # new: a fact not known before; repeated: the same open fact stated again;
    # historical: older than a newer contradicting fact, so stored already closed.
    outcome: Literal["new", "repeated", "historical"]
    closed: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class RelationKind:
    relation: str
    cardinality: Literal["one", "many"]
    opposite: str | None


@dataclass(frozen=True)
class GraphStats:
    entities: int
    facts: int
    current_facts: int
    past_facts: int
    relations: dict[str, int]
    top_entities: tuple[Entity, ...]
    merges: int


def fact_from_row(row: Sequence[Any]) -> Fact:
    """A `Fact` from a row of `_FACT_SELECT`."""
    vt = row[13]
    return Fact(
        int(row[0]), str(row[1]), str(row[2]), str(row[3]), int(row[4]), int(row[5]),
        float(row[6]), str(row[7]), str(row[8]), str(row[9]), str(row[10]), str(row[11]),
        float(row[12]), None if vt is None else float(vt), int(row[14]),
    )  # fmt: skip


def reader_clause(reader: str | None, column: str = "member") -> tuple[str, tuple[str, ...]]:
    """An SQL condition (and its parameters) for the rows `reader` may see; None: all."""
    if reader is None:
        return "1", ()
    return f"{column} IN ('', ?)", (reader,)


def mark_dirty(conn: sqlite3.Connection, entity_ids: Iterable[int]) -> None:
    """Queue entities for the next entity-name index sync."""
    conn.executemany(
        "INSERT INTO graph_index_dirty(entity_id, seq) VALUES (?, 1)"
        " ON CONFLICT(entity_id) DO UPDATE SET seq = seq + 1",
        [(int(i),) for i in entity_ids],
    )


class GraphDB:
    """The triple store. Async methods run SQLite in worker threads; `*_sync` methods
    and `commit_tx` are for code already in a worker thread or a write transaction."""

    def __init__(self, db: Database, *, clock: Clock | None = None):
        self.db = db
        self.clock = clock or SystemClock()
        self._relations: dict[str, tuple[str, RelationKind]] | None = None

    # -- relation kinds (data, not code) ----------------------------------------------

    def _kinds(self, conn: sqlite3.Connection) -> dict[str, tuple[str, RelationKind]]:
        if self._relations is None:
            rows = conn.execute(
                "SELECT relation, cardinality, canonical, opposite FROM graph_relations"
            ).fetchall()
            table: dict[str, tuple[str, RelationKind]] = {}
            by_name = {r[0]: r for r in rows}
            for rel, card, canonical, opposite in rows:
                target = canonical or rel
                base = by_name.get(target, (target, card, None, opposite))
                table[rel] = (target, RelationKind(target, base[1], base[3]))
            self._relations = table
        return self._relations

    def relation_kind(self, conn: sqlite3.Connection, relation: str) -> RelationKind:
        """The canonical relation for `relation` and its cardinality ("many" if unknown)."""
        key = relation_key(relation)
        found = self._kinds(conn).get(key)
        return found[1] if found else RelationKind(key, "many", None)

    async def declare_relation(
        self,
        relation: str,
        cardinality: Literal["one", "many"],
        *,
        canonical: str | None = None,
        opposite: str | None = None,
        description: str = "",
    ) -> None:
        if cardinality not in ("one", "many"):
            raise ValueError("cardinality must be 'one' or 'many'")
        row = (
            relation_key(relation),
            cardinality,
            relation_key(canonical) if canonical else None,
            relation_key(opposite) if opposite else None,
            description,
        )
        await self.db.write(
            lambda c: c.execute(
                "INSERT OR REPLACE INTO graph_relations(relation, cardinality, canonical,"
                " opposite, description) VALUES (?, ?, ?, ?, ?)",
                row,
            )
        )
        self._relations = None

    # -- entities ---------------------------------------------------------------------

    @staticmethod
    def find_entity_id(conn: sqlite3.Connection, name: str) -> int | None:
        key = entity_key(name)
        row = conn.execute("SELECT id FROM graph_entities WHERE key = ?", (key,)).fetchone()
        if row is None:
            row = conn.execute(
                "SELECT entity_id FROM graph_aliases WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else int(row[0])

    def _touch_entity(self, conn: sqlite3.Connection, name: str, type_: str, now: float) -> int:
        """Find or create the entity for `name` and count one mention."""
        entity_id = self.find_entity_id(conn, name)
        type_ = type_.strip()[:40]
        if entity_id is None:
            cur = conn.execute(
                "INSERT INTO graph_entities(name, key, type, mention_count, created_at,"
                " updated_at) VALUES (?, ?, ?, 1, ?, ?)",
                (_SPACES.sub(" ", name).strip(), entity_key(name), type_, now, now),
            )
            entity_id = int(cur.lastrowid or 0)
            mark_dirty(conn, [entity_id])
        else:
            conn.execute(
                "UPDATE graph_entities SET mention_count = mention_count + 1, updated_at = ?,"
                " type = CASE WHEN type = '' THEN ? ELSE type END WHERE id = ?",
                (now, type_, entity_id),
            )
        return entity_id

    def entities_sync(self, ids: Sequence[int]) -> dict[int, Entity]:
        def read(c: sqlite3.Connection) -> dict[int, Entity]:
            out: dict[int, Entity] = {}
            for chunk in _chunks(list(dict.fromkeys(ids)), 500):
                marks = ",".join("?" * len(chunk))
                aliases: dict[int, list[str]] = {}
                for eid, alias in c.execute(
                    f"SELECT entity_id, alias FROM graph_aliases WHERE entity_id IN ({marks})"
                    " ORDER BY alias",
                    chunk,
                ):
                    aliases.setdefault(int(eid), []).append(alias)
                for eid, name, type_, mentions in c.execute(
                    f"SELECT id, name, type, mention_count FROM graph_entities WHERE id IN ({marks})",
                    chunk,
                ):
                    out[int(eid)] = Entity(
                        int(eid), name, type_, int(mentions), tuple(aliases.get(eid, ()))
                    )
            return out

        return self.db.read_sync(read)

    async def entity(self, name: str) -> Entity | None:
        """The entity called `name` (by name or alias), or None."""

        def find() -> Entity | None:
            eid = self.db.read_sync(lambda c: self.find_entity_id(c, name))
            return None if eid is None else self.entities_sync([eid]).get(eid)

        return await anyio.to_thread.run_sync(find)

    async def entities(self, ids: Sequence[int]) -> dict[int, Entity]:
        return await anyio.to_thread.run_sync(self.entities_sync, ids)

    # -- writing facts ----------------------------------------------------------------

    def _bucket(self, at: float) -> str:
        tz = self.clock.now().tzinfo
        return datetime.fromtimestamp(at, tz).strftime("%Y-%m-%d")

    def commit_tx(self, conn: sqlite3.Connection, item: FactInput) -> CommitResult:
        """Store one fact inside the caller's write transaction."""
        subject, obj = item.subject.strip(), item.object.strip()
        relation = relation_key(item.relation)
        for field_name, value, limit in (
            ("subject", subject, MAX_NAME_CHARS),
            ("object", obj, MAX_NAME_CHARS),
            ("relation", relation, MAX_RELATION_CHARS),
        ):
            if not value:
                raise ValueError(f"{field_name} must not be empty")
            if len(value) > limit:
                raise ValueError(f"{field_name} is longer than {limit} characters; shorten it")
        if entity_key(subject) == entity_key(obj):
            raise ValueError("subject and object must be different entities")
        confidence = min(1.0, max(0.0, float(item.confidence)))
        now = self.clock.now().timestamp()
        at = item.at if item.at is not None else now
        kind = self.relation_kind(conn, relation)
        relation = kind.relation
        s_id = self._touch_entity(conn, subject, item.subject_type, now)
        o_id = self._touch_entity(conn, obj, item.object_type, now)
        same = conn.execute(
            "SELECT id FROM graph_facts WHERE subject_id = ? AND relation = ? AND object_id = ?"
            " AND member = ? AND valid_to IS NULL",
            (s_id, relation, o_id, item.member),
        ).fetchone()
        if same is not None:
            conn.execute(
                "UPDATE graph_facts SET mention_count = mention_count + 1,"
                " confidence = MAX(confidence, ?), updated_at = ? WHERE id = ?",
                (confidence, now, same[0]),
            )
            return CommitResult(self._fact(conn, int(same[0])), "repeated")
        # Open facts the new one contradicts: another value of a single-valued relation,
        # or the opposite relation (likes ↔ dislikes) to the same object.
        clauses, params = [], []
        if kind.cardinality == "one":
            clauses.append("(relation = ? AND object_id != ?)")
            params += [relation, o_id]
        if kind.opposite:
            clauses.append("(relation = ? AND object_id = ?)")
            params += [kind.opposite, o_id]
        conflicting: list[tuple[int, float]] = []
        if clauses:
            # A member's statement closes only their own facts (never another's, nor the
            # shared ones others read); a shared statement is news for everyone.
            owner_sql, owner_params = ("member = ?", (item.member,)) if item.member else ("1", ())
            conflicting = [
                (int(r[0]), float(r[1]))
                for r in conn.execute(
                    "SELECT id, valid_from FROM graph_facts WHERE subject_id = ? AND valid_to IS NULL"
                    f" AND {owner_sql} AND ({' OR '.join(clauses)})",
                    (s_id, *owner_params, *params),
                )
            ]
        newer = [vf for _, vf in conflicting if vf > at]
        closed: list[int] = []
        valid_to: float | None = None
        if newer:
            # Something newer is already known: this statement is history.
            valid_to = min(newer)
        else:
            for fid, _ in conflicting:
                conn.execute(
                    "UPDATE graph_facts SET valid_to = ?, updated_at = ? WHERE id = ?",
                    (at, now, fid),
                )
                closed.append(fid)
        cur = conn.execute(
            "INSERT INTO graph_facts(subject_id, relation, object_id, confidence, session_id,"
            " turn_id, member, source, date_bucket, valid_from, valid_to, mention_count,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)",
            (
                s_id,
                relation,
                o_id,
                confidence,
                item.session_id,
                item.turn_id,
                item.member,
                item.source,
                self._bucket(at),
                at,
                valid_to,
                now,
                now,
            ),
        )
        fact = self._fact(conn, int(cur.lastrowid or 0))
        return CommitResult(
            fact,
            "historical" if valid_to is not None else "new",
            tuple(self._fact(conn, fid) for fid in closed),
        )

    @staticmethod
    def _fact(conn: sqlite3.Connection, fact_id: int) -> Fact:
        return fact_from_row(conn.execute(_FACT_SELECT + " WHERE f.id = ?", (fact_id,)).fetchone())

    async def commit(self, item: FactInput) -> CommitResult:
        return await self.db.write(lambda c: self.commit_tx(c, item))

    async def commit_many(self, items: Sequence[FactInput]) -> list[CommitResult]:
        """Store facts in one transaction, in order (later statements win)."""
        return await self.db.write(lambda c: [self.commit_tx(c, i) for i in items])

    async def forget_turn(self, turn_id: str) -> int:
        """Delete the facts learned from one turn (the user asked to forget it)."""
        if not turn_id:
            return 0

        def delete(c: sqlite3.Connection) -> int:
            return c.execute("DELETE FROM graph_facts WHERE turn_id = ?", (turn_id,)).rowcount

        return await self.db.write(delete)

    async def share_turn(self, turn_id: str) -> int:
        """Make the facts learned in one turn the household's (it was said for everyone);
        a fact the household already holds open stays the member's duplicate."""
        if not turn_id:
            return 0
        return await self.db.write(
            lambda c: c.execute(
                "UPDATE OR IGNORE graph_facts SET member = '' WHERE turn_id = ? AND member != ''",
                (turn_id,),
            ).rowcount
        )

    @staticmethod
    def has_source_tx(conn: sqlite3.Connection, source: str) -> bool:
        row = conn.execute(
            "SELECT 1 FROM graph_facts WHERE source = ? LIMIT 1", (source,)
        ).fetchone()
        return row is not None

    # -- reading facts ----------------------------------------------------------------

    def facts_about_sync(
        self,
        entity_ids: Sequence[int],
        *,
        include_past: bool = True,
        limit: int = 50,
        reader: str | None = None,
    ) -> list[Fact]:
        """Facts `reader` may see with any of `entity_ids` as subject or object: current
        ones first, then newest first."""
        ids = list(dict.fromkeys(int(i) for i in entity_ids))[:500]
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        past = "" if include_past else " AND f.valid_to IS NULL"
        seen, seen_params = reader_clause(reader, "f.member")
        sql = (
            f"{_FACT_SELECT} WHERE (f.subject_id IN ({marks}) OR f.object_id IN ({marks})){past}"
            f" AND {seen} ORDER BY (f.valid_to IS NULL) DESC, f.valid_from DESC, f.id DESC LIMIT ?"
        )
        rows = self.db.read_sync(
            lambda c: c.execute(sql, (*ids, *ids, *seen_params, int(limit))).fetchall()
        )
        return [fact_from_row(r) for r in rows]

    async def facts_about(
        self,
        entity_ids: Sequence[int],
        *,
        include_past: bool = True,
        limit: int = 50,
        reader: str | None = None,
    ) -> list[Fact]:
        return await anyio.to_thread.run_sync(
            lambda: self.facts_about_sync(
                entity_ids, include_past=include_past, limit=limit, reader=reader
            )
        )

    def visible_entities_sync(self, entity_ids: Sequence[int], reader: str | None) -> set[int]:
        """The entities of `entity_ids` that `reader` may see: those with a fact `reader`
        sees, or with no fact at all (None: every one)."""
        ids = list(dict.fromkeys(int(i) for i in entity_ids))
        if reader is None or not ids:
            return set(ids)

        def read(c: sqlite3.Connection) -> set[int]:
            hidden: set[int] = set()
            for chunk in _chunks(ids, 400):
                marks = ",".join("?" * len(chunk))
                for (eid,) in c.execute(
                    f"SELECT e.id FROM graph_entities e WHERE e.id IN ({marks})"
                    " AND EXISTS (SELECT 1 FROM graph_facts f WHERE f.subject_id = e.id OR f.object_id = e.id)"
                    " AND NOT EXISTS (SELECT 1 FROM graph_facts f WHERE (f.subject_id = e.id"
                    " OR f.object_id = e.id) AND f.member IN ('', ?))",
                    (*chunk, reader),
                ):
                    hidden.add(int(eid))
            return hidden

        return set(ids) - self.db.read_sync(read)

    async def history(self, subject: str, relation: str) -> list[Fact]:
        """Every value `subject` had for `relation`, oldest first, closed ones included."""

        def read(c: sqlite3.Connection) -> list[Fact]:
            sid = self.find_entity_id(c, subject)
            if sid is None:
                return []
            rel = self.relation_kind(c, relation).relation
            rows = c.execute(
                f"{_FACT_SELECT} WHERE f.subject_id = ? AND f.relation = ?"
                " ORDER BY f.valid_from, f.id",
                (sid, rel),
            ).fetchall()
            return [fact_from_row(r) for r in rows]

        return await self.db.read(read)

    async def current(self, subject: str, relation: str) -> list[Fact]:
        return [f for f in await self.history(subject, relation) if f.current]

    def relation_summary_sync(
        self, entity_ids: Sequence[int], *, reader: str | None = None
    ) -> dict[int, dict[str, int]]:
        """For each entity, its current relation types and how many facts `reader` may
        see use each (incoming relations are prefixed with "←")."""
        ids = list(dict.fromkeys(int(i) for i in entity_ids))
        out: dict[int, dict[str, int]] = {i: {} for i in ids}
        if not ids:
            return out
        marks = ",".join("?" * len(ids))
        seen, seen_params = reader_clause(reader)

        def read(c: sqlite3.Connection) -> None:
            for eid, rel, n in c.execute(
                f"SELECT subject_id, relation, COUNT(*) FROM graph_facts WHERE subject_id IN ({marks})"
                f" AND valid_to IS NULL AND {seen} GROUP BY subject_id, relation",
                (*ids, *seen_params),
            ):
                out[int(eid)][rel] = int(n)
            for eid, rel, n in c.execute(
                f"SELECT object_id, relation, COUNT(*) FROM graph_facts WHERE object_id IN ({marks})"
                f" AND valid_to IS NULL AND {seen} GROUP BY object_id, relation",
                (*ids, *seen_params),
            ):
                out[int(eid)]["←" + rel] = int(n)

        self.db.read_sync(read)
        return out

    async def stats(self, top: int = 10, *, reader: str | None = None) -> GraphStats:
        """Counts, relation types and the most mentioned entities of what `reader` may
        see (None: the whole graph)."""
        seen, seen_params = reader_clause(reader)
        # An entity is visible when a visible fact touches it, or no fact does.
        shown = "1" if reader is None else (
            "NOT EXISTS (SELECT 1 FROM graph_facts f WHERE f.subject_id = e.id OR f.object_id = e.id)"
            " OR EXISTS (SELECT 1 FROM graph_facts f WHERE (f.subject_id = e.id OR f.object_id = e.id)"
            " AND f.member IN ('', ?))"
        )
        shown_params = () if reader is None else (reader,)

        def read(c: sqlite3.Connection) -> tuple[int, int, int, dict[str, int], list[int], int]:
            entities = c.execute(
                f"SELECT COUNT(*) FROM graph_entities e WHERE {shown}", shown_params
            ).fetchone()[0]
            facts, open_ = c.execute(
                f"SELECT COUNT(*), COALESCE(SUM(valid_to IS NULL), 0) FROM graph_facts WHERE {seen}",
                seen_params,
            ).fetchone()
            relations = dict(
                c.execute(
                    f"SELECT relation, COUNT(*) FROM graph_facts WHERE {seen} GROUP BY relation"
                    " ORDER BY COUNT(*) DESC, relation",
                    seen_params,
                ).fetchall()
            )
            top_ids = [
                r[0]
                for r in c.execute(
                    f"SELECT e.id FROM graph_entities e WHERE {shown}"
                    " ORDER BY e.mention_count DESC, e.id LIMIT ?",
                    (*shown_params, top),
                )
            ]
            merges = c.execute(
                "SELECT COUNT(*) FROM graph_merges WHERE undone_at IS NULL"
            ).fetchone()[0]
            return int(entities), int(facts), int(open_), relations, top_ids, int(merges)

        def run() -> GraphStats:
            entities, facts, open_, relations, top_ids, merges = self.db.read_sync(read)
            found = self.entities_sync(top_ids)
            return GraphStats(
                entities,
                facts,
                open_,
                facts - open_,
                relations,
                tuple(found[i] for i in top_ids if i in found),
                merges,
            )

        return await anyio.to_thread.run_sync(run)

    async def facts_page(
        self,
        *,
        reader: str | None,
        query: str = "",
        include_past: bool = True,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Fact]:
        """Facts `reader` may see, current first then newest; `query` keeps those whose
        subject, relation or object contains it (case-insensitive)."""
        seen, seen_params = reader_clause(reader, "f.member")
        where, params = [seen], list(seen_params)
        if not include_past:
            where.append("f.valid_to IS NULL")
        if query.strip():
            where.append("(s.name LIKE ? OR o.name LIKE ? OR f.relation LIKE ?)")
            params += [f"%{query.strip()}%"] * 3
        sql = (f"{_FACT_SELECT} WHERE {' AND '.join(where)}"
               " ORDER BY (f.valid_to IS NULL) DESC, f.valid_from DESC, f.id DESC LIMIT ? OFFSET ?")
        rows = await self.db.read(lambda c: c.execute(sql, (*params, int(limit), int(offset))).fetchall())
        return [fact_from_row(r) for r in rows]

    async def forget_fact(self, fact_id: int, *, reader: str | None) -> bool:
        """Delete one fact `reader` may see (the user asked to forget it)."""
        seen, seen_params = reader_clause(reader)

        def delete(c: sqlite3.Connection) -> bool:
            row = c.execute(f"SELECT subject_id, object_id FROM graph_facts WHERE id = ? AND {seen}",
                            (int(fact_id), *seen_params)).fetchone()
            if row is None:
                return False
            c.execute("DELETE FROM graph_facts WHERE id = ?", (int(fact_id),))
            mark_dirty(c, (row[0], row[1]))
            return True

        return await self.db.write(delete)

    # -- networkx view ----------------------------------------------------------------

    def neighbourhood_sync(
        self,
        names: Sequence[str],
        *,
        hops: int = 1,
        include_past: bool = False,
        max_nodes: int = 500,
    ) -> nx.MultiDiGraph:
        """The k-hop neighbourhood of `names` as a MultiDiGraph: nodes are entity ids with
        name/type/mentions, edges carry relation, fact id, validity and confidence."""
        import networkx as nx  # here: 0.2 s of import that a start does not need

        graph = nx.MultiDiGraph()

        def read(c: sqlite3.Connection) -> list[tuple[object, ...]]:
            seeds = {eid for n in names if (eid := self.find_entity_id(c, n)) is not None}
            seen, frontier, rows = set(seeds), set(seeds), {}
            past = "" if include_past else " AND valid_to IS NULL"
            for _ in range(max(0, hops)):
                if not frontier or len(seen) >= max_nodes:
                    break
                nxt: set[int] = set()
                for chunk in _chunks(sorted(frontier), 400):
                    marks = ",".join("?" * len(chunk))
                    for r in c.execute(
                        f"SELECT id, subject_id, relation, object_id, valid_from, valid_to, confidence"
                        f" FROM graph_facts WHERE (subject_id IN ({marks}) OR object_id IN ({marks})){past}",
                        (*chunk, *chunk),
                    ):
                        rows[r[0]] = tuple(r)
                        for node in (r[1], r[3]):
                            if node not in seen and len(seen) < max_nodes:
                                seen.add(node)
                                nxt.add(node)
                frontier = nxt
            graph.add_nodes_from(seen)
            return [r for r in rows.values() if r[1] in seen and r[3] in seen]

        for fid, s, rel, o, vf, vt, conf in self.db.read_sync(read):
            graph.add_edge(s, o, key=fid, relation=rel, valid_from=vf, valid_to=vt, confidence=conf)
        entities = self.entities_sync(list(graph.nodes))
        for node in list(graph.nodes):
            e = entities.get(node)
            if e is not None:
                graph.nodes[node].update(name=e.name, type=e.type, mentions=e.mention_count)
        return graph

    async def neighbourhood(
        self,
        names: Sequence[str],
        *,
        hops: int = 1,
        include_past: bool = False,
        max_nodes: int = 500,
    ) -> nx.MultiDiGraph:
        return await anyio.to_thread.run_sync(
            lambda: self.neighbourhood_sync(
                names, hops=hops, include_past=include_past, max_nodes=max_nodes
            )
        )


def _chunks(items: Sequence[int], size: int) -> Iterable[Sequence[int]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
