"""The supervisor: long-lived subsystems kept running, and every part's health checked.

    supervisor = Supervisor(check_interval=30)
    tg.start_soon(supervisor.keep, "heartbeat", beat_forever)       # restarted if it crashes
    supervisor.add("database", check=db_check)                      # probed every interval
    tg.start_soon(supervisor.run)                                   # the checks, until cancelled

A `run` that raises is logged, marked `crashed`, and started again after a backoff that
doubles from `restart_initial` to `restart_max` (reset once it has run for a while); it
never takes the daemon down. A `check` returns (healthy, detail) and is called every
`check_interval`; a check that raises or takes longer than 10 s counts as unhealthy.
`status()` is what /healthz shows under `subsystems`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import TaskStatus

from homeagent.log import get_logger

log = get_logger("homeagent.ext.supervisor")

Check = Callable[[], Awaitable[tuple[bool, str]]]
Runner = Callable[[], Awaitable[None]]


@dataclass
class Subsystem:
    name: str
    run: Runner | None = None
    check: Check | None = None
    state: str = "starting"  # starting | ready | crashed | unhealthy | stopped
    detail: str = ""
    restarts: int = 0
    last_error: str = ""
    checked_at: float = 0.0
    since: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return {"state": self.state, "detail": self.detail, "restarts": self.restarts,
                "last_error": self.last_error, "checked_at": round(self.checked_at, 3)}

    def set(self, state: str) -> None:
        if state != self.state:
            self.since = time.time()
        self.state = state


class Supervisor:
    def __init__(self, check_interval: float = 30.0, *, restart_initial: float = 1.0, restart_max: float = 60.0):
        self.check_interval = check_interval
        self.restart_initial = restart_initial
        self.restart_max = restart_max
        self._parts: dict[str, Subsystem] = {}

    def add(self, name: str, *, run: Runner | None = None, check: Check | None = None) -> Subsystem:
        if name in self._parts:
            raise ValueError(f"subsystem {name!r} is already supervised")
        part = Subsystem(name, run, check, state="starting" if run else "ready")
        self._parts[name] = part
        return part

    def __contains__(self, name: object) -> bool:
        return name in self._parts

    def status(self) -> dict[str, dict[str, Any]]:
        return {name: part.as_dict() for name, part in self._parts.items()}

    async def run(self) -> None:
        """The health checks, every `check_interval`, until cancelled (runners are kept
        by `keep`/`keep_started`, each in its caller's task group)."""
        if self.check_interval > 0:
            await self._check_loop()

    async def keep(self, name: str, run: Runner) -> None:
        """Run `run` under supervision (restarted when it crashes) until cancelled."""
        part = self._parts.get(name) or self.add(name, run=run)
        part.run = run
        await self._keep(part)

    async def keep_started(
        self, name: str, run: Callable[..., Awaitable[None]], *,
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """As `keep`, for a task that reports when it has started (`tg.start`): the first
        run reports to the caller; restarts report to no one."""
        status: list[TaskStatus[None]] = [task_status]

        async def once() -> None:
            current, status[0] = status[0], anyio.TASK_STATUS_IGNORED
            await run(task_status=current)

        await self.keep(name, once)

    async def _keep(self, part: Subsystem) -> None:
        assert part.run is not None
        delay = self.restart_initial
        while True:
            started = time.monotonic()
            part.set("ready")
            try:
                await part.run()
                part.last_error = "returned"
            except Exception as err:  # noqa: BLE001 - a crashed subsystem is restarted, never fatal
                part.last_error = f"{type(err).__name__}: {err}"[:300]
                log.warning("supervisor.crashed", subsystem=part.name, error=part.last_error,
                            restart_in_s=delay)
            part.set("crashed")
            if time.monotonic() - started > 4 * delay:
                delay = self.restart_initial
            await anyio.sleep(delay)
            delay = min(delay * 2, self.restart_max)
            part.restarts += 1
            log.info("supervisor.restarted", subsystem=part.name, restarts=part.restarts)

    async def check_now(self) -> None:
        for part in list(self._parts.values()):
            if part.check is None:
                continue
            try:
                with anyio.fail_after(10):
                    healthy, detail = await part.check()
            except Exception as err:  # noqa: BLE001 - a failing probe is an unhealthy part
                healthy, detail = False, f"check failed: {type(err).__name__}: {err}"[:300]
            part.detail, part.checked_at = detail, time.time()
            if part.run is None or part.state != "crashed":
                previous = part.state
                part.set("ready" if healthy else "unhealthy")
                if previous != part.state:
                    log.info("supervisor.health_changed", subsystem=part.name, state=part.state, detail=detail)

    async def _check_loop(self) -> None:
        while True:
            await self.check_now()
            await anyio.sleep(self.check_interval)
