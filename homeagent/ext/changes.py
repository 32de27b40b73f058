"""The change tracker: every file the agent writes is versioned before it changes.

A writer calls `record_sync(path, new_text, reason)` just before it replaces a file (the
knowledge base does, for knowledge it creates and uploads it stores; an exporter writes
through `write`). The tracker keeps the file's content before and after in the
`file_changes` table, so any change can be shown (`diff`) and undone (`revert`). A revert
is itself a change (its `reverts` names the one undone), so it can be undone in turn.

    homeagent changes list | diff ID | revert ID        GET /api/changes
"""

from __future__ import annotations

import difflib
import os
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homeagent.errors import HomeAgentError
from homeagent.log import get_logger
from homeagent.store import Database
from homeagent.store.db import Migration

log = get_logger("homeagent.ext.changes")


class ChangeError(HomeAgentError):
    """No such change, or it cannot be reverted; the message says which and why."""


def _0140_file_changes(conn: sqlite3.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE file_changes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            path TEXT NOT NULL,
            op TEXT NOT NULL CHECK (op IN ('create', 'modify', 'delete')),
            before BLOB,
            after BLOB,
            reason TEXT NOT NULL DEFAULT '',
            reverts INTEGER REFERENCES file_changes(id),
            created_at REAL NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX file_changes_path ON file_changes(path, id)")


MIGRATIONS: tuple[Migration, ...] = (Migration(140, "file_changes", _0140_file_changes),)


@dataclass(frozen=True)
class Change:
    id: int
    path: str
    op: str
    reason: str
    reverts: int | None
    created_at: float
    before: bytes | None = None
    after: bytes | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "path": self.path, "op": self.op, "reason": self.reason,
            "reverts": self.reverts,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.created_at)),
            "bytes_before": None if self.before is None else len(self.before),
            "bytes_after": None if self.after is None else len(self.after),
        }


def _row(row: sqlite3.Row) -> Change:
    return Change(row["id"], row["path"], row["op"], row["reason"], row["reverts"], row["created_at"],
                  row["before"], row["after"])


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ChangeTracker:
    def __init__(self, db: Database):
        self.db = db

    def record_sync(self, path: Path, after: str | bytes | None, reason: str = "", *,
                    reverts: int | None = None) -> Change:
        """Record what `path` holds now and what it is about to hold (None: deleted).
        Call from a worker thread, just before the write."""
        path = Path(path).absolute()
        new = after.encode("utf-8") if isinstance(after, str) else after
        before = _read(path)
        op = "create" if before is None else ("delete" if new is None else "modify")
        now = time.time()

        def insert(conn: sqlite3.Connection) -> int:
            cur = conn.execute(
                "INSERT INTO file_changes (path, op, before, after, reason, reverts, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", (str(path), op, before, new, reason, reverts, now))
            return int(cur.lastrowid or 0)

        change_id = self.db.write_sync(insert)
        log.info("ext.changes.recorded", change_id=change_id, path=str(path), op=op)
        return Change(change_id, str(path), op, reason, reverts, now, before, new)

    def write_sync(self, path: Path, text: str, reason: str = "") -> Change:
        """Version, then write: for writers without a store of their own (exports)."""
        change = self.record_sync(path, text, reason)
        _write_atomic(Path(path), text.encode("utf-8"))
        return change

    async def write(self, path: Path, text: str, reason: str = "") -> Change:
        import anyio

        return await anyio.to_thread.run_sync(self.write_sync, path, text, reason)

    async def list(self, limit: int = 50, offset: int = 0) -> list[Change]:
        rows = await self.db.fetchall(
            "SELECT id, path, op, reason, reverts, created_at, NULL AS before, NULL AS after "
            "FROM file_changes ORDER BY id DESC LIMIT ? OFFSET ?", (max(1, min(limit, 500)), max(0, offset)))
        return [_row(r) for r in rows]

    async def get(self, change_id: int) -> Change:
        rows = await self.db.fetchall("SELECT * FROM file_changes WHERE id = ?", (change_id,))
        if not rows:
            raise ChangeError(f"no change with id {change_id} (see `homeagent changes list`)")
        return _row(rows[0])

    async def diff(self, change_id: int) -> str:
        change = await self.get(change_id)
        before = (change.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        after = (change.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        name = change.path
        lines = difflib.unified_diff(
            before, after, fromfile=f"a{name}" if change.before is not None else "/dev/null",
            tofile=f"b{name}" if change.after is not None else "/dev/null")
        text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
        return text or f"change {change_id}: no difference in content\n"

    async def revert(self, change_id: int) -> Change:
        """Put the file back as it was before `change_id`; recorded as a new change."""
        import anyio

        change = await self.get(change_id)

        def undo() -> Change:
            path = Path(change.path)
            recorded = self.record_sync(path, change.before, f"revert of change {change_id}", reverts=change_id)
            if change.before is None:
                path.unlink(missing_ok=True)
            else:
                _write_atomic(path, change.before)
            return recorded

        done = await anyio.to_thread.run_sync(undo)
        log.info("ext.changes.reverted", change_id=change_id, revert_id=done.id, path=change.path)
        return done
