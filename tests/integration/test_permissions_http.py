"""Permission confirmations over HTTP: a run waits, the user answers, the tool runs or not."""

from __future__ import annotations

import json

import aiohttp
import anyio
import pytest

from homeagent.llm.testing import ScriptedProvider, ScriptedReply

from .helpers import running_app, wipe_tool

pytestmark = pytest.mark.anyio


async def start_run(s, base: str) -> tuple[str, aiohttp.ClientResponse]:
    async with s.post(base + "/api/agent/runs", json={"input": "清空购物清单"}) as r:
        run_id = (await r.json())["id"]
    return run_id, await s.get(base + f"/api/agent/runs/{run_id}/events")


async def frames_of(resp, until: str | None = None):
    event = None
    async for raw in resp.content:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
            yield event, data
            if event == until:
                return


@pytest.mark.parametrize(("decision", "ran"), [("allow_once", True), ("deny", False)])
async def test_confirm_then_answer(make_config, decision, ran):
    calls: list[str] = []
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("wipe_list", {"what": "购物清单"})]), "好的。"])
    async with running_app(make_config(), provider=provider, http=True, extra_tools=(wipe_tool(calls),)) as app:
        base = f"http://127.0.0.1:{app.health.port}"
        async with aiohttp.ClientSession() as s:
            run_id, events = await start_run(s, base)
            with anyio.fail_after(20):
                async for kind, data in frames_of(events, until="permission_request"):  # noqa: B007 - the last frame is kept
                    pass
            assert kind == "permission_request" and data["tool"] == "wipe_list"
            assert data["arguments"] == {"what": "购物清单"} and data["permission"] == "delete"
            async with s.get(base + f"/api/agent/runs/{run_id}") as r:
                assert (await r.json())["status"] == "waiting_permission"
            async with s.post(base + data["answer_url"], json={"decision": "maybe"}) as r:
                assert r.status == 400
            async with s.post(base + data["answer_url"], json={"decision": decision}) as r:
                assert r.status == 200
            async with s.post(base + data["answer_url"], json={"decision": decision}) as r:
                assert r.status == 404  # answered already
            with anyio.fail_after(20):
                rest = [(k, d) async for k, d in frames_of(events, until="done")]
            events.release()
    result = next(d for k, d in rest if k == "tool_result")
    assert result["ok"] is ran and calls == (["购物清单"] if ran else [])
    if not ran:
        assert "declined" in result["content"]
    assert provider.requests[1].messages[-1].role == "tool"


async def test_unanswered_confirmation_times_out_as_deny(make_config):
    calls: list[str] = []
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("wipe_list", {"what": "todo"})]), "ok"])
    config = make_config(permissions={"confirm_timeout": 0.3})
    async with running_app(config, provider=provider, http=True, extra_tools=(wipe_tool(calls),)) as app:
        base = f"http://127.0.0.1:{app.health.port}"
        async with aiohttp.ClientSession() as s:
            run_id, events = await start_run(s, base)
            with anyio.fail_after(20):
                frames = [(k, d) async for k, d in frames_of(events, until="done")]
            events.release()
    result = next(d for k, d in frames if k == "tool_result")
    assert not result["ok"] and "did not confirm" in result["content"] and calls == []


async def test_policy_deny_and_audit_log(make_config):
    calls: list[str] = []
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("wipe_list", {"what": "x"}), ("current_time", {})]), "ok"])
    config = make_config(permissions={"tools": ["wipe_list=deny"]})
    async with running_app(config, provider=provider, http=True, extra_tools=(wipe_tool(calls),)) as app:
        base = f"http://127.0.0.1:{app.health.port}"
        async with aiohttp.ClientSession() as s:
            run_id, events = await start_run(s, base)
            with anyio.fail_after(20):
                frames = [(k, d) async for k, d in frames_of(events, until="done")]
            events.release()
        log = await app.audit.recent(limit=10, turn_id=run_id)
    results = {d["name"]: d for k, d in frames if k == "tool_result"}
    assert not results["wipe_list"]["ok"] and "not permitted" in results["wipe_list"]["content"]
    assert results["current_time"]["ok"] and calls == []
    by_name = {entry.name: entry for entry in log}
    assert sorted(by_name) == ["current_time", "wipe_list"]
    assert by_name["wipe_list"].decision == "deny" and not by_name["wipe_list"].success
    assert by_name["current_time"].success
