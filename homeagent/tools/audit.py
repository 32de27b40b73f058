"""The tool-call audit log: one append-only row per call (seed 004 §3.5, §5.2).

Each row keeps the tool's name, its arguments with secrets masked (`homeagent.log.redact`),
the permission decision, a bounded summary of the result, the duration, success, the
channel, device, member and turn. Triggers refuse UPDATE and DELETE, so the table is
append-only even for code that tries otherwise.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from homeagent.chat import ToolCall
from homeagent.log import get_logger, redact, redact_text
from homeagent.store import Database
from homeagent.store.health import WriterHealth
from homeagent.tools.registry import ToolContext, ToolResult

log = get_logger("homeagent.tools.audit")

SUMMARY_CHARS = 500


def create_tool_call_log(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE tool_call_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at REAL NOT NULL,
            turn_id TEXT NOT NULL,
            call_id TEXT NOT NULL DEFAULT '',
            channel TEXT NOT NULL DEFAULT '',
            device_id TEXT NOT NULL DEFAULT '',
            member TEXT NOT NULL DEFAULT '',
            name TEXT NOT NULL,
            arguments TEXT NOT NULL,
            decision TEXT NOT NULL DEFAULT 'allow',
            success INTEGER NOT NULL,
            result_summary TEXT NOT NULL,
            duration_ms REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX tool_call_log_turn ON tool_call_log(turn_id)")
    conn.execute("CREATE INDEX tool_call_log_name ON tool_call_log(name, created_at)")
    for op in ("UPDATE", "DELETE"):
        conn.execute(
            f"CREATE TRIGGER tool_call_log_no_{op.lower()} BEFORE {op} ON tool_call_log "
            "BEGIN SELECT RAISE(ABORT, 'tool_call_log is append-only'); END"
        )


@dataclass(frozen=True)
class AuditEntry:
    id: int
    created_at: float
    turn_id: str
    call_id: str
    channel: str
    device_id: str
    member: str
    name: str
    arguments: Any
    decision: str
    success: bool
    result_summary: str
    duration_ms: float


def redact_arguments(arguments: str) -> str:
    """The call's arguments as JSON with secret-named keys and secret-looking values masked."""
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        return redact_text(arguments)[:SUMMARY_CHARS]
    return json.dumps(redact(value), ensure_ascii=False)


def summarize(content: str, limit: int = SUMMARY_CHARS) -> str:
    text = redact_text(" ".join(content.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


_INSERT = (
    "INSERT INTO tool_call_log(created_at, turn_id, call_id, channel, device_id, member,"
    " name, arguments, decision, success, result_summary, duration_ms)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
MAX_PENDING = 10_000  # rows kept in memory while the database cannot take them


class AuditLog:
    """Writes and reads `tool_call_log`. Recording never raises into the tool loop: a row
    that cannot be written (a full disk) is kept and written with the next one, and the
    failure shows in /healthz (`health`)."""

    def __init__(self, db: Database):
        self._db = db
        self.health = WriterHealth("audit")
        self._pending: list[tuple[Any, ...]] = []

    async def record(
        self,
        call: ToolCall,
        result: ToolResult,
        ctx: ToolContext,
        *,
        decision: str = "allow",
    ) -> None:
        row = (
            time.time(),
            ctx.turn_id,
            call.id,
            ctx.channel,
            ctx.device_id,
            getattr(ctx, "member", ""),
            call.name,
            redact_arguments(call.arguments),
            decision,
            1 if result.ok else 0,
            summarize(result.content),
            float(result.duration_ms),
        )
        self._pending.append(row)
        rows, self._pending = self._pending, []
        try:
            await self._db.write(lambda c: c.executemany(_INSERT, rows))
        except sqlite3.Error as err:
            # The audit trail must not end the turn: keep the rows for the next write.
            self._pending = (rows + self._pending)[-MAX_PENDING:]
            self.health.failed(err)
            log.warning("tool.audit.write_failed", tool=call.name, error=str(err), pending=len(self._pending))
        else:
            self.health.succeeded()
        self.health.pending = len(self._pending)

    async def recent(
        self, *, limit: int = 50, name: str | None = None, turn_id: str | None = None
    ) -> Sequence[AuditEntry]:
        where, params = [], []
        if name:
            where.append("name = ?")
            params.append(name)
        if turn_id:
            where.append("turn_id = ?")
            params.append(turn_id)
        sql = "SELECT * FROM tool_call_log"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC LIMIT ?"
        rows = await self._db.fetchall(sql, (*params, int(limit)))
        return [
            AuditEntry(
                **{**dict(r), "arguments": json.loads(r["arguments"]) if r["arguments"].startswith(("{", "[")) else r["arguments"],
                   "success": bool(r["success"])}
            )
            for r in rows
        ]
