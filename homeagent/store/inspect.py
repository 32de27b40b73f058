"""A look at a database file without opening it for the daemon: read only, no migrations,
no WAL switch (what `homeagent doctor` needs while the daemon may be running)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FileState:
    schema_version: int
    integrity: str  # "ok", or SQLite's first complaint


def inspect_file(path: Path, *, timeout: float = 5.0) -> FileState:
    """The file's schema version and quick integrity check; `sqlite3.Error` when it
    cannot be read as a database."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        integrity = conn.execute("PRAGMA quick_check").fetchone()[0]
    finally:
        conn.close()
    return FileState(int(version), str(integrity))
