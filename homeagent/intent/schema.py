"""The intent layer's table: utterances the household taught it (corrections).

Version 160: far from the other packages' numbers, so branches do not collide.
"""

from __future__ import annotations

import sqlite3

from homeagent.store.db import Migration


def _0160_intent_examples(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE intent_examples (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL,
            action TEXT NOT NULL,
            arguments TEXT NOT NULL DEFAULT '{}',
            member TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        )"""
    )


MIGRATIONS: tuple[Migration, ...] = (Migration(160, "intent_examples", _0160_intent_examples),)
