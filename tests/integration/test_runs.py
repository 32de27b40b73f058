"""Runs on record over HTTP: create, follow, resume, trace, cancel, members, OpenAPI."""

from __future__ import annotations

import json
import sqlite3

import aiohttp
import anyio
import pytest

from homeagent.api.server import create_web_app
from homeagent.llm.echo import EchoProvider
from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from homeagent.tools.registry import DisplayHint, ToolOutput, ToolSpec

from .helpers import running_app

pytestmark = pytest.mark.anyio


def base(app) -> str:
    return f"http://127.0.0.1:{app.health.port}"


async def read_sse(resp: aiohttp.ClientResponse, stop_after: int | None = None) -> list[tuple[int, str, dict]]:
    frames, seq, event = [], None, None
    async for raw in resp.content:
        line = raw.decode().rstrip("\n")
        if line.startswith("id: "):
            seq = int(line[4:])
        elif line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            frames.append((seq, event, json.loads(line[6:])))
            if stop_after is not None and len(frames) >= stop_after:
                break
    return frames


async def wait_status(s: aiohttp.ClientSession, url: str, *statuses: str) -> dict:
    with anyio.fail_after(20):
        while True:
            async with s.get(url) as r:
                run = await r.json()
            if run["status"] in statuses:
                return run
            await anyio.sleep(0.02)


