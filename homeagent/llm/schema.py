"""The llm package's tables: token usage per provider per day (versions 40–44 are ours)."""

from __future__ import annotations

import sqlite3

from homeagent.store.db import Migration


def _0040_llm_usage(conn: sqlite3.Connection) -> None:
    # One row per day (in the home's timezone), provider and model; counters only grow.
    conn.execute(
        """CREATE TABLE llm_usage (
            day TEXT NOT NULL,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            cloud INTEGER NOT NULL CHECK (cloud IN (0, 1)),
            requests INTEGER NOT NULL DEFAULT 0,
            failures INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            cached_tokens INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (day, provider, model)
        )"""
    )


MIGRATIONS: tuple[Migration, ...] = (Migration(40, "llm_usage", _0040_llm_usage),)
