"""Token metering: usage per provider per day, and the daily cloud budget's meter.

Every reply's `Usage` is added to its (day, provider, model) row in SQLite, the day
being the date in the home's timezone (the injected clock). Failed requests are counted
too. The router asks `cloud_tokens_today()` before each cloud request; that total is
kept in memory (loaded once from the table at start), so the check costs nothing.
Without a database the meter keeps its rows in memory (tests, `chat --local`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

from homeagent.clock import Clock, SystemClock
from homeagent.llm.base import Usage
from homeagent.store.db import Database

_UPSERT = """
INSERT INTO llm_usage(day, provider, model, cloud, requests, failures,
                      prompt_tokens, completion_tokens, cached_tokens)
VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)
ON CONFLICT(day, provider, model) DO UPDATE SET
    requests = requests + 1,
    failures = failures + excluded.failures,
    prompt_tokens = prompt_tokens + excluded.prompt_tokens,
    completion_tokens = completion_tokens + excluded.completion_tokens,
    cached_tokens = cached_tokens + excluded.cached_tokens,
    cloud = excluded.cloud
"""
_SELECT = (
    "SELECT day, provider, model, cloud, requests, failures, prompt_tokens, completion_tokens,"
    " cached_tokens FROM llm_usage WHERE day >= ? ORDER BY day DESC, provider, model"
)


@dataclass(frozen=True)
class UsageRow:
    day: str
    provider: str
    model: str
    cloud: bool
    requests: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, object]:
        return {
            "day": self.day,
            "provider": self.provider,
            "model": self.model,
            "cloud": self.cloud,
            "requests": self.requests,
            "failures": self.failures,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
            "total_tokens": self.total_tokens,
        }


def _row(r: sqlite3.Row | tuple) -> UsageRow:
    return UsageRow(r[0], r[1], r[2], bool(r[3]), *(int(v) for v in r[4:9]))


class UsageMeter:
    def __init__(self, db: Database | None = None, clock: Clock | None = None):
        self._db = db
        self._clock = clock or SystemClock()
        self._memory: dict[tuple[str, str, str], UsageRow] = {}
        self._cloud_day = ""
        self._cloud_total = 0

    def today(self) -> str:
        return self._clock.now().date().isoformat()

    async def load(self) -> None:
        """Read today's cloud total from the table (once, at start)."""
        day = self.today()
        self._cloud_day, self._cloud_total = day, 0
        if self._db is None:
            return
        rows = await self._db.fetchall(
            "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0) FROM llm_usage"
            " WHERE day = ? AND cloud = 1",
            (day,),
        )
        self._cloud_total = int(rows[0][0]) if rows else 0

    def cloud_tokens_today(self) -> int:
        if self._cloud_day != self.today():
            self._cloud_day, self._cloud_total = self.today(), 0
        return self._cloud_total

    async def record(
        self, provider: str, model: str, *, cloud: bool, usage: Usage | None, failed: bool = False
    ) -> None:
        day = self.today()
        prompt = usage.prompt_tokens if usage else 0
        completion = usage.completion_tokens if usage else 0
        cached = usage.cached_tokens if usage else 0
        if cloud:
            self.cloud_tokens_today()  # rolls the day over if needed
            self._cloud_total += prompt + completion
        if self._db is None:
            key = (day, provider, model)
            row = self._memory.get(key) or UsageRow(day, provider, model, cloud)
            self._memory[key] = replace(
                row,
                requests=row.requests + 1,
                failures=row.failures + int(failed),
                prompt_tokens=row.prompt_tokens + prompt,
                completion_tokens=row.completion_tokens + completion,
                cached_tokens=row.cached_tokens + cached,
            )
            return
        await self._db.execute(
            _UPSERT, (day, provider, model, int(cloud), int(failed), prompt, completion, cached)
        )

    async def rows(self, since_day: str = "") -> list[UsageRow]:
        if self._db is None:
            return sorted(
                (r for r in self._memory.values() if r.day >= since_day),
                key=lambda r: (r.day, r.provider, r.model),
                reverse=True,
            )
        return [_row(r) for r in await self._db.fetchall(_SELECT, (since_day,))]


def read_usage(db_path: Path, since_day: str = "") -> list[UsageRow]:
    """Rows from a database file, read-only (for `homeagent usage` beside a running daemon)."""
    if not db_path.exists():
        return []
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    try:
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'llm_usage'"
        ).fetchone()
        if not exists:
            return []
        return [_row(r) for r in conn.execute(_SELECT, (since_day,)).fetchall()]
    finally:
        conn.close()
