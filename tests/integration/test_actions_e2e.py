"""The actions inside a running App: a scripted model calls them through [ACTION] blocks
and through native tool calls, and the database shows the effects. Permission requests
are answered over a real HTTP route backed by the broker."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import aiohttp
import aiohttp.web
import anyio
import pytest

from homeagent.actions import HouseholdMode, action_definitions, action_specs
from homeagent.actions.schema import MIGRATIONS as ACTION_MIGRATIONS
from homeagent.api.middleware import error_middleware
from homeagent.api.permissions import answer_response
from homeagent.clock import FakeClock
from homeagent.llm.base import ToolCall
from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from homeagent.store import MIGRATIONS, Database
from homeagent.tools.permissions import PermissionBroker, PermissionGate, PermissionPolicy
from homeagent.tools.registry import ToolContext, ToolRegistry

from .helpers import running_app, text_of, turn

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.fixture
async def actions_db(tmp_path: Path) -> AsyncIterator[tuple[Database, FakeClock]]:
    async with Database(tmp_path / "actions.db", (*MIGRATIONS, *ACTION_MIGRATIONS)) as db:
        yield db, FakeClock(NOW)


def specs_for(db: Database, clock: FakeClock):
    return action_specs(db=db, clock=clock, modes=HouseholdMode(db, clock))


async def test_action_blocks_run_and_never_reach_the_user(make_config, actions_db) -> None:
    _, clock = actions_db
    provider = ScriptedProvider([
        ScriptedReply(text=(
            "好的，帮你记下。\n[ACTION]｛“name”：“create_task”，“content”：“提交周报”，“due”：“明天下班前”，｝[/ACTION]\n"
            "[ACTION]{name: 'record_water', amount: '一杯'}[/ACTION]"
        )),
        ScriptedReply(text="记好了：明天18:00前提交周报；喝水250毫升。"),
    ], supports_tools=False)
    async with running_app(make_config(), provider=provider, clock=clock) as app:
        events = await turn(app, "帮我记一个任务，明天下班前提交周报，还有我刚喝了一杯水")
        shown = text_of(events)
        assert "[ACTION" not in shown and "create_task" not in shown and "{" not in shown
        assert shown == "好的，帮你记下。\n\n记好了：明天18:00前提交周报；喝水250毫升。"
        results = [e for e in events if e.type == "tool_result"]
        assert [(r.name, r.ok) for r in results] == [("create_task", True), ("record_water", True)]
        tasks = [tuple(r) for r in await app.db.fetchall("SELECT content, due FROM tasks")]
        assert tasks == [("提交周报", "2026-03-05T18:00:00+08:00")]
        assert [tuple(r) for r in await app.db.fetchall("SELECT amount_ml, day FROM water_logs")] == [(250, "2026-03-04")]
        # The results went back to the model in the block protocol's form.
        fed_back = provider.requests[1].messages[-1].content
        assert fed_back.startswith("[RESULTS]") and "已创建任务 #1：提交周报" in fed_back
        # A model without native tools is offered none natively; the catalog is in its prompt.
        assert provider.requests[0].tools == ()
        assert "record_water" in "\n".join(m.content for m in provider.requests[0].messages if m.role == "system")


async def test_native_tool_calls_run_against_the_same_registry(make_config, actions_db) -> None:
    db, clock = actions_db
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[
            ("create_event", {"title": "dentist", "start": "next Tuesday 10am"}),
            ("add_shopping_item", {"item": "milk", "quantity": "2 bottles"}),
            ("record_transaction", {"amount": "12.5", "currency": "USD", "note": "taxi"}),
        ]),
        ScriptedReply(text="Done: dentist on Tuesday, milk on the list, taxi recorded."),
    ], supports_tools=True)
    async with running_app(make_config(), provider=provider, clock=clock) as app:
        events = await turn(app, "Book the dentist next Tuesday at 10, add milk, and I spent $12.50 on a taxi")
        assert text_of(events) == "Done: dentist on Tuesday, milk on the list, taxi recorded."
        assert all(e.ok for e in events if e.type == "tool_result")
        offered = {t.name for t in provider.requests[0].tools}
        assert {d.name for d in action_definitions()} | {"current_time"} <= offered  # the full list
        assert [tuple(r) for r in await app.db.fetchall("SELECT title, start FROM events")] == [
            ("dentist", "2026-03-10T10:00:00+08:00")]
        assert [tuple(r) for r in await app.db.fetchall("SELECT name, quantity FROM shopping_items")] == [("milk", "2 bottles")]
        assert [tuple(r) for r in await app.db.fetchall("SELECT amount_minor, currency, category FROM transactions")] == [
            (1250, "USD", "transport")]
        tool_messages = [m for m in provider.requests[1].messages if m.role == "tool"]
        assert [m.name for m in tool_messages] == ["create_event", "add_shopping_item", "record_transaction"]
        assert tool_messages[0].content == "Created event #1: dentist, 2026-03-10 10:00."


async def test_unrepairable_block_is_skipped_and_the_words_kept(make_config, actions_db) -> None:
    db, clock = actions_db
    provider = ScriptedProvider(["我没太听懂，能再说一次吗？[ACTION]这不是JSON[/ACTION]"], supports_tools=False)
    async with running_app(make_config(), provider=provider, clock=clock) as app:
        events = await turn(app, "嗯嗯")
        assert text_of(events) == "我没太听懂，能再说一次吗？"
        assert not [e for e in events if e.type == "tool_call"]
        assert len(provider.requests) == 1


async def test_a_bad_date_goes_back_to_the_model_with_the_format(make_config, actions_db) -> None:
    db, clock = actions_db
    provider = ScriptedProvider([
        ScriptedReply(text='[ACTION]{"name": "create_event", "title": "开会", "start": "下下下周八"}[/ACTION]'),
        ScriptedReply(text='[ACTION]{"name": "create_event", "title": "开会", "start": "周五下午3点"}[/ACTION]'),
        ScriptedReply(text="已安排周五下午3点开会。"),
    ], supports_tools=False)
    async with running_app(make_config(), provider=provider, clock=clock) as app:
        events = await turn(app, "帮我安排周五下午3点开会")
        first = [e for e in events if e.type == "tool_result"][0]
        assert not first.ok and "start:" in first.content and "YYYY-MM-DD" in first.content
        assert "YYYY-MM-DD" in provider.requests[1].messages[-1].content
        assert [tuple(r) for r in await app.db.fetchall("SELECT title, start FROM events")] == [
            ("开会", "2026-03-06T15:00:00+08:00")]
        assert text_of(events) == "已安排周五下午3点开会。"


# -- permissions over HTTP ---------------------------------------------------------------


async def _permission_server(broker: PermissionBroker):
    async def answer(request: aiohttp.web.Request) -> aiohttp.web.Response:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            body = None
        decision = body.get("decision") if isinstance(body, dict) else None
        return answer_response(broker.answer(request.match_info["run_id"], request.match_info["request_id"], decision))

    app = aiohttp.web.Application(middlewares=[error_middleware])
    app.router.add_post("/api/agent/runs/{run_id}/permissions/{request_id}", answer)
    runner = aiohttp.web.AppRunner(app)
    await runner.setup()
    site = aiohttp.web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]


@pytest.mark.parametrize(("decision", "allowed", "left"), [("allow_once", True, 0), ("deny", False, 1)])
async def test_confirm_and_deny_over_http(actions_db, decision: str, allowed: bool, left: int) -> None:
    db, clock = actions_db
    registry = ToolRegistry()
    for spec in specs_for(db, clock):
        registry.register(spec)
    ctx = ToolContext("run-7", "http", "phone", now=clock.now)
    await registry.execute(ToolCall("c0", "create_task", '{"content": "旧任务"}'), ctx)
    broker, gate = PermissionBroker(), PermissionGate(PermissionPolicy(), timeout=10)
    runner, base = await _permission_server(broker)
    sse_events: list[dict] = []
    asked = anyio.Event()

    def show(request) -> None:  # what the run's SSE stream would carry
        sse_events.append(request.as_dict())
        asked.set()

    verdicts = []
    call = ToolCall("c1", "delete_task", '{"content": "旧任务"}')
    try:
        async with anyio.create_task_group() as tg, aiohttp.ClientSession() as http:

            async def the_turn() -> None:
                verdict = await gate.check(registry.get("delete_task"), call, ctx,
                                           confirmer=broker.confirmer_for("run-7", show))
                verdicts.append(verdict)
                if verdict.allowed:
                    await registry.execute(call, ctx)

            tg.start_soon(the_turn)
            with anyio.fail_after(10):
                await asked.wait()
            event = sse_events[0]
            assert event["tool"] == "delete_task" and event["permission"] == "delete"
            url = f"{base}/api/agent/runs/run-7/permissions/{event['request_id']}"
            async with http.post(url, json={"decision": "maybe"}) as resp:
                assert resp.status == 400 and "decision" in (await resp.json())["error"]["message"]
            async with http.post(f"{base}/api/agent/runs/run-8/permissions/{event['request_id']}",
                                 json={"decision": decision}) as resp:
                assert resp.status == 404  # another run's request id
            async with http.post(url, json={"decision": decision}) as resp:
                assert resp.status == 200 and (await resp.json())["decision"] == decision
            async with http.post(url, json={"decision": decision}) as resp:
                assert resp.status == 404  # answered already
    finally:
        await runner.cleanup()
    assert verdicts[0].allowed is allowed
    assert len(await db.fetchall("SELECT id FROM tasks")) == left
    if not allowed:
        assert "declined" in verdicts[0].message


async def test_unanswered_confirmation_times_out_as_deny(actions_db) -> None:
    db, clock = actions_db
    registry = ToolRegistry()
    for spec in specs_for(db, clock):
        registry.register(spec)
    broker, gate = PermissionBroker(), PermissionGate(PermissionPolicy(), timeout=0.2)
    runner, base = await _permission_server(broker)
    shown: list[dict] = []
    try:
        ctx = ToolContext("run-9", "http", "phone", now=clock.now)
        verdict = await gate.check(registry.get("delete_task"), ToolCall("c", "delete_task", '{"id": 1}'), ctx,
                                   confirmer=broker.confirmer_for("run-9", lambda r: shown.append(r.as_dict())))
        assert not verdict.allowed and verdict.decision == "timeout" and "0.2 s" in verdict.message
        async with aiohttp.ClientSession() as http, http.post(
            f"{base}/api/agent/runs/run-9/permissions/{shown[0]['request_id']}", json={"decision": "allow_once"}
        ) as resp:
            assert resp.status == 404  # too late: the request expired with the timeout
    finally:
        await runner.cleanup()