async def test_create_follow_and_read_a_run(make_config):
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("current_time", {})]), "It is late. 很晚了。"])
    async with running_app(make_config(), provider=provider, http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/agent/runs", json={"input": "几点了?"}) as r:
                assert r.status == 202
                created = await r.json()
            run_id = created["id"]
            async with s.get(base(app) + f"/api/agent/runs/{run_id}/events") as r:
                frames = await read_sse(r)
            run = await wait_status(s, base(app) + f"/api/agent/runs/{run_id}", "completed")
    seqs = [f[0] for f in frames]
    assert seqs == list(range(1, len(frames) + 1))
    kinds = [f[1] for f in frames]
    assert kinds[0] == "turn_started" and kinds[-1] == "done"
    assert {"model_call", "tool_call", "tool_result", "text_delta"} <= set(kinds)
    assert "".join(f[2]["text"] for f in frames if f[1] == "text_delta") == "It is late. 很晚了。"
    assert run["output"] == "It is late. 很晚了。" and run["input"] == "几点了?"
    assert run["provider"] == "scripted" and run["last_sequence"] == len(frames)
    # Where the turn's time before the model went, and the call's first words.
    calls = [f[2] for f in frames if f[1] == "model_call"]
    steps = calls[0]["turn_ms"]
    assert list(steps) == ["intent", "history", "context", "prompt", "scope", "call"]
    assert list(steps.values()) == sorted(steps.values()) and steps["intent"] >= 0
    assert "turn_ms" not in calls[1]  # the steps are the first call's
    assert calls[0]["first_text_ms"] is None and calls[1]["first_text_ms"] >= 0  # a tool call, then words


async def test_resume_yields_exactly_the_missed_events(make_config):
    text = " ".join(f"w{i}" for i in range(60))
    provider = ScriptedProvider([ScriptedReply(text=text, delay=0.01)])
    async with running_app(make_config(), provider=provider, http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/agent/runs", json={"input": "go"}) as r:
                run_id = (await r.json())["id"]
            url = base(app) + f"/api/agent/runs/{run_id}/events"
            async with s.get(url) as r:
                first = await read_sse(r, stop_after=3)  # then the connection drops
            last = first[-1][0]
            async with s.get(url, headers={"Last-Event-ID": str(last)}) as r:
                rest = await read_sse(r)
            async with s.get(url + f"?after_sequence={last}") as r:
                again = await read_sse(r)
            async with s.get(url + "?after_sequence=-1") as r:
                everything = await read_sse(r)
    combined = [f[0] for f in first + rest]
    assert combined == list(range(1, len(combined) + 1))  # none missed, none twice
    assert [f[0] for f in again] == [f[0] for f in rest]
    assert [f[0] for f in everything] == combined
    assert "".join(f[2]["text"] for f in everything if f[1] == "text_delta") == text


async def test_trace_pages_and_stats(make_config):
    replies = [ScriptedReply(tool_calls=[("current_time", {}), ("current_time", {"timezone": "Nowhere/X"})]), "done"]
    async with running_app(make_config(), provider=ScriptedProvider(replies), http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/agent/runs", json={"input": "trace me"}) as r:
                run_id = (await r.json())["id"]
            await wait_status(s, base(app) + f"/api/agent/runs/{run_id}", "completed")
            seen, cursor, pages = [], 0, 0
            while True:
                async with s.get(base(app) + f"/api/agent/runs/{run_id}/trace?limit=2&after_sequence={cursor}") as r:
                    page = await r.json()
                pages += 1
                seen += [e["sequence"] for e in page["events"]]
                if page["next_cursor"] is None:
                    break
                cursor = page["next_cursor"]
            async with s.get(base(app) + f"/api/agent/runs/{run_id}/trace?after_sequence=999") as r:
                beyond = await r.json()
    assert seen == list(range(1, len(seen) + 1)) and pages == (len(seen) + 1) // 2
    stats = page["stats"]
    assert stats["model_calls"] == 2 and stats["tool_calls"] == 2 and stats["tool_failures"] == 1
    assert page["config_snapshot"]["agent"]["max_tool_rounds"] == 5
    assert beyond["events"] == [] and beyond["next_cursor"] is None


async def test_cancel_stops_a_running_run(make_config):
    provider = ScriptedProvider([ScriptedReply(text=" ".join(["word"] * 2000), delay=0.01)])
    async with running_app(make_config(), provider=provider, http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/agent/runs", json={"input": "long"}) as r:
                run_id = (await r.json())["id"]
            run_url = base(app) + f"/api/agent/runs/{run_id}"
            await wait_status(s, run_url, "running")
            async with s.post(run_url + "/cancel") as r:
                assert (await r.json())["cancelled"] is True
            run = await wait_status(s, run_url, "cancelled")
            async with s.post(run_url + "/cancel") as r:
                assert (await r.json())["cancelled"] is False  # already finished
    assert len(run["output"]) < len(" ".join(["word"] * 2000))


async def test_list_runs_filters_and_pages(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            ids = []
            for i in range(5):
                async with s.post(base(app) + "/api/agent/runs", json={"input": f"run {i}"}) as r:
                    ids.append((await r.json())["id"])
            for run_id in ids:
                await wait_status(s, base(app) + f"/api/agent/runs/{run_id}", "completed")
            async with s.get(base(app) + "/api/agent/runs?limit=2") as r:
                first = await r.json()
            async with s.get(base(app) + f"/api/agent/runs?limit=10&before={first['next_before']}") as r:
                rest = await r.json()
            async with s.get(base(app) + "/api/agent/runs?status=failed") as r:
                failed = await r.json()
            async with s.get(base(app) + "/api/agent/runs?status=bogus") as r:
                bad = r.status
            async with s.get(base(app) + "/api/agent/runs/turn_nope") as r:
                missing = r.status
    listed = [r["id"] for r in first["runs"] + rest["runs"]]
    assert listed == list(reversed(ids))
    assert failed["runs"] == [] and bad == 400 and missing == 404


async def test_secrets_are_redacted_in_stored_runs_and_events(make_config, tmp_path):
    async def login(ctx, args):
        return await _ok()

    tool = ToolSpec("login", "log in", {"type": "object"}, login)
    provider = ScriptedProvider(
        [ScriptedReply(tool_calls=[("login", {"api_key": "sk-supersecretvalue123456", "user": "ann"})]), "ok"]
    )
    config = make_config()
    async with running_app(config, provider=provider, http=True, extra_tools=(tool,)) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/agent/runs",
                              json={"input": "use token=hunter2hunter2 please, Bearer abcdefgh12345"}) as r:
                run_id = (await r.json())["id"]
            await wait_status(s, base(app) + f"/api/agent/runs/{run_id}", "completed")
            await app.runs.flush()
    conn = sqlite3.connect(config.data_dir / "homeagent.db")
    rows = conn.execute("SELECT input FROM runs").fetchall() + conn.execute("SELECT payload FROM run_events").fetchall()
    conn.close()
    blob = json.dumps(rows)
    assert "supersecretvalue" not in blob and "hunter2hunter2" not in blob and "abcdefgh12345" not in blob
    assert "[REDACTED]" in blob and "ann" in blob


async def _ok():
    return ToolOutput({"ok": True}, DisplayHint("list", "Sessions", ["a", "b"]))


async def test_display_hints_reach_sse_and_trace(make_config):
    async def sessions(ctx, args):
        return ToolOutput({"count": 2}, DisplayHint("data_series", "Steps", [1, 2, 3]))

    tool = ToolSpec("steps", "steps", {"type": "object"}, sessions)
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("steps", {})]), "shown"])
    async with running_app(make_config(), provider=provider, http=True, extra_tools=(tool,)) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/agent/runs", json={"input": "steps"}) as r:
                run_id = (await r.json())["id"]
            async with s.get(base(app) + f"/api/agent/runs/{run_id}/events") as r:
                frames = await read_sse(r)
    result = next(f[2] for f in frames if f[1] == "tool_result")
    assert result["display"] == {"kind": "data_series", "title": "Steps", "data": [1, 2, 3]}
    assert json.loads(result["content"]) == {"count": 2}


