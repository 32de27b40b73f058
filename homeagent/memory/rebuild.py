"""Rebuilding a lost database from the text log (memory.jsonl).

memory.jsonl is the one append-only, fsynced record of every exchange. When the
database is missing or zero-length at start (a disk swap, a bad restore, a corrupt file
moved aside), the conversation (`messages`) and the short-term context are rebuilt from
it; what lives only in the database cannot be and is named in the log line: runs and
traces, the life actions' records (tasks, events, notes, money, health), members and
their tokens, the audit log and household modes. Knowledge is re-indexed from its files
as always, and the heartbeat distils the graph and documents from the log again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from homeagent.log import get_logger
from homeagent.memory.context import RelevanceContext
from homeagent.memory.textlog import TextMemory
from homeagent.store import Database

log = get_logger("homeagent.memory.rebuild")

NOT_REBUILT = (
    "runs and traces", "tasks, events, notes and the other action records", "members and tokens",
    "the tool audit log", "household modes",
)
CONTEXT_EXCHANGES = 6  # the newest exchanges put back into short-term context


@dataclass(frozen=True)
class Rebuilt:
    exchanges: int
    context_entries: int


async def rebuild_from_textlog(db: Database, textlog: TextMemory, context: RelevanceContext) -> Rebuilt:
    records = list(textlog.exchanges())
    if not records:
        return Rebuilt(0, 0)
    rows = []
    for r in records:
        owner = "" if r.meta.get("shared") else r.member
        at = r.at.timestamp()
        rows.append((r.turn_id, "user", r.user, r.channel, r.device_id, at, owner))
        rows.append((r.turn_id, "assistant", r.assistant, r.channel, r.device_id, at, owner))

    def write(conn: sqlite3.Connection) -> None:
        conn.executemany(
            "INSERT INTO messages(turn_id, role, content, channel, device_id, created_at, member) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)", rows,
        )

    await db.write(write)
    entries = 0
    for r in records[-CONTEXT_EXCHANGES:]:
        owner = "" if r.meta.get("shared") else r.member
        await context.append("user", r.user, r.turn_id, owner)
        entries += 1
        if r.assistant:
            await context.append("assistant", r.assistant, r.turn_id, owner)
            entries += 1
    log.warning(
        "store.rebuilt_from_text_log", exchanges=len(records), context_entries=entries,
        not_rebuilt=", ".join(NOT_REBUILT),
    )
    return Rebuilt(len(records), entries)
