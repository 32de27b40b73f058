"""The scheduler's tables (migration 120): reminders and what happened to each.

`reminders` holds one row per reminder occurrence, under the occurrence's stable key
(`homeagent.actions.due.DueItem.key`, or `snooze:<id>:<n>` for a snoozed one), so a
reminder is claimed once and never delivered twice, across restarts too. Its status
moves pending → (held →) delivered → snoozed | acknowledged, or to dropped when what it
was about was dealt with before it went out (the task done, the habit checked in).
`reminder_log` records every step (held, delivered with the channels that carried it,
snoozed, acknowledged, dropped).
Moments are ISO 8601 with their offset; `*_ts` are the same moments in epoch seconds,
for ordering and comparison.
"""

from __future__ import annotations

import sqlite3

from homeagent.store.db import Migration


def _0120_reminders(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE reminders (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            key TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            source_id INTEGER,
            member TEXT NOT NULL DEFAULT '',
            title TEXT NOT NULL,
            about TEXT NOT NULL DEFAULT '',
            due_at TEXT NOT NULL,
            due_ts REAL NOT NULL,
            urgent INTEGER NOT NULL DEFAULT 0,
            late INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'held', 'delivered', 'snoozed', 'acknowledged', 'dropped')),
            snoozed_from INTEGER REFERENCES reminders(id),
            channels TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            delivered_at TEXT,
            delivered_ts REAL,
            acknowledged_at TEXT,
            snoozed_until TEXT
        )"""
    )
    conn.execute("CREATE INDEX reminders_status_due ON reminders(status, due_ts)")
    conn.execute("CREATE INDEX reminders_delivered ON reminders(member, delivered_ts)")
    conn.execute(
        """CREATE TABLE reminder_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            reminder_id INTEGER NOT NULL REFERENCES reminders(id),
            action TEXT NOT NULL CHECK (action IN ('held', 'delivered', 'snoozed', 'acknowledged', 'dropped')),
            channels TEXT NOT NULL DEFAULT '[]',
            member TEXT NOT NULL DEFAULT '',
            detail TEXT NOT NULL DEFAULT '',
            at TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX reminder_log_reminder ON reminder_log(reminder_id)")


MIGRATIONS: tuple[Migration, ...] = (Migration(120, "schedule_reminders", _0120_reminders),)
