"""The Ollama protocol under /ollama, driven by the official `ollama` client (the version
Home Assistant 2025.4 uses) and raw aiohttp against a real running App."""

from __future__ import annotations

import json

import aiohttp
import ollama
import pytest

from homeagent.llm.testing import ScriptedProvider, ScriptedReply

from .helpers import running_app
from .test_client_tools import _runs

pytestmark = pytest.mark.anyio

# As Home Assistant's integration sends them through ollama 0.4.7 (enum/items dropped).
HA_TOOLS = [
    {"type": "function", "function": {
        "name": "HassTurnOn", "description": "Turns on/opens a device or entity",
        "parameters": {"type": "object", "required": [], "properties": {
            "name": {"type": "string"}, "area": {"type": "string"}, "domain": {"type": "array"}}}}},
    {"type": "function", "function": {
        "name": "GetLiveContext", "description": "Provides real-time information about devices",
        "parameters": {"type": "object", "properties": {}}}},
]


def base(app) -> str:
    return f"http://127.0.0.1:{app.health.port}/ollama"


async def test_model_routes_answer_like_ollama(make_config):
    async with running_app(make_config(), provider=ScriptedProvider([]), http=True) as app:
        client = ollama.AsyncClient(host=base(app))
        listed = await client.list()
        assert [m.model for m in listed.models] == ["homeagent:latest"]
        entry = listed.models[0]
        assert entry.digest and entry.modified_at is not None and entry.details.family == "homeagent"
        shown = await client.show("homeagent:latest")
        assert shown.details.family == "homeagent" and shown.modelfile
        assert (await client.pull("homeagent:latest")).status == "success"
        assert [p.status async for p in await client.pull("homeagent", stream=True)][-1] == "success"
        assert [m.model for m in (await client.ps()).models] == ["homeagent:latest"]
        with pytest.raises(ollama.ResponseError) as err:
            await client.pull("llama3.2:latest")
        assert err.value.status_code == 404 and "llama3.2:latest" in err.value.error

        async with aiohttp.ClientSession() as s:
            for method in ("GET", "HEAD"):
                async with s.request(method, base(app) + "/") as r:
                    assert r.status == 200
                    if method == "GET":
                        assert await r.text() == "Ollama is running"
            async with s.post(base(app) + "/api/show", json={"model": "homeagent"}) as r:
                assert "tools" in (await r.json())["capabilities"]
            async with s.get(base(app) + "/api/version") as r:
                assert "version" in await r.json()
            # HomeAgent's own routes are untouched.
            async with s.get(f"http://127.0.0.1:{app.health.port}/v1/models") as r:
                assert r.status == 200


async def test_chat_without_stream_and_raw_ndjson_stream(make_config):
    provider = ScriptedProvider(["Hello there, 你好。", "Streamed words here."])
    async with running_app(make_config(), provider=provider, http=True) as app:
        client = ollama.AsyncClient(host=base(app))
        reply = await client.chat(
            model="homeagent:latest", messages=[{"role": "user", "content": "hi"}],
            stream=False, keep_alive="-1.0s", options={"num_ctx": 8192.0},
        )
        assert reply.message.content == "Hello there, 你好。"
        assert reply.done and reply.done_reason == "stop" and reply.eval_count > 0
        assert reply.total_duration > 0

        body = {
            "model": "homeagent:latest", "messages": [{"role": "system", "content": "You are HA's agent"},
                                                       {"role": "user", "content": "go"}],
            "tools": HA_TOOLS, "keep_alive": -1, "options": {"num_ctx": 8192}, "think": False, "format": "",
        }
        async with aiohttp.ClientSession() as s, s.post(base(app) + "/api/chat", json=body) as r:
            assert r.status == 200 and r.headers["Content-Type"].startswith("application/x-ndjson")
            raw = await r.text()
        lines = raw.split("\n")
        assert lines[-1] == "" and all(lines[:-1])  # one object a line, no blank lines
        chunks = [json.loads(line) for line in lines[:-1]]
        assert all("message" in c for c in chunks)
        assert "".join(c["message"]["content"] for c in chunks) == "Streamed words here."
        assert [c["done"] for c in chunks] == [False] * (len(chunks) - 1) + [True]
        last = chunks[-1]
        for key in ("done_reason", "prompt_eval_count", "eval_count", "total_duration", "eval_duration"):
            assert key in last
        # The system prompt reached the turn as context.
        assert any("You are HA's agent" in m.content for m in provider.requests[1].messages)


