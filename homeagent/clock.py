"""Injected time: production reads the wall clock, tests move a fake one."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Protocol
from zoneinfo import ZoneInfo


class Clock(Protocol):
    def now(self) -> datetime:
        """An aware datetime in the home's timezone."""
        ...


@dataclass
class SystemClock:
    tz: tzinfo | None = None

    def now(self) -> datetime:
        return datetime.now(self.tz).astimezone(self.tz) if self.tz else datetime.now().astimezone()


@dataclass
class FakeClock:
    current: datetime = field(
        default_factory=lambda: datetime(2026, 1, 1, 9, 0, tzinfo=ZoneInfo("UTC"))
    )

    def now(self) -> datetime:
        return self.current

    def advance(self, **kwargs: float) -> None:
        self.current += timedelta(**kwargs)
