"""The SQLite connection owner.

One database file in the data dir, in WAL mode with a busy timeout. Writes are
serialized through one connection guarded by a lock and run in a worker thread, so the
event loop never blocks on disk; reads use a connection per worker thread and run
concurrently with the writer (WAL). `synchronous=FULL` makes every committed write survive
power loss and `kill -9`.

Migrations are an ordered list of named functions recorded in `schema_migrations`; the
highest applied version is mirrored into `PRAGMA user_version`. A database whose version
is newer than this code knows is refused instead of being silently misread.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio

from homeagent.errors import SchemaVersionError, StartupError
from homeagent.log import get_logger

T = TypeVar("T")
log = get_logger("homeagent.store")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    apply: Callable[[sqlite3.Connection], None]


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _private(path: Path) -> None:
    """The database and its WAL files are the owner's alone (0600): they hold a household's
    words. SQLite gives the -wal and -shm files the main file's mode."""
    if not path.exists():
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            if p.stat().st_mode & 0o077:
                p.chmod(0o600)


class Database:
    """Async facade over one SQLite file. Use as an async context manager."""

    def __init__(self, path: Path, migrations: Sequence[Migration], *, move_corrupt: bool = False):
        """`move_corrupt`: a file failing quick_check is moved aside (the daemon's start);
        otherwise (the CLI's tools) it is only refused, and left where it is."""
        self.path = Path(path)
        self._move_corrupt = move_corrupt
        self._migrations = sorted(migrations, key=lambda m: m.version)
        versions = [m.version for m in self._migrations]
        if len(set(versions)) != len(versions) or any(v < 1 for v in versions):
            raise ValueError(f"migration versions must be unique positive integers: {versions}")
        self._write_lock = threading.Lock()
        self._writer: sqlite3.Connection | None = None
        # Reader connections by the worker thread that owns them; anyio retires idle
        # worker threads, so connections of dead threads are closed as new ones open.
        self._reader_conns: dict[threading.Thread, sqlite3.Connection] = {}
        self._reader_lock = threading.Lock()
        # True when open() found no database (missing or zero-length) and made a new one.
        self.created_fresh = False

    @property
    def schema_version(self) -> int:
        return max((m.version for m in self._migrations), default=0)

    async def __aenter__(self) -> Database:
        await anyio.to_thread.run_sync(self.open)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await anyio.to_thread.run_sync(self.close)

    def open(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.created_fresh = not self.path.exists() or self.path.stat().st_size == 0
            _private(self.path)
            self._writer = writer = _connect(self.path) if self.created_fresh else self._checked()
            mode = writer.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.DatabaseError as err:
            raise StartupError(
                f"database {self.path} cannot be opened: {err} "
                "(check the file and the permissions of the data dir)"
            ) from err
        except OSError as err:
            raise StartupError(f"data dir {self.path.parent} is not usable: {err}") from err
        if str(mode).lower() != "wal":
            log.warning("store.wal_unavailable", path=str(self.path), journal_mode=mode)
        try:
            self._migrate()
        except BaseException:
            # __aexit__ does not run when __aenter__ fails: do not leak the connection.
            writer.close()
            self._writer = None
            raise

    def _checked(self) -> sqlite3.Connection:
        """`PRAGMA quick_check` before anything is served: a corrupt file is moved aside
        and the start refused with the way back, instead of serving (and writing) on it."""
        writer: sqlite3.Connection | None = None
        try:
            # Garbage in the schema pages fails already in the connection's own pragmas.
            writer = _connect(self.path)
            rows = writer.execute("PRAGMA quick_check").fetchall()
            problem = "" if rows and rows[0][0] == "ok" else "; ".join(str(r[0]) for r in rows[:3])
        except sqlite3.DatabaseError as err:
            problem = str(err)
        if not problem and writer is not None:
            return writer
        if writer is not None:
            writer.close()
        if not self._move_corrupt:
            raise StartupError(
                f"database {self.path} is corrupt (quick_check: {problem[:200]}); `homeagent serve` moves it "
                "aside and rebuilds the conversation from memory.jsonl, or put a backup in its place"
            )
        stamp = time.strftime("%Y%m%dT%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        for suffix in ("", "-wal", "-shm"):
            src = self.path.with_name(self.path.name + suffix)
            if src.exists():
                src.rename(aside.with_name(aside.name + suffix))
        log.error("store.corrupt", path=str(self.path), problem=problem, moved_to=str(aside))
        raise StartupError(
            f"database {self.path} is corrupt (quick_check: {problem[:200]}); it was moved aside to "
            f"{aside} and HomeAgent will not serve on it. Put a backup in its place, or start again: "
            "a missing database is rebuilt from memory.jsonl (the conversation and recent context; "
            "runs, action records, members and the audit log cannot be rebuilt)."
        )

    def close(self) -> None:
        with self._reader_lock:
            for conn in self._reader_conns.values():
                conn.close()
            self._reader_conns.clear()
        if self._writer is not None:
            with self._write_lock:
                self._writer.close()
                self._writer = None

    def _migrate(self) -> None:
        assert self._writer is not None
        conn = self._writer
        current = conn.execute("PRAGMA user_version").fetchone()[0]
        if current > self.schema_version:
            raise SchemaVersionError(
                f"database {self.path} has schema version {current}, newer than this "
                f"HomeAgent understands ({self.schema_version}); upgrade HomeAgent or "
                "restore a backup made by this version"
            )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
        )
        for migration in self._migrations:
            if migration.version <= current:
                continue
            started = time.monotonic()
            conn.execute("BEGIN IMMEDIATE")
            try:
                migration.apply(conn)
                conn.execute(
                    "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, time.time()),
                )
                conn.execute(f"PRAGMA user_version = {int(migration.version)}")
                conn.execute("COMMIT")
            except Exception as err:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise StartupError(
                    f"database {self.path}: migration {migration.version} "
                    f"({migration.name}) failed and was rolled back: {err}"
                ) from err
            log.info(
                "store.migration.applied",
                version=migration.version,
                migration=migration.name,
                duration_ms=round((time.monotonic() - started) * 1000, 1),
            )

    # -- sync API, for worker threads ---------------------------------------------------

    def write_sync(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` inside one IMMEDIATE transaction on the writer connection."""
        if self._writer is None:
            raise StartupError("database is not open")
        with self._write_lock:
            conn = self._writer
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
                conn.execute("COMMIT")
            except BaseException:
                # Some errors end the transaction themselves; a failed COMMIT leaves it
                # open, which would wedge every later BEGIN on this connection.
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            return result

    def read_sync(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._writer is None:
            raise StartupError("database is not open")
        me = threading.current_thread()
        with self._reader_lock:
            conn = self._reader_conns.get(me)
        if conn is None:
            conn = _connect(self.path)
            conn.execute("PRAGMA query_only = ON")
            with self._reader_lock:
                for thread in [t for t in self._reader_conns if not t.is_alive()]:
                    self._reader_conns.pop(thread).close()
                self._reader_conns[me] = conn
        return fn(conn)

    # -- async API ----------------------------------------------------------------------

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await anyio.to_thread.run_sync(self.write_sync, fn)

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await anyio.to_thread.run_sync(self.read_sync, fn)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one write statement; returns lastrowid."""
        return await self.write(lambda c: c.execute(sql, params).lastrowid or 0)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return await self.read(lambda c: c.execute(sql, params).fetchall())

    async def check(self) -> str:
        """Health probe: 'ok' or a short description of the problem."""
        try:
            row = await self.read(lambda c: c.execute("PRAGMA quick_check").fetchone())
        except sqlite3.Error as err:
            return f"error: {err}"
        return "ok" if row and row[0] == "ok" else f"error: {row[0] if row else 'no answer'}"
