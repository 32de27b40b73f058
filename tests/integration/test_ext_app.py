"""Extensions inside the running app: adapters in turns and /healthz, the change tracker
over knowledge writes (/api/changes, diff, revert), and HomeAgent as an MCP server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import aiohttp
import anyio
import pytest

from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from tests.integration.helpers import running_app, text_of, turn
from tests.integration.test_ext_lua import FakePlug, install_plug

pytestmark = pytest.mark.anyio
REPO = Path(__file__).resolve().parents[2]


async def test_an_adapter_in_a_turn_and_in_healthz(make_config, tmp_path):
    pytest.importorskip("lupa")
    plug = FakePlug()
    try:
        install_plug(tmp_path / "data", plug.port)  # a data-dir copy wins over the shipped one
        config = make_config(adapters={"dir": str(REPO / "adapters"), "enabled": ["smart_plug", "missing_one"]},
                             backup={"interval": 0})
        provider = ScriptedProvider()
        async with running_app(config, provider=provider, http=True) as app:
            provider.push(ScriptedReply(tool_calls=[("smart_plug__switch", {"on": True})]), "The plug is on.")
            events = await turn(app, "turn the plug on")
            assert text_of(events) == "The plug is on." and plug.on
            async with aiohttp.ClientSession() as http, \
                    http.get(f"http://127.0.0.1:{app.health.port}/healthz") as resp:
                body = await resp.json()
        assert body["subsystems"]["adapter:smart_plug"]["state"] == "ready"
        assert body["subsystems"]["adapter:smart_plug"]["tools"] == ["smart_plug__status", "smart_plug__switch"]
    finally:
        plug.close()


async def test_knowledge_the_agent_writes_is_versioned_and_can_be_reverted(make_config):
    provider = ScriptedProvider()
    config = make_config(backup={"interval": 0})
    async with running_app(config, provider=provider, http=True) as app:
        provider.push(ScriptedReply(tool_calls=[("knowledge_create", {
            "topic": "garden", "title": "Tomatoes", "content": "Water tomatoes every morning."})]), "Saved.")
        await turn(app, "remember how to water the tomatoes")
        changes = await app.changes.list()
        assert len(changes) == 1 and changes[0].op == "create" and changes[0].path.endswith("garden/tomatoes.md")
        path = Path(changes[0].path)
        assert "Water tomatoes every morning." in await anyio.Path(path).read_text()
        diff = await app.changes.diff(changes[0].id)
        assert diff.startswith("--- /dev/null") and "+Water tomatoes every morning." in diff
        # A later upload over it is versioned too, with its previous content.
        await app.knowledge.save_upload("garden", "tomatoes.md", b"# Tomatoes\n\nWater at night.\n", overwrite=True)
        modify = (await app.changes.list())[0]
        assert modify.op == "modify"
        assert "-Water tomatoes every morning." in await app.changes.diff(modify.id)
        revert = await app.changes.revert(modify.id)
        assert revert.reverts == modify.id and revert.op == "modify"
        assert "Water tomatoes every morning." in await anyio.Path(path).read_text()
        async with aiohttp.ClientSession() as http, \
                http.get(f"http://127.0.0.1:{app.health.port}/api/changes?limit=10") as resp:
            listed = await resp.json()
            assert resp.status == 200
        async with aiohttp.ClientSession() as http, \
                http.get(f"http://127.0.0.1:{app.health.port}/api/changes?limit=zero") as bad:
            assert bad.status == 400 and "limit" in (await bad.json())["error"]["message"]
    assert [c["id"] for c in listed["changes"]] == [revert.id, modify.id, changes[0].id]
    assert listed["changes"][0]["reverts"] == modify.id
    # Undoing the revert is possible: it is a change like any other.


async def test_homeagent_is_an_mcp_server_under_the_same_policy(make_config, tmp_path):
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    config = make_config(backup={"interval": 0})
    config_path = tmp_path / "homeagent.yaml"
    params = StdioServerParameters(command=sys.executable, args=["-m", "homeagent", "mcp", "--config", str(config_path)],
                                   env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    del config
    with open(tmp_path / "mcp.stderr", "w") as errlog:  # noqa: ASYNC230 - a test's log file
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            with anyio.fail_after(120):
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
            assert {"memory_recall", "knowledge_search", "create_task", "delete_task"} <= tools
            created = await session.call_tool("create_task", {"content": "buy stamps"})
            assert not created.isError and "buy stamps" in created.content[0].text
            found = await session.call_tool("knowledge_search", {"query": "first aid burns"})
            assert not found.isError
            # delete is confirm-class: nobody on stdio can confirm, so the policy refuses it.
            deleted = await session.call_tool("delete_task", {"content": "buy stamps"})
            assert deleted.isError and "needs the user's confirmation" in deleted.content[0].text
            invalid = await session.call_tool("create_task", {"content": 5})
            assert invalid.isError and "invalid arguments for create_task" in invalid.content[0].text
    listing = json.loads(json.dumps(sorted(tools)))
    assert not any("__" in name for name in listing)


async def test_the_daemon_starts_without_the_ext_extra(make_config, monkeypatch):
    # As if neither package were installed: importing them raises ImportError.
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.setitem(sys.modules, "lupa", None)
    config = make_config(
        plugins={"servers": {"fake": {"command": sys.executable, "args": ["-c", "pass"]}}},
        adapters={"dir": str(REPO / "adapters"), "enabled": ["smart_plug"]}, backup={"interval": 0},
    )
    provider = ScriptedProvider(replies=["Still here."])
    async with running_app(config, provider=provider, http=True) as app:
        assert text_of(await turn(app, "hello")) == "Still here."
        for _ in range(100):
            if app.plugins.plugins[0].status.state == "unavailable":
                break
            await anyio.sleep(0.02)
        async with aiohttp.ClientSession() as http, \
                http.get(f"http://127.0.0.1:{app.health.port}/healthz") as resp:
            body = await resp.json()
    assert body["status"] == "degraded"
    assert body["subsystems"]["plugin:fake"]["state"] == "unavailable"
    assert "mcp package is not installed" in body["subsystems"]["plugin:fake"]["last_error"]
    assert body["subsystems"]["adapter:smart_plug"]["state"] == "unavailable"
