"""The ordered list of schema migrations. Append only: never edit a released one."""

from __future__ import annotations

import sqlite3

from homeagent.store.db import Migration


def _0001_messages(conn: sqlite3.Connection) -> None:
    # The one continuous conversation of the agent, in order. The working context
    # is rebuilt from here after a restart.
    conn.execute(
        """CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            turn_id TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            content TEXT NOT NULL,
            channel TEXT NOT NULL,
            device_id TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX messages_turn ON messages(turn_id)")


def _0002_devices(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE devices (
            device_id TEXT PRIMARY KEY,
            channel TEXT NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            first_seen REAL NOT NULL,
            last_seen REAL NOT NULL
        )"""
    )


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "messages", _0001_messages),
    Migration(2, "devices", _0002_devices),
)