async def test_ha_style_tool_round_trip_resumes_the_same_turn(make_config):
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("HassTurnOn", {"name": "kitchen light"})]),
        "The kitchen light is on.",
    ])
    async with running_app(make_config(), provider=provider, http=True) as app:
        client = ollama.AsyncClient(host=base(app))
        history = [{"role": "system", "content": "Static Context: Kitchen Light (light, Kitchen)"},
                   {"role": "user", "content": "turn on the kitchen light"}]
        calls, text, done = [], "", []
        async for chunk in await client.chat(
            model="homeagent:latest", messages=history, tools=HA_TOOLS, stream=True,
            keep_alive="-1.0s", options={"num_ctx": 8192.0},
        ):
            text += chunk.message.content or ""
            calls += chunk.message.tool_calls or []
            done.append(chunk.done)
        assert done[-1] is True and text == ""
        assert [(c.function.name, dict(c.function.arguments)) for c in calls] == [("HassTurnOn", {"name": "kitchen light"})]
        # Home Assistant posts the assistant message back without `content`, then the result.
        history += [
            {"role": "assistant", "tool_calls": [{"function": {"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}}]},
            {"role": "tool", "content": json.dumps({"success": True, "targets": ["light.kitchen"]})},
        ]
        async with aiohttp.ClientSession() as s:
            body = {"model": "homeagent:latest", "messages": history, "tools": HA_TOOLS, "stream": False}
            async with s.post(base(app) + "/api/chat", json=body) as r:
                second = await r.json()
            assert second["message"]["content"] == "The kitchen light is on." and second["done"] is True
            # The same results again: nothing waits for them any more.
            async with s.post(base(app) + "/api/chat", json=body) as r:
                stale = await r.json()
            assert r.status == 400 and "HassTurnOn" in stale["error"]
        assert [m.content for m in provider.requests[1].messages if m.role == "tool"] == [
            '{"success": true, "targets": ["light.kitchen"]}'
        ]
        runs = await _runs(app)
        assert len(runs) == 1 and runs[0].status == "completed" and runs[0].channel == "ollama"


async def test_errors_are_ollama_shaped(make_config):
    async with running_app(make_config(), provider=ScriptedProvider([]), http=True) as app:
        async with aiohttp.ClientSession() as s:
            for body, words in (
                ({"model": "homeagent", "messages": [{"role": "user", "content": "x"}], "keep_alive": "soon"}, "keep_alive"),
                ({"model": "homeagent", "messages": [{"role": "user", "content": "x"}], "options": {"num_ctx": "big"}}, "num_ctx"),
                ({"model": "nope", "messages": [{"role": "user", "content": "x"}]}, "nope"),
                ({"model": "homeagent", "messages": []}, "messages"),
                ({"model": "homeagent", "messages": [{"role": "user", "content": "x"}], "tools": [{"function": {}}]}, "tools[0]"),
            ):
                async with s.post(base(app) + "/api/chat", json=body) as r:
                    answer = await r.json()
                assert r.status in (400, 404) and set(answer) == {"error"} and words in answer["error"]
            async with s.get(base(app) + "/api/nothing") as r:
                assert r.status == 404 and "error" in await r.json()


async def test_auth_by_bearer_header_or_key_in_the_url(make_config):
    config = make_config(api={"token": "household-secret-1"})
    async with running_app(config, provider=ScriptedProvider(["one", "two"]), http=True) as app:
        with pytest.raises(ollama.ResponseError) as err:
            await ollama.AsyncClient(host=base(app)).list()
        assert err.value.status_code == 401 and "token" in err.value.error
        with pytest.raises(ollama.ResponseError):
            await ollama.AsyncClient(host=base(app) + "/key/wrong").list()
        by_header = ollama.AsyncClient(host=base(app), headers={"Authorization": "Bearer household-secret-1"})
        assert (await by_header.chat(model="homeagent", messages=[{"role": "user", "content": "a"}], stream=False)).message.content == "one"
        # Home Assistant's integration sends no headers: the URL pasted into it carries the key.
        by_url = ollama.AsyncClient(host=base(app) + "/key/household-secret-1")
        assert [m.model for m in (await by_url.list()).models] == ["homeagent:latest"]
        reply = await by_url.chat(model="homeagent", messages=[{"role": "user", "content": "b"}], stream=False)
        assert reply.message.content == "two"
