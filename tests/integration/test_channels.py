"""Channels in the running daemon: what a channel can do decides whether a tool that needs
confirmation asks or is refused; the HTTP channels register while the server runs; the
console channel answers a permission request from its terminal; an OpenAI client that
leaves mid-stream cancels its turn."""

from __future__ import annotations

import io
import json
import os

import aiohttp
import anyio
import openai
import pytest

from homeagent.io.console import ConsoleChannel
from homeagent.llm.testing import ScriptedProvider, ScriptedReply

from .helpers import running_app, wipe_tool

pytestmark = pytest.mark.anyio


def wipe_then(answer: str) -> list[ScriptedReply | str]:
    return [ScriptedReply(tool_calls=[("wipe_list", {"what": "购物清单"})]), answer]


def base(app) -> str:
    return f"http://127.0.0.1:{app.health.port}"


async def test_a_confirm_tool_over_the_openai_endpoint_is_refused(make_config):
    calls: list[str] = []
    provider = ScriptedProvider(wipe_then("不能直接清空。"))
    async with running_app(make_config(), provider=provider, http=True, extra_tools=(wipe_tool(calls),)) as app:
        client = openai.AsyncOpenAI(base_url=base(app) + "/v1", api_key="unused")
        with anyio.fail_after(20):
            completion = await client.chat.completions.create(
                model="homeagent", messages=[{"role": "user", "content": "清空购物清单"}])
        await client.close()
    assert completion.choices[0].message.content == "不能直接清空。" and calls == []
    refused = provider.requests[1].messages[-1]
    assert refused.role == "tool" and "cannot ask for it" in refused.content


async def test_a_confirm_tool_over_api_chat_asks_and_runs_when_allowed(make_config):
    calls: list[str] = []
    provider = ScriptedProvider(wipe_then("清空了。"))
    async with running_app(make_config(), provider=provider, http=True, extra_tools=(wipe_tool(calls),)) as app:
        frames: list[tuple[str, dict]] = []
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/chat", json={"message": "清空购物清单"}) as r:
                event = ""
                with anyio.fail_after(20):
                    async for raw in r.content:
                        line = raw.decode().rstrip("\n")
                        if line.startswith("event: "):
                            event = line[7:]
                        elif line.startswith("data: "):
                            frames.append((event, json.loads(line[6:])))
                            if event == "permission_request":
                                url = frames[-1][1]["answer_url"]
                                async with s.post(base(app) + url, json={"decision": "allow_once"}) as answer:
                                    assert answer.status == 200
    asked = next(d for k, d in frames if k == "permission_request")
    turn_id = frames[0][1]["turn_id"]
    assert asked["answer_url"] == f"/api/agent/runs/{turn_id}/permissions/{asked['request_id']}"
    assert asked["tool"] == "wipe_list" and calls == ["购物清单"] and frames[-1][0] == "done"


async def test_the_http_channels_are_registered_while_the_server_runs(make_config):
    provider = ScriptedProvider([])
    async with running_app(make_config(), provider=provider, http=True) as app:
        serving = [(c.name, c.capabilities.confirms) for c in app.devices.channels()]
        devices = app.devices
    # The push channel is the app's (it stores reminders even before the server is up).
    assert serving == [
        ("push", False), ("openai", False), ("http", True), ("api", True), ("ollama", False), ("browser", True)
    ]
    assert devices.channels() == []


async def test_the_console_channel_confirms_on_its_terminal(make_config):
    calls: list[str] = []
    provider = ScriptedProvider(wipe_then("清空了。"))
    read_fd, write_fd = os.pipe()
    out, prompts = io.StringIO(), io.StringIO()
    async with running_app(make_config(), provider=provider, extra_tools=(wipe_tool(calls),)) as app:
        with os.fdopen(read_fd, encoding="utf-8") as terminal, os.fdopen(write_fd, "w") as keyboard:
            console = ConsoleChannel(app.inbox, app.broker, stdin=terminal, stdout=out, prompts=prompts)
            keyboard.write("y\n")
            keyboard.flush()
            with anyio.fail_after(20):
                failure = await console.say("清空购物清单")
    assert failure is None and calls == ["购物清单"] and out.getvalue() == "清空了。\n"
    assert "Allow wipe_list (delete)" in prompts.getvalue()


async def test_an_openai_client_leaving_mid_stream_cancels_the_turn(make_config):
    long_text = " ".join(f"w{i}" for i in range(500))
    provider = ScriptedProvider([ScriptedReply(text=long_text, delay=0.02)])
    async with running_app(make_config(), provider=provider, http=True) as app:
        client = openai.AsyncOpenAI(base_url=base(app) + "/v1", api_key="unused")
        stream = await client.chat.completions.create(
            model="homeagent", messages=[{"role": "user", "content": "go"}], stream=True)
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                break
        await stream.close()
        await client.close()
        with anyio.fail_after(5):
            while app.agent.stats.turns_cancelled == 0:  # noqa: ASYNC110 - polls a counter
                await anyio.sleep(0.02)
        assert await app.conversation.count() == 0


async def test_a_run_shows_where_to_answer_a_permission_request(make_config):
    """The agent records a permission request without a URL; the run's event stream and
    trace say where to answer it."""
    from homeagent.io.events import PermissionRequested, TurnDone

    async with running_app(make_config(), provider=ScriptedProvider([]), http=True) as app:
        app.runs.create("turn_7", channel="api", device_id="d", member="", text="清空")
        app.runs.event("turn_7", PermissionRequested("perm_1", "wipe_list", "delete", {"what": "x"}))
        app.runs.event("turn_7", TurnDone("turn_7", "", "stop", 0, 0, "m"))
        async with aiohttp.ClientSession() as s:
            with anyio.fail_after(20):
                async with s.get(base(app) + "/api/agent/runs/turn_7/events") as r:
                    frames = [json.loads(raw[6:]) async for raw in r.content if raw.startswith(b"data: ")]
                async with s.get(base(app) + "/api/agent/runs/turn_7/trace") as r:
                    trace = await r.json()
    url = "/api/agent/runs/turn_7/permissions/perm_1"
    assert frames[0]["answer_url"] == url and frames[0]["tool"] == "wipe_list"
    asked = next(e for e in trace["events"] if e["type"] == "permission_request")
    assert asked["data"]["answer_url"] == url
