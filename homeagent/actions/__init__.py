"""The life actions of seed 000 §5.2: 75 tools in nine categories over SQLite tables of
their own (`homeagent.actions.schema.MIGRATIONS`, versions 10–29).

The composition root calls `register_actions(registry, db=…, clock=…, modes=…,
channels=…, settings=…)` once; every action then appears in the tools list, in the
`[ACTION]` catalog and in the relevant-action index. `action_definitions()` gives the
static definitions (for `homeagent tools list` without a database).
"""

from __future__ import annotations

from collections.abc import Callable

from homeagent.actions import events, extras, finance, goals, health, inventory, life, notes, tasks
from homeagent.actions.base import (
    CATEGORIES,
    ActionDef,
    ActionSettings,
    ChannelSource,
    Deps,
    SearchBackend,
)
from homeagent.actions.modes import HouseholdMode
from homeagent.actions.search import SearxngSearch
from homeagent.clock import Clock
from homeagent.store import Database
from homeagent.tools.registry import ToolRegistry, ToolSpec

__all__ = [
    "CATEGORIES",
    "ActionDef",
    "ActionSettings",
    "HouseholdMode",
    "SearxngSearch",
    "action_definitions",
    "action_specs",
    "register_actions",
]

_MODULES = (tasks, events, notes, finance, health, goals, life, inventory, extras)
_ORDER = tuple(CATEGORIES)


def action_definitions() -> tuple[ActionDef, ...]:
    """Every action's static definition, grouped by category in the seed's order."""
    defs = [d for module in _MODULES for d in module.ACTIONS.defs]
    return tuple(sorted(defs, key=lambda d: _ORDER.index(d.category)))


def action_specs(
    *,
    db: Database | None,
    clock: Clock | None,
    settings: ActionSettings | None = None,
    modes: HouseholdMode | None = None,
    channels: ChannelSource | None = None,
    search: SearchBackend | None = None,
) -> tuple[ToolSpec, ...]:
    """The ToolSpecs bound to their dependencies (`db=None`: listing only, not runnable)."""
    settings = settings or ActionSettings()
    if search is None and settings.search_url:
        search = SearxngSearch(settings.search_url, timeout=settings.search_timeout)
    deps = None
    if db is not None and clock is not None:
        deps = Deps(db=db, clock=clock, settings=settings, modes=modes, channels=channels, search=search)
    return tuple(d.bind(deps) for d in action_definitions())


def register_actions(
    registry: ToolRegistry,
    *,
    db: Database,
    clock: Clock,
    modes: HouseholdMode | None = None,
    channels: ChannelSource | None = None,
    settings: ActionSettings | None = None,
    search: SearchBackend | None = None,
) -> Callable[[], None]:
    """Register every action; returns a callable that unregisters them all again."""
    settings = settings or ActionSettings()
    if modes is None:
        modes = HouseholdMode(db, clock, settings.modes)
    removers = [
        registry.register(spec)
        for spec in action_specs(db=db, clock=clock, settings=settings, modes=modes,
                                 channels=channels, search=search)
    ]

    def unregister() -> None:
        for remove in removers:
            remove()

    return unregister
