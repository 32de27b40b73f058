"""Online backups of the one SQLite database, and restoring one.

`backup_now(db_path, dest_dir, keep)` copies the live database with SQLite's backup API
(`sqlite3.Connection.backup`: consistent while the daemon writes; WAL content included),
checks the copy (`PRAGMA integrity_check`), names it `homeagent-YYYYmmdd-HHMMSS.db`, and
keeps the newest `keep` copies. `restore(backup, db_path)` checks the backup, refuses while
a daemon holds the data dir's lock, and replaces the database (its WAL and shared-memory
files removed) through a temp file and `os.replace`, keeping the old file beside it as
`homeagent.db.before-restore`.

The daemon holds `daemon.lock` in the data dir (`DaemonLock`, an exclusive `flock` on
an open file, released by the kernel when the process dies, so a crash leaves no stale
lock); `daemon_running(data_dir)` asks for it without waiting.
"""

from __future__ import annotations

import fcntl
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from homeagent.errors import HomeAgentError
from homeagent.log import get_logger

log = get_logger("homeagent.store.backup")

LOCK_FILE = "daemon.lock"
_NAME_RE = re.compile(r"^homeagent-\d{8}-\d{6}(?:-\d+)?\.db$")


class BackupError(HomeAgentError):
    """A backup could not be made or restored; the message says why and what to do."""


@dataclass(frozen=True)
class BackupFile:
    path: Path
    bytes: int
    created_at: float

    def as_dict(self) -> dict[str, object]:
        return {"path": str(self.path), "bytes": self.bytes, "created_at": self.created_at}


class DaemonLock:
    """Held by a running daemon for its data dir; a second daemon or a restore sees it."""

    def __init__(self, data_dir: Path):
        self.path = Path(data_dir) / LOCK_FILE
        self._handle: IO[str] | None = None

    def __enter__(self) -> DaemonLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until __exit__
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as err:
            handle.close()
            raise BackupError(
                f"another HomeAgent daemon is running on {self.path.parent} (it holds {self.path})"
            ) from err
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def daemon_running(data_dir: Path) -> int | None:
    """The pid of the daemon holding the data dir's lock, or None when none does."""
    path = Path(data_dir) / LOCK_FILE
    if not path.exists():
        return None
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            text = handle.read().strip()
            return int(text) if text.isdigit() else -1
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None


def integrity(path: Path) -> str:
    """`PRAGMA integrity_check` of a database file, read-only: "ok" or the problems."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as err:
        return f"cannot open: {err}"
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
        return "; ".join(str(r[0]) for r in rows) or "no answer"
    except sqlite3.DatabaseError as err:
        return f"not a database: {err}"
    finally:
        conn.close()


def list_backups(dest_dir: Path) -> list[BackupFile]:
    """The backups in `dest_dir`, oldest first."""
    if not dest_dir.is_dir():
        return []
    files = [p for p in dest_dir.iterdir() if p.is_file() and _NAME_RE.match(p.name)]
    out = [BackupFile(p, p.stat().st_size, p.stat().st_mtime) for p in files]
    return sorted(out, key=lambda b: (b.path.name, b.created_at))


def backup_now(db_path: Path, dest_dir: Path, keep: int, *, now: float | None = None) -> BackupFile:
    """Copy the live database into `dest_dir` and prune to the newest `keep` backups."""
    if keep < 1:
        raise BackupError("keep: at least one backup must be kept")
    if not db_path.is_file():
        raise BackupError(f"no database at {db_path} to back up (has the daemon ever started?)")
    dest_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now if now is not None else time.time()))
    target = dest_dir / f"homeagent-{stamp}.db"
    n = 1
    while target.exists():
        n += 1
        target = dest_dir / f"homeagent-{stamp}-{n}.db"
    part = target.with_name(f".{target.name}.part")
    source = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10.0)
    try:
        dest = sqlite3.connect(part)
        try:
            # Pages are copied in steps so the daemon's writer is never held up for long.
            source.backup(dest, pages=256, sleep=0.005)
            dest.execute("PRAGMA journal_mode = DELETE")
        finally:
            dest.close()
    except sqlite3.Error as err:
        part.unlink(missing_ok=True)
        raise BackupError(f"backup of {db_path} failed: {err}") from err
    finally:
        source.close()
    checked = integrity(part)
    if checked != "ok":
        part.unlink(missing_ok=True)
        raise BackupError(f"the backup copy of {db_path} failed its integrity check: {checked}")
    with open(part, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(part, target)
    made = BackupFile(target, target.stat().st_size, target.stat().st_mtime)
    for old in list_backups(dest_dir)[:-keep]:
        old.path.unlink(missing_ok=True)
        log.info("store.backup.pruned", path=str(old.path))
    log.info("store.backup.done", path=str(target), bytes=made.bytes)
    return made


def restore(backup: Path, db_path: Path, data_dir: Path) -> Path:
    """Replace the database with `backup`; refused while a daemon runs on `data_dir`.
    Returns where the previous database was kept."""
    pid = daemon_running(data_dir)
    if pid is not None:
        raise BackupError(
            f"the daemon is running (pid {pid}) on {data_dir}; stop it first "
            "(systemctl stop homeagent, or Ctrl-C), then restore"
        )
    if not backup.is_file():
        raise BackupError(f"backup file {backup} does not exist")
    checked = integrity(backup)
    if checked != "ok":
        raise BackupError(f"{backup} is not a sound SQLite database ({checked}); choose another backup")
    with DaemonLock(data_dir):  # no daemon may start halfway through
        db_path.parent.mkdir(parents=True, exist_ok=True)
        part = db_path.with_name(f".{db_path.name}.restore")
        src = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
        try:
            dst = sqlite3.connect(part)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        kept = db_path.with_name(f"{db_path.name}.before-restore")
        if db_path.exists():
            # Fold the WAL into the old file first, so what is kept is whole.
            try:
                old = sqlite3.connect(db_path)
                old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                old.close()
            except sqlite3.Error:
                pass
            os.replace(db_path, kept)
        for suffix in ("-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        os.replace(part, db_path)
    log.info("store.backup.restored", backup=str(backup), db=str(db_path))
    return kept