async def test_members_tokens_and_isolation(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        alice = await app.members.add("alice")
        bob = await app.members.add("bob")
        url = base(app)
        async with aiohttp.ClientSession() as s:
            async with s.get(url + "/api/agent/runs") as r:
                assert r.status == 401  # members exist: a token is now required
            h_a, h_b = ({"Authorization": f"Bearer {t}"} for t in (alice, bob))
            async with s.post(url + "/api/agent/runs", json={"input": "alice's secret plan"}, headers=h_a) as r:
                run_id = (await r.json())["id"]
            with anyio.fail_after(20):
                while True:
                    async with s.get(url + f"/api/agent/runs/{run_id}", headers=h_a) as r:
                        run = await r.json()
                    if run["status"] == "completed":
                        break
                    await anyio.sleep(0.02)
            assert run["member"] == "alice"
            async with s.get(url + f"/api/agent/runs/{run_id}", headers=h_b) as r:
                assert r.status == 404
            async with s.get(url + "/api/agent/runs", headers=h_b) as r:
                assert (await r.json())["runs"] == []
            async with s.get(url + "/api/messages", headers=h_b) as r:
                assert (await r.json())["messages"] == []
            async with s.get(url + "/api/messages", headers=h_a) as r:
                msgs = (await r.json())["messages"]
                assert [m["content"] for m in msgs] == ["alice's secret plan", "alice's secret plan"]
            await app.members.revoke("alice")
            async with s.get(url + "/api/messages", headers=h_a) as r:
                body = await r.json()
                assert r.status == 401 and "alice" not in json.dumps(body)


async def test_messages_page_and_forget(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            for i in range(3):
                async with s.post(base(app) + "/api/chat", json={"message": f"m{i}"}) as r:
                    await r.read()
            async with s.get(base(app) + "/api/messages?limit=4") as r:
                page = await r.json()
            async with s.get(base(app) + f"/api/messages?limit=4&before={page['next_before']}") as r:
                older = await r.json()
            victim = page["messages"][0]["id"]
            async with s.delete(base(app) + f"/api/messages/{victim}") as r:
                assert r.status == 200 and (await r.json())["forgotten"]["messages"] == 1
            async with s.delete(base(app) + f"/api/messages/{victim}") as r:
                assert r.status == 404
            async with s.delete(base(app) + "/api/messages/abc") as r:
                assert r.status == 400
        assert await app.conversation.count() == 5
    contents = [m["content"] for m in page["messages"] + older["messages"]]
    assert contents == ["m2", "m2", "m1", "m1", "m0", "m0"]


async def test_rate_limit_gives_429(make_config):
    config = make_config(api={"rate_limit_per_minute": 3, "rate_limit_loopback": True})
    async with running_app(config, provider=EchoProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            statuses = []
            for _ in range(5):
                async with s.get(base(app) + "/v1/models") as r:
                    statuses.append(r.status)
                    if r.status == 429:
                        assert r.headers["Retry-After"] and (await r.json())["error"]["code"] == "rate_limit_exceeded"
            async with s.get(base(app) + "/healthz") as r:
                assert r.status == 200  # health is never limited
    assert statuses[:3] == [200, 200, 200] and statuses[3:] == [429, 429]


async def test_every_route_is_in_the_openapi_document(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s, s.get(base(app) + "/api/openapi.json") as r:
            doc = await r.json()
        web_app_routes = {
            (route.method.lower(), route.resource.canonical)
            for route in create_web_app(app.api_dependencies()).router.routes()
            if route.method not in ("HEAD", "OPTIONS", "*")
        }
    documented = {(method, path) for path, ops in doc["paths"].items() for method in ops}
    assert doc["openapi"].startswith("3.1")
    missing = web_app_routes - documented
    assert not missing, f"routes missing from the OpenAPI document: {sorted(missing)}"
    assert not documented - web_app_routes, "documented routes that do not exist"
