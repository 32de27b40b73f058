"""SQLite store: one database file, WAL, serialized writers, versioned migrations."""

from homeagent.store.db import Database, Migration
from homeagent.store.migrations import MIGRATIONS

__all__ = ["Database", "Migration", "MIGRATIONS"]
