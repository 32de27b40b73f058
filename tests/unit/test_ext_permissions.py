"""Plugin-wide permission rules: `<plugin>__*` patterns in permissions.tools."""

from __future__ import annotations

from homeagent.tools.permissions import PermissionPolicy
from homeagent.tools.registry import Permission, ToolSpec


async def _noop(ctx, args):
    return "ok"


def spec(name: str, permission: Permission = Permission.READ) -> ToolSpec:
    return ToolSpec(name, name, {"type": "object"}, _noop, permission=permission)


def test_a_pattern_covers_a_plugins_tools_exact_names_and_longer_patterns_win():
    policy = PermissionPolicy.from_config(None, ["weather__*=confirm", "weather__radar_*=deny",
                                                 "weather__now=allow"])
    assert policy.decide(spec("weather__forecast")) == "confirm"  # a read tool, still confirm
    assert policy.decide(spec("weather__radar_image")) == "deny"
    assert policy.decide(spec("weather__now")) == "allow"
    assert policy.decide(spec("weatherman")) == "allow"  # not the plugin: its class decides
    assert policy.decide(spec("list_tasks")) == "allow"
