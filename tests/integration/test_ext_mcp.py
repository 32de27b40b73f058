"""MCP plugins with a real stdio server (tests/integration/mcp_fake_server.py)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from homeagent.chat import ToolCall  # noqa: E402
from homeagent.config import PluginConfig  # noqa: E402
from homeagent.ext.mcp_client import McpPlugin, tool_name  # noqa: E402
from homeagent.llm.testing import ScriptedProvider, ScriptedReply  # noqa: E402
from homeagent.tools.registry import ToolContext, ToolRegistry  # noqa: E402
from tests.integration.helpers import running_app, text_of, turn  # noqa: E402

SERVER = str(Path(__file__).with_name("mcp_fake_server.py"))
pytestmark = pytest.mark.anyio
CTX = ToolContext(turn_id="t", channel="test")


def plugin_config(**kw) -> PluginConfig:
    return PluginConfig(command=sys.executable, args=(SERVER,), timeout=kw.pop("timeout", 10.0), **kw)


async def call(registry: ToolRegistry, name: str, args: str = "{}"):
    return await registry.execute(ToolCall(id="c1", name=name, arguments=args), CTX)


async def until(condition, seconds: float = 30) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await anyio.sleep(0.05)
    raise AssertionError("condition not reached in time")


async def wait_ready(plugin: McpPlugin) -> None:
    await until(lambda: plugin.status.state == "ready")


def test_tool_names_are_cleaned():
    assert tool_name("fake", "Weird Name!") == "fake__weird_name"
    assert tool_name("fake", "add") == "fake__add"
    assert tool_name("fake", "!!!") is None


async def test_tools_registered_validated_and_secrets_only_by_declared_name():
    registry = ToolRegistry()
    env = {"PLUGIN_TOKEN": "declared-value", "OPENAI_API_KEY": "sk-must-not-leak", "PATH": os.environ["PATH"]}
    plugin = McpPlugin("fake", plugin_config(env=("PLUGIN_TOKEN",)), registry, environ=env)
    async with anyio.create_task_group() as tg:
        tg.start_soon(plugin.run)
        await wait_ready(plugin)
        assert set(plugin.status.tools) == {"fake__add", "fake__slow", "fake__whoami", "fake__read_env",
                                            "fake__weird_name"}
        ok = await call(registry, "fake__add", '{"a": 2, "b": 40}')
        assert ok.ok and ok.content == "42"
        bad = await call(registry, "fake__add", '{"a": "two"}')
        assert not bad.ok and "invalid arguments" in bad.content
        declared = await call(registry, "fake__read_env", '{"name": "PLUGIN_TOKEN"}')
        assert declared.content == "declared-value"
        secret = await call(registry, "fake__read_env", '{"name": "OPENAI_API_KEY"}')
        assert secret.content == "<unset>"
        tg.cancel_scope.cancel()
    assert "fake__add" not in registry  # withdrawn when the plugin stops


async def test_a_slow_call_times_out():
    registry = ToolRegistry()
    plugin = McpPlugin("fake", plugin_config(timeout=0.5), registry)
    async with anyio.create_task_group() as tg:
        tg.start_soon(plugin.run)
        await wait_ready(plugin)
        result = await call(registry, "fake__slow", '{"seconds": 5}')
        assert not result.ok and "within 0.5 s" in result.content
        tg.cancel_scope.cancel()


async def test_killed_mid_call_the_turn_is_answered_and_tools_come_back(make_config):
    config = make_config(
        plugins={"servers": {"fake": {"command": sys.executable, "args": [SERVER], "grant": "allow"}},
                 "restart_initial": "1s", "ping_interval": "0.2s"},
        backup={"interval": 0},
    )
    provider = ScriptedProvider()
    async with running_app(config, provider=provider, http=True) as app:
        plugin = app.plugins.plugins[0]
        await wait_ready(plugin)
        pid = int((await call(app.tools, "fake__whoami")).content)

        async def kill_soon() -> None:
            await anyio.sleep(0.5)
            os.kill(pid, signal.SIGKILL)

        provider.push(ScriptedReply(tool_calls=[("fake__slow", {"seconds": 8})]),
                      "The plugin stopped; I could not finish that.")
        async with anyio.create_task_group() as tg:
            tg.start_soon(kill_soon)
            events = await turn(app, "do the slow thing")
        assert text_of(events) == "The plugin stopped; I could not finish that."
        finished = [e for e in events if e.type == "tool_result"]
        assert finished and not finished[0].ok  # type: ignore[attr-defined]
        assert events[-1].type == "done"
        # While it is down its tools are withdrawn; then it is started again and they return.
        await until(lambda: "fake__whoami" not in app.tools and plugin.status.state == "down")
        assert "connection lost" in plugin.status.last_error or "closed" in plugin.status.last_error.lower()
        await until(lambda: plugin.status.restarts >= 1 and plugin.status.state == "ready")
        again = await call(app.tools, "fake__whoami")
        assert again.ok and int(again.content) != pid


async def test_plugin_tools_ask_first_unless_granted(make_config):
    config = make_config(plugins={"servers": {"fake": {"command": sys.executable, "args": [SERVER]}}},
                         backup={"interval": 0})
    async with running_app(config, provider=ScriptedProvider(), http=True) as app:
        plugin = app.plugins.plugins[0]
        await wait_ready(plugin)
        spec = app.tools.get("fake__add")
        assert spec is not None
        assert app.permissions.policy.decide(spec) == "confirm"


async def test_a_plugin_that_cannot_start_is_down_and_retried_not_fatal():
    registry = ToolRegistry()
    plugin = McpPlugin("ghost", PluginConfig(command="/nonexistent/mcp-server", timeout=2.0), registry,
                       restart_initial=0.05, restart_max=0.1)
    async with anyio.create_task_group() as tg:
        tg.start_soon(plugin.run)
        await until(lambda: plugin.status.restarts >= 2)
        assert plugin.status.state in ("down", "starting") and len(registry) == 0
        assert plugin.status.last_error
        tg.cancel_scope.cancel()
