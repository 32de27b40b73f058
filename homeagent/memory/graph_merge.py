"""Synonym merging of graph entities, journaled so every merge can be undone.

Candidates are pairs of entity names whose character-bigram Jaccard similarity exceeds a
threshold (北京市朝阳区 / 北京朝阳区, "New York" / "NewYork"). Pairs are found with
prefix filtering (PPJoin): names' bigrams are ordered rarest first, and two sets with
Jaccard ≥ t must share a bigram among the first |A| − ⌈t·|A|⌉ + 1 of either, so only those
are indexed and probed. That keeps the search near linear for thousands of entities.

A merge keeps the entity with more mentions: it gains the other's name as an alias, its
aliases, its mention count and every fact (re-pointed; a fact both held is one fact with
the mention counts summed; contradicting single-valued facts are closed, older first).
Before anything changes, the rows the merge touches are written, as they were, to
`graph_merges`; `undo_merge` writes them back.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from homeagent.errors import NotFoundError, RequestError
from homeagent.log import get_logger
from homeagent.memory.graph import FACT_COLUMNS, GraphDB, mark_dirty
from homeagent.text import char_bigrams

log = get_logger("homeagent.memory.graph")

# Values, dates and documents are never "synonyms" of each other, however alike.
NEVER_MERGE_TYPES = frozenset({"value", "number", "date", "time", "document"})
_DIGITS = re.compile(r"\d+")
_WATERMARK = "graph.merge_scanned_at"
_ENTITY_COLUMNS = "id, name, key, type, mention_count, created_at, updated_at"
_ALIAS_COLUMNS = "key, alias, entity_id"


@dataclass(frozen=True)
class MergeCandidate:
    keep_id: int
    drop_id: int
    keep_name: str
    drop_name: str
    score: float


@dataclass(frozen=True)
class MergeRecord:
    id: int
    kept_id: int
    dropped_id: int
    kept_name: str
    dropped_name: str
    score: float
    created_at: float
    undone_at: float | None = None


def find_synonyms_sync(
    graph: GraphDB,
    threshold: float = 0.5,
    *,
    since: float | None = None,
    exclude_types: frozenset[str] = NEVER_MERGE_TYPES,
) -> list[MergeCandidate]:
    """Entity pairs whose name-bigram Jaccard is above `threshold`, best first. With
    `since`, only pairs involving an entity created or updated at or after it (epoch
    seconds) are looked for: the heartbeat's incremental pass."""
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"merge threshold must be in (0, 1], got {threshold}")
    rows = graph.db.read_sync(
        lambda c: c.execute(
            "SELECT id, name, key, type, mention_count, updated_at FROM graph_entities"
        ).fetchall()
    )
    items = [
        (int(r[0]), r[1], r[3], int(r[4]), char_bigrams(r[2]), float(r[5]))
        for r in rows
        if r[3] not in exclude_types
    ]
    items = [it for it in items if it[4]]
    digits = [tuple(_DIGITS.findall(it[1])) for it in items]
    freq: dict[str, int] = defaultdict(int)
    for it in items:
        for g in it[4]:
            freq[g] += 1
    # Every set's prefix (rarest bigrams first) goes into the index; probes look there.
    index: dict[str, list[int]] = defaultdict(list)
    prefixes: list[list[str]] = []
    for pos, it in enumerate(items):
        toks = sorted(it[4], key=lambda g: (freq[g], g))
        n = len(toks)
        prefix = toks[: n - math.ceil(threshold * n - 1e-9) + 1]
        prefixes.append(prefix)
        for g in prefix:
            index[g].append(pos)
    probes = [p for p, it in enumerate(items) if since is None or it[5] >= since]
    probed = set(probes)
    found: list[MergeCandidate] = []
    for pos in probes:
        eid, name, type_, mentions, grams, _ = items[pos]
        n = len(grams)
        candidates = {o for g in prefixes[pos] for o in index[g]}
        for other in candidates:
            if other == pos or (other in probed and other < pos):
                continue  # each pair once: the probe with the lower position takes it
            o_id, o_name, o_type, o_mentions, o_grams, _ = items[other]
            m = len(o_grams)
            if m < threshold * n - 1e-9 or n < threshold * m - 1e-9:
                continue  # size filter: the smaller set cannot reach the threshold
            if type_ and o_type and type_ != o_type:
                continue
            if digits[pos] != digits[other]:
                continue  # Room 101 / Room 102, iPhone 14 / 15: alike, not the same
            inter = len(grams & o_grams)
            score = inter / (n + m - inter)
            if score > threshold:
                a = (mentions, -eid, eid, name)
                b = (o_mentions, -o_id, o_id, o_name)
                keep, drop = (a, b) if a > b else (b, a)
                found.append(MergeCandidate(keep[2], drop[2], keep[3], drop[3], round(score, 4)))
    found.sort(key=lambda c: (-c.score, c.keep_id, c.drop_id))
    return found


