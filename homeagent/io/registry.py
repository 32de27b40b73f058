"""Channels and the devices behind them.

A channel (console, HTTP, voice) is an adapter that turns its input into interrupts.
Devices register under a channel the first time they speak, so the household's list of
devices (`GET /api/devices`, the `list_channels` action) comes from here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

from homeagent.io.interrupt import Inbox
from homeagent.store import Database


class Channel(Protocol):
    name: str

    async def run(self, inbox: Inbox) -> None:
        """Feed interrupts into the inbox until cancelled."""
        ...


@dataclass(frozen=True)
class Device:
    device_id: str
    channel: str
    name: str
    first_seen: float
    last_seen: float


class DeviceRegistry:
    def __init__(self, db: Database):
        self._db = db
        self._seen: dict[str, float] = {}

    async def touch(self, channel: str, device_id: str, name: str = "") -> None:
        """Record that a device spoke; cheap to call on every request."""
        key = f"{channel}:{device_id}"
        now = time.time()
        if now - self._seen.get(key, 0.0) < 60:
            return
        self._seen[key] = now
        await self._db.execute(
            "INSERT INTO devices(device_id, channel, name, first_seen, last_seen) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(device_id) DO UPDATE SET "
            "last_seen = excluded.last_seen, channel = excluded.channel, "
            "name = CASE WHEN excluded.name != '' THEN excluded.name ELSE devices.name END",
            (key, channel, name, now, now),
        )

    async def list(self) -> list[Device]:
        rows = await self._db.fetchall(
            "SELECT device_id, channel, name, first_seen, last_seen FROM devices ORDER BY last_seen DESC"
        )
        return [Device(**dict(r)) for r in rows]
