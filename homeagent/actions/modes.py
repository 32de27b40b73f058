"""The household mode (home, away, sleep, guest, or configured ones).

`HouseholdMode` is the one place the mode lives; other parts (the agent's prompt, voice
satellites, a reminder check) read it with `await mode.current()` and may subscribe to
changes. Every switch is kept in `household_modes`, so the mode survives a restart.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from homeagent.clock import Clock
from homeagent.errors import ToolValidationError
from homeagent.log import get_logger
from homeagent.store import Database

log = get_logger("homeagent.actions.modes")

DEFAULT_MODES = ("home", "away", "sleep", "guest")
# Words people use for the built-in modes.
ALIASES = {
    "在家": "home", "回家": "home", "居家": "home", "到家": "home", "home mode": "home",
    "离家": "away", "外出": "away", "出门": "away", "不在家": "away", "leaving": "away", "out": "away",
    "睡眠": "sleep", "睡觉": "sleep", "晚安": "sleep", "night": "sleep", "bedtime": "sleep",
    "访客": "guest", "客人": "guest", "来客": "guest", "guests": "guest", "visitor": "guest", "party": "guest",
}

Listener = Callable[[str, str], Awaitable[None] | None]


class HouseholdMode:
    def __init__(self, db: Database, clock: Clock, modes: Sequence[str] = DEFAULT_MODES,
                 default: str = "home"):
        self._db = db
        self._clock = clock
        self._modes = tuple(dict.fromkeys(m.strip().casefold() for m in modes if m.strip()))
        if default not in self._modes:
            raise ValueError(f"default mode {default!r} is not one of {self._modes}")
        self._default = default
        self._cached: str | None = None
        self._listeners: list[Listener] = []

    @property
    def modes(self) -> tuple[str, ...]:
        return self._modes

    def resolve(self, name: str) -> str:
        """A mode name from what the user or the model said; raises with the valid names."""
        key = name.strip().casefold().removesuffix("模式").removesuffix(" mode").strip()
        if key not in self._modes:
            key = ALIASES.get(key, key)
        if key not in self._modes:
            raise ToolValidationError(
                f"mode: unknown mode {name!r}; use one of: {', '.join(self._modes)}"
            )
        return key

    async def current(self) -> str:
        if self._cached is None:
            rows = await self._db.fetchall("SELECT mode FROM household_modes ORDER BY id DESC LIMIT 1")
            mode = rows[0]["mode"] if rows else self._default
            self._cached = mode if mode in self._modes else self._default
        return self._cached

    async def set(self, mode: str, *, reason: str = "", member: str = "") -> tuple[str, str]:
        """Switch; returns (previous, new). Listeners hear about real changes only."""
        new = self.resolve(mode)
        previous = await self.current()
        await self._db.execute(
            "INSERT INTO household_modes(mode, previous, reason, member, created_at) VALUES (?, ?, ?, ?, ?)",
            (new, previous, reason, member, self._clock.now().isoformat(timespec="seconds")),
        )
        self._cached = new
        log.info("household.mode.changed", previous=previous, mode=new)
        if new != previous:
            for listener in list(self._listeners):
                try:
                    result = listener(previous, new)
                    if result is not None:
                        await result
                except Exception as err:  # noqa: BLE001 - a listener's bug must not undo the switch
                    log.warning("household.mode.listener_failed", error=repr(err))
        return previous, new

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(previous, new)` on every change; returns an unsubscribe callable."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None
