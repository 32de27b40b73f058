"""The life actions of seed 000 §5.2: 75 tools in nine categories over SQLite tables of
their own (`homeagent.actions.schema.MIGRATIONS`, versions 10–29 and 122).

The composition root calls `register_actions(registry, db=…, clock=…, modes=…,
channels=…, settings=…)` once; every action then appears in the tools list, in the
`[ACTION]` catalog and in the relevant-action index. `action_definitions()` gives the
static definitions (for `homeagent tools list` without a database).

Each category module exposes `register(registry, deps)` and hands its definitions to a
fresh `ActionRegistry`; nothing is registered at import, and every call here builds
its own registry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from homeagent.actions import events, extras, finance, goals, health, inventory, life, notes, tasks
from homeagent.actions.base import (
    CATEGORIES,
    ActionDef,
    ActionRegistry,
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
    "ActionRegistry",
    "ActionSettings",
    "HouseholdMode",
    "SearxngSearch",
    "action_definitions",
    "action_registry",
    "action_specs",
    "register_actions",
]



class ActionModule(Protocol):
    """A category module: it hands its actions to the registry it is given."""

    def register(self, registry: ActionRegistry, deps: Deps | None) -> None: ...


_MODULES: tuple[ActionModule, ...] = (tasks, events, notes, finance, health, goals, life, inventory, extras)


def action_registry(deps: Deps | None = None) -> ActionRegistry:
    """A new registry holding every module's actions (`deps=None`: for listing)."""
    registry = ActionRegistry()
    for module in _MODULES:
        module.register(registry, deps)
    return registry


def action_definitions() -> tuple[ActionDef, ...]:
    """Every action's static definition, grouped by category in the seed's order."""
    return action_registry().definitions()


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
    return action_registry(deps).specs(deps)


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
        registry.register(spec, shipped=True)
        for spec in action_specs(db=db, clock=clock, settings=settings, modes=modes,
                                 channels=channels, search=search)
    ]

    def unregister() -> None:
        for remove in removers:
            remove()

    return unregister
