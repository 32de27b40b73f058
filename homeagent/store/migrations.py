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


def _0030_runs(conn: sqlite3.Connection) -> None:
    # Every turn is a run; every event of a run is stored under (run_id, sequence).
    conn.execute(
        """CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            channel TEXT NOT NULL,
            device_id TEXT NOT NULL DEFAULT '',
            member TEXT NOT NULL DEFAULT '',
            input TEXT NOT NULL,
            status TEXT NOT NULL,
            output TEXT NOT NULL DEFAULT '',
            error_code TEXT NOT NULL DEFAULT '',
            error_message TEXT NOT NULL DEFAULT '',
            provider TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL DEFAULT '',
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            started_at REAL,
            finished_at REAL,
            config_snapshot TEXT NOT NULL DEFAULT '{}',
            last_sequence INTEGER NOT NULL DEFAULT 0
        )"""
    )
    conn.execute("CREATE INDEX runs_created ON runs(created_at)")
    conn.execute("CREATE INDEX runs_status ON runs(status, created_at)")
    conn.execute(
        """CREATE TABLE run_events (
            run_id TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            type TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (run_id, sequence)
        ) WITHOUT ROWID"""
    )


def _0031_members(conn: sqlite3.Connection) -> None:
    # Household members and their API tokens (only a hash of each token is kept).
    conn.execute(
        """CREATE TABLE members (
            name TEXT PRIMARY KEY,
            token_hash TEXT NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            revoked_at REAL
        )"""
    )
    conn.execute("ALTER TABLE messages ADD COLUMN member TEXT NOT NULL DEFAULT ''")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "messages", _0001_messages),
    Migration(2, "devices", _0002_devices),
    Migration(30, "runs", _0030_runs),
    Migration(31, "members", _0031_members),
)