def _rows(conn: sqlite3.Connection, sql: str, params: Sequence[object]) -> list[list[Any]]:
    return [list(r) for r in conn.execute(sql, params).fetchall()]


def merge_tx(
    graph: GraphDB, conn: sqlite3.Connection, keep_id: int, drop_id: int, score: float, now: float
) -> MergeRecord:
    """Merge entity `drop_id` into `keep_id` inside the caller's write transaction."""
    if keep_id == drop_id:
        raise ValueError("cannot merge an entity into itself")
    ents = {
        int(r[0]): r
        for r in _rows(
            conn,
            f"SELECT {_ENTITY_COLUMNS} FROM graph_entities WHERE id IN (?, ?)",
            (keep_id, drop_id),
        )
    }
    if keep_id not in ents or drop_id not in ents:
        raise NotFoundError(f"entity {keep_id if keep_id not in ents else drop_id} does not exist")
    keep, drop = ents[keep_id], ents[drop_id]
    snapshot = {
        "entities": [keep, drop],
        "aliases": _rows(
            conn,
            f"SELECT {_ALIAS_COLUMNS} FROM graph_aliases WHERE entity_id IN (?, ?) OR key = ?",
            (keep_id, drop_id, drop[2]),
        ),
        "facts": _rows(
            conn,
            f"SELECT {FACT_COLUMNS} FROM graph_facts WHERE subject_id IN (?, ?) OR object_id IN (?, ?)",
            (keep_id, drop_id, keep_id, drop_id),
        ),
    }
    cur = conn.execute(
        "INSERT INTO graph_merges(kept_id, dropped_id, kept_name, dropped_name, score, snapshot,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (keep_id, drop_id, keep[1], drop[1], score, json.dumps(snapshot, ensure_ascii=False), now),
    )
    merge_id = int(cur.lastrowid or 0)

    # Facts: re-point, fold duplicates of open facts, drop self-loops.
    for fid, s, rel, o, conf, vf, vt, mc, owner in conn.execute(
        "SELECT id, subject_id, relation, object_id, confidence, valid_from, valid_to, mention_count,"
        " member FROM graph_facts WHERE subject_id = ? OR object_id = ? ORDER BY id",
        (drop_id, drop_id),
    ).fetchall():
        ns = keep_id if s == drop_id else s
        no = keep_id if o == drop_id else o
        if ns == no:
            conn.execute("DELETE FROM graph_facts WHERE id = ?", (fid,))
            continue
        dup = None
        if vt is None:
            dup = conn.execute(
                "SELECT id, valid_from, date_bucket FROM graph_facts WHERE subject_id = ? AND relation = ?"
                " AND object_id = ? AND member = ? AND valid_to IS NULL AND id != ?",
                (ns, rel, no, owner, fid),
            ).fetchone()
        if dup is not None:
            bucket_row = conn.execute(
                "SELECT date_bucket FROM graph_facts WHERE id = ?", (fid,)
            ).fetchone()
            earlier = vf < dup[1]
            conn.execute(
                "UPDATE graph_facts SET mention_count = mention_count + ?, confidence = MAX(confidence, ?),"
                " valid_from = ?, date_bucket = ?, updated_at = ? WHERE id = ?",
                (
                    mc,
                    conf,
                    vf if earlier else dup[1],
                    bucket_row[0] if earlier else dup[2],
                    now,
                    dup[0],
                ),
            )
            conn.execute("DELETE FROM graph_facts WHERE id = ?", (fid,))
        else:
            conn.execute(
                "UPDATE graph_facts SET subject_id = ?, object_id = ?, updated_at = ? WHERE id = ?",
                (ns, no, now, fid),
            )
    # Two open values of a single-valued relation of one owner: the newest stays, older
    # ones close (one member's facts never close another's).
    by_rel: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for fid, rel, vf, owner in conn.execute(
        "SELECT id, relation, valid_from, member FROM graph_facts WHERE subject_id = ?"
        " AND valid_to IS NULL",
        (keep_id,),
    ):
        by_rel[(rel, owner)].append((int(fid), float(vf)))
    for (rel, _owner), facts in by_rel.items():
        if len(facts) < 2 or graph.relation_kind(conn, rel).cardinality != "one":
            continue
        facts.sort(key=lambda f: (f[1], f[0]))
        newest_from = facts[-1][1]
        for fid, _ in facts[:-1]:
            conn.execute(
                "UPDATE graph_facts SET valid_to = ?, updated_at = ? WHERE id = ?",
                (newest_from, now, fid),
            )
    # Names: the dropped name and its aliases become the kept entity's aliases.
    conn.execute("UPDATE graph_aliases SET entity_id = ? WHERE entity_id = ?", (keep_id, drop_id))
    conn.execute(
        "INSERT OR REPLACE INTO graph_aliases(key, alias, entity_id) VALUES (?, ?, ?)",
        (drop[2], drop[1], keep_id),
    )
    conn.execute(
        "UPDATE graph_entities SET mention_count = mention_count + ?, updated_at = ?,"
        " type = CASE WHEN type = '' THEN ? ELSE type END WHERE id = ?",
        (drop[4], now, drop[3], keep_id),
    )
    conn.execute("DELETE FROM graph_entities WHERE id = ?", (drop_id,))
    mark_dirty(conn, [keep_id, drop_id])
    return MergeRecord(merge_id, keep_id, drop_id, str(keep[1]), str(drop[1]), score, now)


