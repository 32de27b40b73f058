"""How a background writer is doing, for `/healthz`: ok, or failing since when and why.

A writer (the run recorder, the text log, the audit log) that cannot write keeps its
work, retries with backoff and reports here; it never ends the task group. `backoff()`
is the delay before the next attempt: 0.5 s doubling to 30 s.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

BACKOFF_FIRST = 0.5
BACKOFF_MAX = 30.0


@dataclass
class WriterHealth:
    name: str
    failures: int = 0  # consecutive failed attempts
    total_failures: int = 0
    last_error: str = ""
    failing_since: float | None = None
    dropped: int = 0  # records that could never be written (and were logged)
    pending: int = 0

    @property
    def ok(self) -> bool:
        return self.failures == 0

    def succeeded(self) -> None:
        self.failures, self.failing_since = 0, None

    def failed(self, err: BaseException) -> float:
        """Count a failure; returns the delay before the next attempt."""
        self.failures += 1
        self.total_failures += 1
        self.last_error = f"{type(err).__name__}: {err}"[:300]
        if self.failing_since is None:
            self.failing_since = time.time()
        return self.backoff()

    def backoff(self) -> float:
        return min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** max(self.failures - 1, 0))

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": "ok" if self.ok else "failing",
            "pending": self.pending,
            "consecutive_failures": self.failures,
            "failures": self.total_failures,
            "dropped": self.dropped,
            "last_error": self.last_error or None,
            "failing_since": self.failing_since,
        }
