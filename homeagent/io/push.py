"""The push channel: messages the agent starts, kept in order for whoever subscribes.

`PushChannel.deliver` stores each message in `push_events` (migration 121) under an
increasing id and wakes the open subscriptions; `GET /api/events` (homeagent/api/push.py)
streams them as Server-Sent Events with those ids, so a browser's EventSource that
reconnects with `Last-Event-ID`, even after the daemon restarted, gets what it missed
and nothing twice. A subscription belongs to a member and sees only what `visible_to`
lets it: that member's messages and the household's.

    push = PushChannel(db, clock)
    devices.register_channel(push)
    async for event in push.follow(member, after=last_id, keepalive=15):
        ...  # None: nothing new for `keepalive` seconds
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

import anyio

from homeagent.clock import Clock
from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.members import visible_to
from homeagent.store import Database
from homeagent.store.db import Migration

PUSH_CAPABILITIES = Capabilities(streams=False, confirms=False, receives_unasked=True)
_PAGE = 200


def _0121_push_events(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE push_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            member TEXT NOT NULL DEFAULT '',
            type TEXT NOT NULL,
            data TEXT NOT NULL,
            created_at TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX push_events_member ON push_events(member, id)")


MIGRATIONS: tuple[Migration, ...] = (Migration(121, "push_events", _0121_push_events),)


@dataclass(frozen=True)
class PushEvent:
    """One stored message: `data` is its wire form (see the README's push route)."""

    id: int
    type: str
    member: str
    data: dict[str, Any]


def message_data(message: OutboundMessage, event_id: int, created_at: str) -> dict[str, Any]:
    return {
        "id": event_id, "type": message.kind, "text": message.text, "member": message.member,
        "ref": message.ref, "due": message.due, "late": message.late, "created_at": created_at,
    }


class PushChannel:
    name = "push"
    capabilities = PUSH_CAPABILITIES

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock
        self._changed = anyio.Event()
        self._subscribers: dict[int, str] = {}  # subscription → member
        self._next = 0

    @property
    def subscribers(self) -> list[str]:
        """The members of the open subscriptions ("" for the household's)."""
        return list(self._subscribers.values())

    async def deliver(self, message: OutboundMessage) -> bool:
        """Store the message for its member's subscriptions; True if one is open now."""
        created = self._clock.now().isoformat(timespec="seconds")

        def write(conn: sqlite3.Connection) -> int:
            cur = conn.execute(
                "INSERT INTO push_events(member, type, data, created_at) VALUES (?, ?, '{}', ?)",
                (message.member, message.kind, created),
            )
            event_id = int(cur.lastrowid or 0)
            data = json.dumps(message_data(message, event_id, created), ensure_ascii=False)
            conn.execute("UPDATE push_events SET data = ? WHERE id = ?", (data, event_id))
            return event_id

        await self._db.write(write)
        self._changed.set()
        self._changed = anyio.Event()
        return any(visible_to(message.member, m) for m in self._subscribers.values())

    async def latest_id(self) -> int:
        rows = await self._db.fetchall("SELECT COALESCE(MAX(id), 0) AS id FROM push_events")
        return int(rows[0]["id"])

    async def after(self, member: str, after: int, limit: int = _PAGE) -> list[PushEvent]:
        """Stored events after `after` that `member` may see, oldest first."""
        rows = await self._db.fetchall(
            "SELECT id, member, type, data FROM push_events WHERE id > ? AND (member = '' OR member = ?) "
            "ORDER BY id LIMIT ?",
            (after, member, limit),
        )
        return [PushEvent(r["id"], r["type"], r["member"], json.loads(r["data"])) for r in rows
                if visible_to(r["member"], member)]

    async def follow(self, member: str, after: int, *, keepalive: float) -> AsyncGenerator[PushEvent | None, None]:
        """Events for `member` after `after`, then each new one as it comes, until the
        caller stops; yields None after `keepalive` seconds without one."""
        self._next += 1
        key = self._next
        self._subscribers[key] = member
        try:
            while True:
                changed = self._changed  # taken before reading, so nothing slips between
                page = await self.after(member, after)
                for event in page:
                    after = event.id
                    yield event
                if page:
                    continue
                with anyio.move_on_after(keepalive) as scope:
                    await changed.wait()
                if scope.cancelled_caught:
                    yield None
        finally:
            del self._subscribers[key]
