"""Action registries are objects: every module hands its actions to a registry it is
given, nothing is registered at import, and duplicate names raise."""

from __future__ import annotations

import importlib
import itertools
import pkgutil
from types import ModuleType

import pytest

import homeagent.actions
from homeagent.actions import (
    CATEGORIES,
    ActionRegistry,
    action_definitions,
    action_registry,
    action_specs,
)
from homeagent.actions.base import ActionDef, Call, Category, s
from homeagent.tools.registry import ToolOutput, ToolRegistry

CATEGORY_MODULES = ("tasks", "events", "notes", "finance", "health", "goals", "life", "inventory", "extras")


async def _run(c: Call) -> ToolOutput:
    return c.done("好", "ok")


def _action(name: str, category: str = "task") -> ActionDef:
    return Category(category).define(name, "a test action / 测试", {"text": s("text")})(_run)


def _package_modules() -> list[ModuleType]:
    return [homeagent.actions] + [
        importlib.import_module(f"homeagent.actions.{info.name}")
        for info in pkgutil.iter_modules(homeagent.actions.__path__)
    ]


def test_define_makes_a_definition_and_keeps_nothing() -> None:
    tasks = Category("task")
    first = tasks.define("a_thing", "A / 甲", {"text": s("text")}, required=["text"])(_run)
    assert isinstance(first, ActionDef) and first.category == "task" and first.run is _run
    assert first.parameters == {"type": "object", "properties": {"text": s("text")},
                                "additionalProperties": False, "required": ["text"]}
    assert vars(tasks) == {"name": "task"}  # the definer holds no list of what it made


def test_duplicate_names_raise() -> None:
    registry = ActionRegistry()
    registry.add(_action("do_it"))
    with pytest.raises(ValueError, match="'do_it' is already registered"):
        registry.add(_action("do_it", "life"))


def test_a_second_module_reusing_a_name_raises() -> None:
    registry = action_registry()
    with pytest.raises(ValueError, match="'create_task' is already registered"):
        registry.add(_action("create_task"))


def test_unknown_categories_raise() -> None:
    with pytest.raises(ValueError, match="unknown category 'chores'"):
        ActionRegistry().add(_action("do_it", "chores"))


def test_definitions_group_by_category_in_the_seeds_order_keeping_the_order_added() -> None:
    registry = ActionRegistry()
    registry.add(_action("b_life", "life"), _action("a_task"), _action("c_life", "life"), _action("d_task"))
    assert [d.name for d in registry.definitions()] == ["a_task", "d_task", "b_life", "c_life"]
    order = list(CATEGORIES)
    cats = [order.index(d.category) for d in action_definitions()]
    assert cats == sorted(cats) and set(cats) == set(range(len(order)))


def test_every_build_is_a_new_registry() -> None:
    first = action_registry()
    first.add(_action("only_in_the_first"))
    second = action_registry()
    assert second is not first
    assert "only_in_the_first" not in {d.name for d in second.definitions()}
    assert "only_in_the_first" not in {d.name for d in action_definitions()}
    assert [d.name for d in action_definitions()] == [d.name for d in second.definitions()]


def test_every_category_module_registers_through_its_register_function() -> None:
    names: list[str] = []
    for name in CATEGORY_MODULES:
        module = importlib.import_module(f"homeagent.actions.{name}")
        registry = ActionRegistry()
        module.register(registry, None)
        defs = registry.definitions()
        assert defs, name
        names += [d.name for d in defs]
    assert len(names) == len(set(names)) == 75
    assert sorted(names) == sorted(d.name for d in action_definitions())


def test_no_module_keeps_a_registry_or_a_counter() -> None:
    for module in _package_modules():
        for key, value in vars(module).items():
            where = f"{module.__name__}.{key}"
            assert not isinstance(value, ActionRegistry | ToolRegistry | itertools.count), where
            if isinstance(value, list | dict | set):
                items = list(value.values()) if isinstance(value, dict) else list(value)
                assert not any(isinstance(v, ActionDef) for v in items), where


def test_specs_bind_fresh_into_separate_tool_registries() -> None:
    one, two = ToolRegistry(), ToolRegistry()
    for spec in action_specs(db=None, clock=None):
        one.register(spec)
    for spec in action_specs(db=None, clock=None):
        two.register(spec)  # a second registry is not "already registered"
    assert [t.name for t in one] == [t.name for t in two] and len(list(one)) == 75
    with pytest.raises(ValueError, match="already registered"):
        one.register(action_specs(db=None, clock=None)[0])
