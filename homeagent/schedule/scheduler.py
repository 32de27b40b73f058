"""The scheduler: delivers what is due, once, to the channels that can receive it.

`Scheduler.run()` is a long-lived task of the app's task group. Every check it asks the
life records what fell due since the last check (`homeagent.actions.due.due_items`;
at start, within `schedule.catch_up`), claims each occurrence by its key in
`reminders` (a key is claimed once, so nothing is repeated across restarts), and
delivers the pending ones whose moment has come, oldest first, to every registered
channel whose capabilities say it `receives_unasked`. Each channel decides who of its
recipients may see the message by its `member` (`homeagent.members.visible_to`).

A reminder that fell due before the scheduler started (the daemon was down) or more
than `late_after` ago is marked late. While the household mode is one of
`quiet_modes` (sleep), non-urgent reminders are held and go out when the mode ends;
urgent ones (high-priority tasks) still go. Time comes from the injected clock: the
loop only waits in real time between checks, so tests move the clock and `wake()` it.

A repeating task or event moves to its next occurrence once this one is claimed
(`homeagent.schedule.repeats`).

A held or snoozed reminder whose task was done (or habit checked in) meanwhile is dropped
instead of sent. Snoozing and acknowledging act on the member's last delivered reminder;
every step is recorded in `reminder_log`.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any, Protocol

import anyio
from anyio.abc import TaskStatus

from homeagent.actions.due import DueItem, due_items, still_due
from homeagent.clock import Clock
from homeagent.config import ScheduleConfig
from homeagent.io.channel import Channel, OutboundMessage
from homeagent.log import get_logger
from homeagent.schedule.repeats import roll
from homeagent.store import Database
from homeagent.text import has_han

log = get_logger("homeagent.schedule")

# How long one channel may take to take one message (a satellite that hangs is skipped).
DELIVER_TIMEOUT = 5.0


class ChannelSource(Protocol):
    """The registered channels (homeagent.io.DeviceRegistry)."""

    def channels(self) -> list[Channel]: ...


class ModeSource(Protocol):
    """The household mode (homeagent.actions.HouseholdMode)."""

    async def current(self) -> str: ...

    def subscribe(self, listener: Any) -> Any: ...


@dataclass(frozen=True)
class Reminder:
    id: int
    key: str
    kind: str
    member: str
    title: str
    about: str
    due_at: str
    status: str
    late: bool
    urgent: bool
    channels: tuple[str, ...] = ()
    snoozed_from: int | None = None
    delivered_at: str | None = None
    acknowledged_at: str | None = None
    snoozed_until: str | None = None

    @classmethod
    def of(cls, row: sqlite3.Row) -> Reminder:
        return cls(row["id"], row["key"], row["kind"], row["member"], row["title"], row["about"], row["due_at"],
                   row["status"], bool(row["late"]), bool(row["urgent"]), tuple(json.loads(row["channels"])),
                   row["snoozed_from"], row["delivered_at"], row["acknowledged_at"], row["snoozed_until"])

    def as_dict(self) -> dict[str, Any]:
        """The wire form (GET /api/reminders)."""
        return {
            "id": self.id, "kind": self.kind, "member": self.member, "title": self.title, "about": self.about,
            "due": self.due_at, "status": self.status, "late": self.late, "urgent": self.urgent,
            "channels": list(self.channels), "snoozed_from": self.snoozed_from, "delivered_at": self.delivered_at,
            "acknowledged_at": self.acknowledged_at, "snoozed_until": self.snoozed_until,
        }


def _clock_text(iso: str, tz: Any) -> str:
    """'17:00' for a moment today-ish, '03-06 17:00' otherwise; a bare day stays as it is."""
    if "T" not in iso:
        return iso
    try:
        return datetime.fromisoformat(iso).astimezone(tz).strftime("%H:%M")
    except ValueError:
        return iso


def render(reminder: Reminder, tz: Any) -> str:
    """The reminder's words, in the language of its record (Chinese or English)."""
    zh = has_han(reminder.title)
    title, at = reminder.title, _clock_text(reminder.about, tz)
    texts = {
        "task": (f"提醒：{title}（{at} 到期）", f"Reminder: {title} (due {at})"),
        "event": (f"提醒：{title}，{at} 开始", f"Reminder: {title} starts at {at}"),
        "habit": (f"该{title}了，今天还没打卡", f"Time for {title}: not checked in yet"),
        "birthday": (f"今天是{title}的生日", f"Today is {title}'s birthday"),
        "countdown": (f"今天是{title}（{at}）", f"Today: {title} ({at})"),
    }
    zh_text, en_text = texts.get(reminder.kind, (f"提醒：{title}", f"Reminder: {title}"))
    text = zh_text if zh else en_text
    if reminder.late:
        due = _clock_text(reminder.due_at, tz)
        text += f"（迟到的提醒：原定 {due}，当时 HomeAgent 没在运行）" if zh else f" (late: this was due at {due})"
    return text


