"""Repeating tasks and events move on: once an occurrence's moment has passed (its
reminder claimed, so it is still delivered), the record is scheduled for the next one.

- a repeating task (open, with a due time) gets the next due after both its due and now,
  so a daemon that was down skips the missed occurrences instead of sending them all;
- a repeating event gets a new row for the next occurrence (same length, place, notes,
  reminder), and the past one keeps its place in the calendar as a one-off.

A task due on a day without a time moves on when it is completed (`complete_task`).
The scheduler calls `roll` at every check, after claiming what fell due.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from homeagent.actions.repeat import RepeatError, parse_repeat
from homeagent.actions.tasks import next_due
from homeagent.log import get_logger
from homeagent.store import Database

log = get_logger("homeagent.schedule")


async def roll(db: Database, now: datetime) -> list[tuple[str, int, str]]:
    """Move every repeating record whose moment is past to its next occurrence; returns
    (kind, id, next moment) for each (for an event, the id of the new row)."""
    stamp = now.isoformat(timespec="seconds")

    def write(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
        moved: list[tuple[str, int, str]] = []
        for r in conn.execute(
            "SELECT id, due, repeat FROM tasks WHERE status = 'open' AND repeat != '' AND due LIKE '%T%'"
        ).fetchall():
            if datetime.fromisoformat(r["due"]) > now:
                continue
            nxt = next_due(r["repeat"], r["due"], now)
            if nxt is not None:
                conn.execute("UPDATE tasks SET due = ?, due_day = ? WHERE id = ?", (nxt[0], nxt[1], r["id"]))
                moved.append(("task", r["id"], nxt[0]))
        for r in conn.execute("SELECT * FROM events WHERE repeat != ''").fetchall():
            timed = "T" in r["start"]
            begins = datetime.fromisoformat(r["start"]) if timed else None
            if (begins is not None and begins > now) or (begins is None and r["day"] >= now.date().isoformat()):
                continue
            try:
                rule = parse_repeat(r["repeat"])
            except RepeatError:
                continue
            anchor = begins or datetime.fromisoformat(r["day"]).replace(tzinfo=now.tzinfo)
            moment = rule.next_after(max(anchor, now), begins or anchor.date())
            start = moment.isoformat(timespec="seconds") if timed else moment.date().isoformat()
            end = None
            if r["end"] and begins is not None and "T" in r["end"]:
                end = (moment + (datetime.fromisoformat(r["end"]) - begins)).isoformat(timespec="seconds")
            cur = conn.execute(
                "INSERT INTO events (title, start, end, day, all_day, location, notes, remind_minutes, repeat, "
                "member, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r["title"], start, end, moment.date().isoformat(), r["all_day"], r["location"], r["notes"],
                 r["remind_minutes"], r["repeat"], r["member"], stamp),
            )
            conn.execute("UPDATE events SET repeat = '' WHERE id = ?", (r["id"],))
            moved.append(("event", int(cur.lastrowid or 0), start))
        return moved

    moved = await db.write(write)
    for kind, row_id, at in moved:
        log.info("schedule.repeat.next", kind=kind, id=row_id, at=at)
    return moved