def undo_tx(conn: sqlite3.Connection, merge_id: int | None, now: float) -> MergeRecord:
    """Write back the rows merge `merge_id` (default: the last one not undone) changed."""
    if merge_id is None:
        row = conn.execute(
            "SELECT id FROM graph_merges WHERE undone_at IS NULL ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise NotFoundError("there is no merge to undo")
        merge_id = int(row[0])
    row = conn.execute(
        "SELECT id, kept_id, dropped_id, kept_name, dropped_name, score, snapshot, created_at,"
        " undone_at FROM graph_merges WHERE id = ?",
        (merge_id,),
    ).fetchone()
    if row is None:
        raise NotFoundError(
            f"merge {merge_id} does not exist; list merges with `homeagent memory undo-merge --list`"
        )
    if row[8] is not None:
        raise RequestError(f"merge {merge_id} was already undone")
    keep_id, drop_id = int(row[1]), int(row[2])
    later = conn.execute(
        "SELECT id FROM graph_merges WHERE id > ? AND undone_at IS NULL AND"
        " (kept_id IN (?, ?) OR dropped_id IN (?, ?)) ORDER BY id DESC LIMIT 1",
        (merge_id, keep_id, drop_id, keep_id, drop_id),
    ).fetchone()
    if later is not None:
        raise RequestError(
            f"merge {later[0]} changed the same entities after merge {merge_id}; undo merge {later[0]} first"
        )
    snap = json.loads(row[6])
    try:
        for ent in snap["entities"]:
            _restore(conn, "graph_entities", _ENTITY_COLUMNS, ent)
        dropped_key = snap["entities"][1][2]
        conn.execute(
            "DELETE FROM graph_aliases WHERE (entity_id = ? AND key IN (SELECT value FROM json_each(?)))"
            " OR key = ?",
            (keep_id, json.dumps([a[0] for a in snap["aliases"]]), dropped_key),
        )
        conn.executemany(
            f"INSERT OR REPLACE INTO graph_aliases({_ALIAS_COLUMNS}) VALUES (?, ?, ?)",
            snap["aliases"],
        )
        for fact in snap["facts"]:
            _restore(conn, "graph_facts", FACT_COLUMNS, fact)
    except sqlite3.IntegrityError as err:
        raise RequestError(
            f"merge {merge_id} cannot be undone: facts written since conflict with it ({err})"
        ) from err
    conn.execute("UPDATE graph_merges SET undone_at = ? WHERE id = ?", (now, merge_id))
    mark_dirty(conn, [keep_id, drop_id])
    return MergeRecord(
        merge_id, keep_id, drop_id, row[3], row[4], float(row[5]), float(row[7]), now
    )


def _restore(conn: sqlite3.Connection, table: str, columns: str, row: Sequence[object]) -> None:
    """Put `row` back as it was: update it in place if its id exists, else insert it.
    (Not INSERT OR REPLACE: that would silently delete rows that conflict with it.)"""
    cols = [c.strip() for c in columns.split(",")]
    sets = ", ".join(f"{c} = ?" for c in cols[1:])
    cur = conn.execute(f"UPDATE {table} SET {sets} WHERE id = ?", (*row[1:], row[0]))
    if cur.rowcount == 0:
        conn.execute(
            f"INSERT INTO {table}({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", row
        )


async def merge_synonyms(
    graph: GraphDB, threshold: float = 0.5, *, limit: int = 1000, incremental: bool = False
) -> list[MergeRecord]:
    """Find and merge synonymous entities; each entity takes part in at most one merge a
    run (the next run continues a chain). `incremental` looks only at entities changed
    since the last complete incremental pass (a watermark in `memory_state`), which keeps
    a heartbeat over a large, settled graph cheap. Heavy parts run in worker threads."""
    started = graph.clock.now().timestamp()
    since = None
    if incremental:
        rows = await graph.db.fetchall(
            "SELECT value FROM memory_state WHERE key = ?", (_WATERMARK,)
        )
        since = float(rows[0][0]) if rows else None
    candidates = await anyio.to_thread.run_sync(
        lambda: find_synonyms_sync(graph, threshold, since=since)
    )
    plan: list[MergeCandidate] = []
    used: set[int] = set()
    complete = True  # every candidate merged or made moot by a merge of this run
    for cand in candidates:
        if cand.keep_id in used or cand.drop_id in used:
            complete = False  # a chain: the next run continues it
            continue
        if len(plan) >= limit:
            complete = False
            break
        used.update((cand.keep_id, cand.drop_id))
        plan.append(cand)

    def apply(conn: sqlite3.Connection) -> list[MergeRecord]:
        done = []
        for c in plan:
            try:
                done.append(merge_tx(graph, conn, c.keep_id, c.drop_id, c.score, started))
            except NotFoundError:
                continue  # merged or removed since the candidates were found; checked before any change
        if incremental and complete:
            conn.execute(
                "INSERT INTO memory_state(key, value, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value,"
                " updated_at = excluded.updated_at",
                (_WATERMARK, repr(started), started),
            )
        return done

    records = await graph.db.write(apply) if plan or incremental else []
    for rec in records[:20]:
        log.info(
            "memory.graph.merged",
            merge_id=rec.id,
            kept=rec.kept_name,
            dropped=rec.dropped_name,
            score=rec.score,
        )
    if len(records) > 20:
        log.info("memory.graph.merged_more", count=len(records) - 20, last_merge_id=records[-1].id)
    return records


async def undo_merge(graph: GraphDB, merge_id: int | None = None) -> MergeRecord:
    """Undo merge `merge_id` (default: the most recent one not yet undone)."""
    now = graph.clock.now().timestamp()
    record = await graph.db.write(lambda c: undo_tx(c, merge_id, now))
    log.info(
        "memory.graph.merge_undone",
        merge_id=record.id,
        kept=record.kept_name,
        restored=record.dropped_name,
    )
    return record


async def list_merges(graph: GraphDB, limit: int = 20) -> list[MergeRecord]:
    rows = await graph.db.fetchall(
        "SELECT id, kept_id, dropped_id, kept_name, dropped_name, score, created_at, undone_at"
        " FROM graph_merges ORDER BY id DESC LIMIT ?",
        (limit,),
    )
    return [
        MergeRecord(int(r[0]), int(r[1]), int(r[2]), r[3], r[4], float(r[5]), float(r[6]), r[7])
        for r in rows
    ]
