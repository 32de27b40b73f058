"""Channels and the devices behind them.

A channel (console, HTTP, voice) is an adapter that turns its input into interrupts
(see `homeagent.io.channel`). Channels register here when the daemon starts, so the
agent's own messages (reminders, notices) find the channels that can receive them;
devices register under a channel the first time they speak, so the household's list of
devices (`GET /api/devices`, the `list_channels` action) comes from here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from homeagent.io.channel import Channel
from homeagent.store import Database


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
        self._channels: dict[str, Channel] = {}

    def register_channel(self, channel: Channel) -> Callable[[], None]:
        """Make a channel known; returns the callable that unregisters it."""
        if channel.name in self._channels:
            raise ValueError(f"channel {channel.name!r} is already registered")
        self._channels[channel.name] = channel

        def unregister() -> None:
            if self._channels.get(channel.name) is channel:
                del self._channels[channel.name]

        return unregister

    def channel(self, name: str) -> Channel | None:
        return self._channels.get(name)

    def channels(self) -> list[Channel]:
        """The registered channels, in registration order."""
        return list(self._channels.values())

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
