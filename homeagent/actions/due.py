"""What of the life records falls due in a span of time: the reminders' source.

`due_items(db, start, end, day_time=…)` reads the records the actions keep and returns
every reminder moment in `(start, end]` as a `DueItem`, one per occurrence:

- a task with a due time (a due date alone is not a moment; the daily summary has it),
- an event with `remind_minutes`, that many minutes before it starts (timed events only),
- an active habit with `remind_at` (HH:MM) on each day it is not yet done (daily: not
  checked in that day; weekly: fewer check-ins that week than its target),
- a birthday (solar dates) and a countdown date (anniversaries, exams, trips), at
  `day_time` on the day.

An occurrence before its record was made is skipped (a habit started this morning owes
no reminder for last night). Each occurrence has a stable `key`, so whoever delivers them can record what it has
delivered and never deliver one twice. The schedule package owns delivery; this module
only knows the actions' tables.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal

from homeagent.store import Database

DueKind = Literal["task", "event", "habit", "birthday", "countdown"]


@dataclass(frozen=True)
class DueItem:
    key: str  # one occurrence: "task:12:2026-03-06T17:00:00+08:00", "habit:3:2026-03-06"
    kind: DueKind
    source_id: int
    member: str  # the record's owner ("" = the household's)
    title: str
    due: datetime  # when the reminder falls due (aware)
    at: str  # what it is about: the task's due time, the event's start, the day
    urgent: bool = False  # high-priority tasks: not held back by quiet hours


def _moment(text: str | None, tz: object) -> datetime | None:
    if not text or "T" not in text:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=tz)  # type: ignore[arg-type]
    return value


def _days(start: datetime, end: datetime) -> list[date]:
    first, last = start.date(), end.date()
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def _on(day: date, month: int, dom: int) -> bool:
    if (day.month, day.day) == (month, dom):
        return True
    # 29 February outside a leap year: the 28th (as upcoming_birthdays counts it).
    leap = day.year % 4 == 0 and (day.year % 100 != 0 or day.year % 400 == 0)
    return (month, dom) == (2, 29) and not leap and (day.month, day.day) == (2, 28)


async def due_items(db: Database, start: datetime, end: datetime, *, day_time: time = time(9, 0)) -> list[DueItem]:
    """Every reminder moment in (start, end], soonest first. `start`, `end` are aware."""
    tz = end.tzinfo

    def read(conn: sqlite3.Connection) -> list[DueItem]:
        out: list[DueItem] = []
        lo, hi = (start.date() - timedelta(days=1)).isoformat(), (end.date() + timedelta(days=1)).isoformat()

        def keep(item: DueItem, created_at: str) -> None:
            # A record made after its moment (a habit started today) owes nothing for it.
            created = _moment(created_at, tz)
            if start < item.due <= end and (created is None or created <= item.due):
                out.append(item)

        for r in conn.execute(
            "SELECT id, content, due, priority, member, created_at FROM tasks "
            "WHERE status = 'open' AND due LIKE '%T%' AND due_day BETWEEN ? AND ?", (lo, hi),
        ):
            due = _moment(r["due"], tz)
            if due is not None:
                keep(DueItem(f"task:{r['id']}:{r['due']}", "task", r["id"], r["member"], r["content"], due,
                             r["due"], urgent=r["priority"] == "high"), r["created_at"])
        # remind_minutes is at most a week (create_event's schema).
        ev_hi = (end.date() + timedelta(days=8)).isoformat()
        for r in conn.execute(
            "SELECT id, title, start, remind_minutes, member, created_at FROM events "
            "WHERE remind_minutes IS NOT NULL AND all_day = 0 AND day BETWEEN ? AND ?", (lo, ev_hi),
        ):
            begins = _moment(r["start"], tz)
            if begins is not None:
                due = begins - timedelta(minutes=int(r["remind_minutes"]))
                keep(DueItem(f"event:{r['id']}:{r['start']}:{r['remind_minutes']}", "event", r["id"], r["member"],
                             r["title"], due, r["start"]), r["created_at"])
        days = _days(start, end)
        for r in conn.execute(
            "SELECT id, name, frequency, target, remind_at, member, created_at FROM habits "
            "WHERE status = 'active' AND remind_at IS NOT NULL"
        ):
            try:
                at = time.fromisoformat(r["remind_at"])
            except ValueError:
                continue
            for day in days:
                if r["frequency"] == "weekly":
                    monday = day - timedelta(days=day.weekday())
                    done = conn.execute(
                        "SELECT COUNT(*) FROM habit_checkins WHERE habit_id = ? AND day BETWEEN ? AND ?",
                        (r["id"], monday.isoformat(), day.isoformat()),
                    ).fetchone()[0] >= max(1, r["target"])
                else:
                    done = conn.execute(
                        "SELECT 1 FROM habit_checkins WHERE habit_id = ? AND day = ?", (r["id"], day.isoformat())
                    ).fetchone() is not None
                if not done:
                    keep(DueItem(f"habit:{r['id']}:{day.isoformat()}", "habit", r["id"], r["member"], r["name"],
                                 datetime.combine(day, at, tz), day.isoformat()), r["created_at"])
        for r in conn.execute("SELECT id, name, month, day, member, created_at FROM birthdays WHERE lunar = 0"):
            for day in days:
                if _on(day, r["month"], r["day"]):
                    keep(DueItem(f"birthday:{r['id']}:{day.year}", "birthday", r["id"], r["member"], r["name"],
                                 datetime.combine(day, day_time, tz), day.isoformat()), r["created_at"])
        for r in conn.execute(
            "SELECT id, title, day, member, created_at FROM countdowns WHERE day BETWEEN ? AND ?", (lo, hi)
        ):
            day = date.fromisoformat(r["day"])
            keep(DueItem(f"countdown:{r['id']}:{r['day']}", "countdown", r["id"], r["member"], r["title"],
                         datetime.combine(day, day_time, tz), r["day"]), r["created_at"])
        return sorted(out, key=lambda item: (item.due, item.key))

    return await db.read(read)


async def still_due(db: Database, kind: str, source_id: int | None, about: str) -> bool:
    """Whether a reminder claimed earlier still has something to remind of: its task is
    still open, its event or date still there, its habit not yet done that day (a reminder
    held through the night, or snoozed, may have been dealt with meanwhile)."""
    queries = {
        "task": ("SELECT 1 FROM tasks WHERE id = ? AND status = 'open'", (source_id,)),
        "event": ("SELECT 1 FROM events WHERE id = ?", (source_id,)),
        "habit": ("SELECT 1 FROM habits h WHERE id = ? AND status = 'active' AND NOT EXISTS "
                  "(SELECT 1 FROM habit_checkins c WHERE c.habit_id = h.id AND c.day = ?)", (source_id, about)),
        "birthday": ("SELECT 1 FROM birthdays WHERE id = ?", (source_id,)),
        "countdown": ("SELECT 1 FROM countdowns WHERE id = ?", (source_id,)),
    }
    if kind not in queries or source_id is None:
        return True
    sql, params = queries[kind]
    return bool(await db.fetchall(sql, params))