class Scheduler:
    def __init__(self, db: Database, clock: Clock, channels: ChannelSource, modes: ModeSource,
                 settings: ScheduleConfig) -> None:
        self._db = db
        self._clock = clock
        self._channels = channels
        self._modes = modes
        self.settings = settings
        self._day_time = time.fromisoformat(settings.day_time)
        self._started: datetime | None = None
        self._checked_until: datetime | None = None
        self._wake = anyio.Event()
        self._lock = anyio.Lock()

    # -- the loop -----------------------------------------------------------------------

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Check at once (what was missed while down), then every check_interval."""
        self._started = self._clock.now()
        unsubscribe = self._modes.subscribe(lambda previous, new: self.wake())
        log.info("schedule.started", check_interval=self.settings.check_interval)
        try:
            await self._check_safely()
            task_status.started()
            while True:
                with anyio.move_on_after(self.settings.check_interval):
                    await self._wake.wait()
                self._wake = anyio.Event()
                await self._check_safely()
        finally:
            unsubscribe()

    def wake(self) -> None:
        """Check now (the mode changed, or a test moved the clock)."""
        self._wake.set()

    async def _check_safely(self) -> None:
        try:
            await self.check()
        except Exception as err:  # noqa: BLE001 - a failed check is retried at the next one
            log.warning("schedule.check.failed", error=repr(err))

    async def check(self) -> list[Reminder]:
        """Claim what fell due since the last check and deliver what may go now."""
        async with self._lock:
            now = self._clock.now()
            if self._started is None:
                self._started = now
            since = self._checked_until or now - timedelta(seconds=self.settings.catch_up)
            if since < now:
                await self._claim(await due_items(self._db, since, now, day_time=self._day_time), now)
                await roll(self._db, now)  # a repeating record's next occurrence, once this one is claimed
                self._checked_until = now
            quiet = (await self._modes.current()) in self.settings.quiet_modes
            rows = await self._db.fetchall(
                "SELECT * FROM reminders WHERE status IN ('pending', 'held') AND due_ts <= ? ORDER BY due_ts, id",
                (now.timestamp(),),
            )
            delivered = []
            for row in rows:
                reminder = Reminder.of(row)
                if not await still_due(self._db, reminder.kind, row["source_id"], reminder.about):
                    await self._record(reminder.id, "dropped", member=reminder.member, status="dropped")
                    log.info("schedule.reminder.dropped", reminder_id=reminder.id, kind=reminder.kind)
                    continue
                if quiet and not reminder.urgent:
                    if reminder.status == "pending":
                        await self._record(reminder.id, "held", member=reminder.member, status="held")
                        log.info("schedule.reminder.held", reminder_id=reminder.id, kind=reminder.kind)
                    continue
                # A shutdown waits for the delivery to be recorded, so it is never sent twice.
                with anyio.CancelScope(shield=True):
                    delivered.append(await self._deliver(reminder, now))
            return delivered

    async def _claim(self, items: Sequence[DueItem], now: datetime) -> None:
        assert self._started is not None
        started, late_after = self._started, timedelta(seconds=self.settings.late_after)
        stamp = now.isoformat(timespec="seconds")

        def write(conn: sqlite3.Connection) -> None:
            for item in items:
                late = item.due < started or now - item.due > late_after
                conn.execute(
                    "INSERT OR IGNORE INTO reminders(key, kind, source_id, member, title, about, due_at, due_ts, "
                    "urgent, late, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (item.key, item.kind, item.source_id, item.member, item.title, item.at,
                     item.due.isoformat(timespec="seconds"), item.due.timestamp(), int(item.urgent), int(late), stamp),
                )

        if items:
            await self._db.write(write)

    async def _deliver(self, reminder: Reminder, now: datetime) -> Reminder:
        message = OutboundMessage(
            text=render(reminder, now.tzinfo), member=reminder.member, kind="reminder",
            ref=f"reminder:{reminder.id}", due=reminder.due_at, late=reminder.late,
        )
        reached: list[str] = []
        for channel in self._channels.channels():
            if not channel.capabilities.receives_unasked:
                continue
            try:
                with anyio.move_on_after(DELIVER_TIMEOUT) as scope:
                    if await channel.deliver(message):
                        reached.append(channel.name)
                if scope.cancelled_caught:
                    log.warning("schedule.channel.timeout", channel=channel.name, timeout=DELIVER_TIMEOUT)
            except Exception as err:  # noqa: BLE001 - one failing channel must not stop the others
                log.warning("schedule.channel.failed", channel=channel.name, error=repr(err))
        # Delivered once, whether or not someone was listening: the push channel keeps
        # it for subscriptions that reconnect, and it is never sent again.
        await self._record(reminder.id, "delivered", member=reminder.member, status="delivered",
                           channels=reached, now=now)
        log.info("schedule.reminder.delivered", reminder_id=reminder.id, kind=reminder.kind,
                 late=reminder.late, channels=reached)
        return dataclasses.replace(reminder, status="delivered", channels=tuple(reached),
                                   delivered_at=now.isoformat(timespec="seconds"))

    async def _record(self, reminder_id: int, action: str, *, member: str, status: str,
                      channels: Sequence[str] = (), detail: str = "", now: datetime | None = None,
                      extra: dict[str, Any] | None = None) -> None:
        at = now or self._clock.now()
        stamp = at.isoformat(timespec="seconds")
        sets = {"status": status, **(extra or {})}
        if action == "delivered":
            sets.update(delivered_at=stamp, delivered_ts=at.timestamp(), channels=json.dumps(list(channels)))
        elif action == "acknowledged":
            sets["acknowledged_at"] = stamp

        def write(conn: sqlite3.Connection) -> None:
            assignments = ", ".join(f"{k} = ?" for k in sets)
            conn.execute(f"UPDATE reminders SET {assignments} WHERE id = ?", (*sets.values(), reminder_id))
            conn.execute(
                "INSERT INTO reminder_log(reminder_id, action, channels, member, detail, at) VALUES (?, ?, ?, ?, ?, ?)",
                (reminder_id, action, json.dumps(list(channels)), member, detail, stamp),
            )

        await self._db.write(write)

    # -- what the member says back --------------------------------------------------------

    async def last_delivered(self, member: str) -> Reminder | None:
        """The member's (or the household's) most recently delivered, still open reminder."""
        rows = await self._db.fetchall(
            "SELECT * FROM reminders WHERE status = 'delivered' AND (member = '' OR member = ?) "
            "ORDER BY delivered_ts DESC, id DESC LIMIT 1",
            (member,),
        )
        return Reminder.of(rows[0]) if rows else None

    async def get(self, member: str, reminder_id: int) -> Reminder | None:
        """One reminder, if `member` may see it (theirs or the household's)."""
        rows = await self._db.fetchall(
            "SELECT * FROM reminders WHERE id = ? AND (member = '' OR member = ?)", (reminder_id, member)
        )
        return Reminder.of(rows[0]) if rows else None

    async def recent(self, member: str, limit: int = 50) -> list[Reminder]:
        """The reminders `member` may see, the latest first (by when they fell due)."""
        rows = await self._db.fetchall(
            "SELECT * FROM reminders WHERE member = '' OR member = ? ORDER BY due_ts DESC, id DESC LIMIT ?",
            (member, limit),
        )
        return [Reminder.of(r) for r in rows]

    async def _open(self, member: str, reminder_id: int | None) -> Reminder | None:
        if reminder_id is None:
            return await self.last_delivered(member)
        found = await self.get(member, reminder_id)
        return found if found is not None and found.status == "delivered" else None

    async def snooze(self, member: str, minutes: int | None = None, *,
                     reminder_id: int | None = None) -> tuple[Reminder, datetime] | None:
        """Remind the last delivered reminder (or the given one) again in `minutes`;
        None if there is no such delivered reminder."""
        async with self._lock:  # one answer at a time, and never in the middle of a check
            return await self._snooze(member, minutes, reminder_id)

    async def _snooze(self, member: str, minutes: int | None,
                      reminder_id: int | None) -> tuple[Reminder, datetime] | None:
        reminder = await self._open(member, reminder_id)
        if reminder is None:
            return None
        now = self._clock.now()
        until = now + timedelta(minutes=minutes or self.settings.snooze_minutes)
        stamp = until.isoformat(timespec="seconds")

        def write(conn: sqlite3.Connection) -> None:
            n = conn.execute("SELECT COUNT(*) FROM reminders WHERE snoozed_from = ?", (reminder.id,)).fetchone()[0]
            conn.execute(
                "INSERT INTO reminders(key, kind, source_id, member, title, about, due_at, due_ts, urgent, late, "
                "snoozed_from, created_at) SELECT ?, kind, source_id, member, title, about, ?, ?, urgent, 0, id, ? "
                "FROM reminders WHERE id = ?",
                (f"snooze:{reminder.id}:{n + 1}", stamp, until.timestamp(), now.isoformat(timespec="seconds"),
                 reminder.id),
            )

        await self._db.write(write)
        await self._record(reminder.id, "snoozed", member=member, status="snoozed", detail=stamp,
                           extra={"snoozed_until": stamp})
        log.info("schedule.reminder.snoozed", reminder_id=reminder.id, until=stamp)
        return reminder, until

    async def acknowledge(self, member: str, *, reminder_id: int | None = None) -> Reminder | None:
        """Mark the last delivered reminder (or the given one) as seen; None if there is none."""
        async with self._lock:
            reminder = await self._open(member, reminder_id)
            if reminder is None:
                return None
            await self._record(reminder.id, "acknowledged", member=member, status="acknowledged")
        log.info("schedule.reminder.acknowledged", reminder_id=reminder.id)
        return reminder

    async def history(self, reminder_id: int) -> list[tuple[str, tuple[str, ...], str]]:
        """What happened to a reminder: (action, channels, member), in order."""
        rows = await self._db.fetchall(
            "SELECT action, channels, member FROM reminder_log WHERE reminder_id = ? ORDER BY id", (reminder_id,)
        )
        return [(r["action"], tuple(json.loads(r["channels"])), r["member"]) for r in rows]
