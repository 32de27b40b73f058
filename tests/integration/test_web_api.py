"""The dashboard's HTTP side: its page, the records API, edits through the actions and
the permission policy, confirmations from any channel, memory views, members sealed."""

from __future__ import annotations

import aiohttp
import anyio
import pytest
from openai import AsyncOpenAI

from homeagent.llm.testing import FunctionProvider, ScriptedProvider, ScriptedReply
from homeagent.memory.graph import FactInput
from homeagent.tools.permissions import PermissionRequest

from .helpers import running_app, wipe_tool

pytestmark = pytest.mark.anyio


def base(app) -> str:
    return f"http://127.0.0.1:{app.health.port}"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_page_loads_without_a_token_but_no_data_does(make_config):
    async with running_app(make_config(api={"token": "house-secret"}), provider=ScriptedProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.get(base(app) + "/") as r:
                assert r.status == 200 and r.content_type == "text/html"
                assert '<script type="module" src="/web/app.js"' in await r.text()
            async with s.get(base(app) + "/web/app.js") as r:
                assert r.status == 200 and r.content_type == "text/javascript"
            for path in ("/api/records/tasks", "/api/me", "/api/memory/graph", "/api/status", "/api/permissions"):
                async with s.get(base(app) + path) as r:
                    assert r.status == 401, path
            async with s.get(base(app) + "/web/../app.py") as r:
                assert r.status in (401, 404)
            async with s.get(base(app) + "/api/me", headers=auth("house-secret")) as r:
                assert await r.json() == {"member": "", "admin": True}


async def test_records_read_through_the_list_actions_with_filters_and_paging(make_config):
    async with running_app(make_config(), provider=ScriptedProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            for text in ("buy milk", "call the plumber", "renew passport"):
                async with s.post(base(app) + "/api/actions/create_task", json={"arguments": {"content": text}}) as r:
                    assert r.status == 200 and (await r.json())["ok"], await r.text()
            async with s.get(base(app) + "/api/records/tasks?limit=2") as r:
                page = await r.json()
            assert [t["content"] for t in page["items"]] == ["buy milk", "call the plumber"]
            assert page["next_offset"] == 2 and page["tool"] == "list_tasks"
            async with s.get(base(app) + "/api/records/tasks?limit=2&offset=2") as r:
                assert [t["content"] for t in (await r.json())["items"]] == ["renew passport"]
            async with s.get(base(app) + "/api/records/tasks?query=plumber") as r:
                assert [t["content"] for t in (await r.json())["items"]] == ["call the plumber"]
            async with s.get(base(app) + "/api/records/tasks?colour=red") as r:
                body = await r.json()
                assert r.status == 400 and "colour: not a filter of tasks" in body["error"]["message"]
            async with s.get(base(app) + "/api/records/tasks?limit=lots") as r:
                assert r.status == 400 and (await r.json())["error"]["param"] == "limit"
            async with s.get(base(app) + "/api/records/spaceships") as r:
                assert r.status == 404
            # Water comes back as a series for a chart, with its rows.
            async with s.post(base(app) + "/api/actions/record_water", json={"arguments": {"amount": "300ml"}}) as r:
                assert (await r.json())["ok"], await r.text()
            async with s.get(base(app) + "/api/records/water") as r:
                water = await r.json()
            assert water["display"]["kind"] == "data_series"
            assert water["display"]["data"]["points"][0]["y"] == 300.0 and water["items"][0]["ml"] == 300


async def test_an_edit_passes_the_policy_and_lands_in_the_audit_log(make_config):
    async with running_app(make_config(), provider=ScriptedProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/actions/create_task", json={"arguments": {"content": "water plants"}}) as r:
                task_id = (await r.json())["content"].split("#")[1].split(":")[0]
            url = base(app) + "/api/actions/delete_task"
            async with s.post(url, json={"arguments": {"id": int(task_id)}}) as r:
                assert r.status == 409 and (await r.json())["error"]["code"] == "confirmation_required"
            async with s.get(base(app) + "/api/records/tasks") as r:
                assert len((await r.json())["items"]) == 1  # nothing was deleted without the answer
            async with s.post(url, json={"arguments": {"id": int(task_id)}, "confirmed": True}) as r:
                assert r.status == 200 and (await r.json())["ok"]
            async with s.get(base(app) + "/api/records/tasks") as r:
                assert (await r.json())["items"] == []
            async with s.post(url, json={"arguments": {"id": "seven"}}) as r:
                assert r.status == 400
        rows = await app.db.fetchall("SELECT name, decision, channel FROM tool_call_log ORDER BY id")
        assert [tuple(r) for r in rows] == [("create_task", "allow", "browser"), ("delete_task", "allow_once", "browser")]


async def test_a_denied_action_is_refused(make_config):
    config = make_config(permissions={"tools": ["delete_task=deny"]})
    async with running_app(config, provider=ScriptedProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/actions/delete_task", json={"arguments": {"id": 1}, "confirmed": True}) as r:
                assert r.status == 403


def wiping(request):
    """Asked "wipe X": call wipe_list; given its result: say what came back."""
    last = request.messages[-1]
    if last.role == "tool":
        return last.content
    return ScriptedReply(tool_calls=[("wipe_list", {"what": last.content.split()[-1]})])


async def test_a_delete_asked_over_openai_is_confirmed_on_the_dashboard(make_config):
    calls: list[str] = []
    provider = FunctionProvider(wiping)
    async with running_app(make_config(), provider=provider, http=True, extra_tools=(wipe_tool(calls),)) as app:
        ask = [{"role": "user", "content": "wipe garage"}]
        async with AsyncOpenAI(base_url=base(app) + "/v1", api_key="none") as client, aiohttp.ClientSession() as s:
            # No page open: the OpenAI client cannot confirm, so the call is refused at once.
            reply = await client.chat.completions.create(model="homeagent", messages=ask)
            assert calls == [] and "cannot ask for it" in reply.choices[0].message.content
            async with s.get(base(app) + "/api/permissions") as r:  # a page opens
                assert (await r.json())["requests"] == []
            answered: list[dict] = []

            async def confirm_on_page() -> None:
                with anyio.fail_after(20):
                    while True:
                        async with s.get(base(app) + "/api/permissions") as r:
                            pending = (await r.json())["requests"]
                        if pending:
                            break
                        await anyio.sleep(0.05)
                assert pending[0]["tool"] == "wipe_list" and pending[0]["arguments"] == {"what": "shopping"}
                async with s.post(base(app) + pending[0]["answer_url"], json={"decision": "allow_once"}) as r:
                    answered.append(await r.json())

            async with anyio.create_task_group() as tg:
                tg.start_soon(confirm_on_page)
                reply = await client.chat.completions.create(
                    model="homeagent", messages=[{"role": "user", "content": "wipe shopping"}])
        assert calls == ["shopping"] and answered[0]["decision"] == "allow_once"
        # The asker hears where the confirmation waits, then the answer.
        content = reply.choices[0].message.content
        assert "waits for confirmation on the dashboard" in content and content.endswith("wiped shopping")


async def test_members_see_only_theirs_and_the_household(make_config):
    async with running_app(make_config(), provider=ScriptedProvider(), http=True) as app:
        alice, bob = await app.members.add("alice"), await app.members.add("bob")
        graph = app.memory.graph
        await graph.commit(FactInput("alice", "likes", "jasmine tea", member="alice"))
        await graph.commit(FactInput("house", "located_in", "Hangzhou"))
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/actions/record_mood", headers=auth(alice),
                              json={"arguments": {"mood": "anxious", "score": 2}}) as r:
                assert (await r.json())["ok"], await r.text()
            async with s.get(base(app) + "/api/records/mood", headers=auth(alice)) as r:
                assert [m["mood"] for m in (await r.json())["items"]] == ["anxious"]
            async with s.get(base(app) + "/api/records/mood", headers=auth(bob)) as r:
                assert (await r.json())["items"] == []
            async with s.get(base(app) + "/api/memory/graph", headers=auth(bob)) as r:
                facts = (await r.json())["facts"]
            assert [f["object"] for f in facts] == ["Hangzhou"]
            async with s.get(base(app) + "/api/memory/graph?q=tea", headers=auth(alice)) as r:
                tea = (await r.json())["facts"]
            assert [f["object"] for f in tea] == ["jasmine tea"] and tea[0]["current"] is True
            async with s.delete(base(app) + f"/api/memory/facts/{tea[0]['id']}", headers=auth(bob)) as r:
                assert r.status == 404  # not bob's to forget
            async with s.delete(base(app) + f"/api/memory/facts/{tea[0]['id']}", headers=auth(alice)) as r:
                assert r.status == 200
            async with s.get(base(app) + "/api/memory/graph?q=tea", headers=auth(alice)) as r:
                assert (await r.json())["facts"] == []
            async with s.get(base(app) + "/api/settings", headers=auth(bob)) as r:
                assert r.status == 403
            async with s.get(base(app) + "/api/me", headers=auth(bob)) as r:
                assert await r.json() == {"member": "bob", "admin": False}


async def test_status_and_settings_views(make_config):
    config = make_config(api={"token": "house-secret"})
    async with running_app(config, provider=ScriptedProvider(), http=True) as app:
        await app.heartbeat()
        async with aiohttp.ClientSession(headers=auth("house-secret")) as s:
            async with s.get(base(app) + "/api/status") as r:
                status = await r.json()
            assert status["model"] == "scripted" and len(status["heartbeats"]) == 1
            assert "facts_new" in status["heartbeats"][0]
            async with s.get(base(app) + "/api/settings") as r:
                settings = await r.json()
            assert r.status == 200 and "house-secret" not in str(settings)
            assert settings["config"]["api"]["token"] != "house-secret"
            for path in ("/api/memory/documents", "/api/memory/documents?q=tea", "/api/memory/context"):
                async with s.get(base(app) + path) as r:
                    assert r.status == 200, path


async def test_a_members_pending_confirmation_is_theirs_to_see_and_answer(make_config):
    async with running_app(make_config(), provider=ScriptedProvider(), http=True) as app:
        alice, bob = await app.members.add("alice"), await app.members.add("bob")
        ask = PermissionRequest("perm_1", "run_1", "delete_task", "delete", {"id": 3}, "openai", member="alice")
        answers: list[str] = []
        async with aiohttp.ClientSession() as s, anyio.create_task_group() as tg:
            tg.start_soon(lambda: _collect(app.broker.ask(ask), answers))
            await anyio.sleep(0.05)
            async with s.get(base(app) + "/api/permissions", headers=auth(bob)) as r:
                assert (await r.json())["requests"] == []
            async with s.post(base(app) + "/api/permissions/perm_1", headers=auth(bob), json={"decision": "allow_once"}) as r:
                assert r.status == 404
            async with s.get(base(app) + "/api/permissions", headers=auth(alice)) as r:
                assert [q["tool"] for q in (await r.json())["requests"]] == ["delete_task"]
            async with s.post(base(app) + "/api/permissions/perm_1", headers=auth(alice), json={"decision": "maybe"}) as r:
                assert r.status == 400
            async with s.post(base(app) + "/api/permissions/perm_1", headers=auth(alice), json={"decision": "deny"}) as r:
                assert r.status == 200
        assert answers == ["deny"]


async def _collect(awaitable, into: list) -> None:
    into.append(await awaitable)


async def test_health_readings_out_of_range_come_with_a_risk_alert(make_config):
    async with running_app(make_config(), provider=ScriptedProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            async def record(metric: str, value: str) -> dict:
                async with s.post(base(app) + "/api/actions/record_health",
                                  json={"arguments": {"metric": metric, "value": value}}) as r:
                    return await r.json()

            high = await record("血压", "150/95")
            assert high["display"]["kind"] == "risk_alert" and "140/90" in high["display"]["data"]["message"]
            assert "请咨询医生" in high["content"]  # the model reads it too
            assert (await record("blood pressure", "118/76"))["display"]["kind"] == "text"
            assert (await record("heart rate", "130"))["display"]["kind"] == "risk_alert"
            assert (await record("体温", "36.8"))["display"]["kind"] == "text"
            assert (await record("steps", "12000"))["display"]["kind"] == "text"


async def test_status_shows_the_provider_chain_and_a_cooldown(make_config):
    llm = {
        "providers": {
            "cloud": {"type": "openai_compatible", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                      "api_key": "sk-status-secret-0123456789", "location": "cloud", "max_retries": 1,
                      "read_timeout": "2s"},
            "home": {"type": "echo"},
        },
        "chain": ["cloud", "home"],
    }
    async with running_app(make_config(llm=llm), http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/chat", json={"message": "hello"}) as r:
                await r.read()  # the cloud is unreachable: the turn is served by the next in the chain
            async with s.get(base(app) + "/api/status") as r:
                status = await r.json()
        routes = {p["name"]: p for p in status["provider"]["providers"]}
        assert status["provider"]["chain"] == ["cloud", "home"] and status["provider"]["active"] == "home"
        assert routes["cloud"]["failures"] >= 1 and routes["cloud"]["cooldown_s"] > 0
        assert "sk-status-secret" not in str(status)
