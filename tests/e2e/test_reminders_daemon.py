"""`homeagent serve` as a subprocess: a reminder missed while it was down comes once, late.

The daemon runs on the system clock here, so the missed reminder is a task whose due time
had passed when the daemon started again (written into the real database between runs,
as the previous run had left it). The catch-up check finishes before the API serves, so
the first read of `GET /api/events` already holds it.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.request
from datetime import datetime, timedelta

from .conftest import start_daemon


def pushed(url: str) -> list[dict]:
    with urllib.request.urlopen(url + "/api/events?after=0", timeout=10) as resp:
        assert resp.headers["Content-Type"].startswith("text/event-stream")
        body = resp.read().decode()
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]


def test_a_reminder_missed_while_down_is_delivered_once_at_start(tmp_path):
    sections = {"llm": {"provider": "echo"}, "knowledge": {"watch": False}}
    first = start_daemon(tmp_path, **sections)
    assert pushed(first.url) == []
    assert first.stop() == 0

    now = datetime.now().astimezone()
    due = (now - timedelta(minutes=3)).replace(microsecond=0)
    with sqlite3.connect(tmp_path / "data" / "homeagent.db") as db:
        db.execute(
            "INSERT INTO tasks(content, due, due_day, member, created_at) VALUES (?, ?, ?, '', ?)",
            ("renew the car insurance", due.isoformat(), due.date().isoformat(),
             (now - timedelta(hours=1)).isoformat(timespec="seconds")),
        )

    second = start_daemon(tmp_path, **sections)
    events = pushed(second.url)
    assert second.stop() == 0
    third = start_daemon(tmp_path, **sections)
    again = pushed(third.url)
    assert third.stop() == 0

    assert len(events) == 1, events
    assert events[0]["type"] == "reminder" and events[0]["late"] is True
    assert events[0]["text"].startswith("Reminder: renew the car insurance (due ")
    assert events[0]["due"] == due.isoformat()
    assert again == events  # a third start delivers nothing twice
