"""The intent layer in the real App: real SQLite, the real registry and core; the scripted
provider stands in for the model so a test sees whether the model was called at all."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.app import App
from homeagent.clock import FakeClock
from homeagent.llm.testing import ScriptedProvider
from homeagent.tools.registry import Permission
from tests.integration.helpers import running_app, text_of, turn

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday


def _app(make_config, provider: ScriptedProvider, **actions):
    return running_app(make_config(actions={"intent": True, **actions}), provider=provider, clock=FakeClock(NOW))


async def _rows(app: App, sql: str) -> list[dict]:
    return [dict(r) for r in await app.db.fetchall(sql)]


async def _run_trace(app: App, events) -> dict:
    run_id = events[0].turn_id
    stored = await app.runs.events(run_id)
    return next(e.payload for e in stored if e.type == "intent")


async def test_a_command_runs_its_action_without_a_model_call(make_config) -> None:
    provider = ScriptedProvider(["(model)"])
    async with _app(make_config, provider) as app:
        events = await turn(app, "提醒我明天下午3点交电费")
        tasks = await _rows(app, "SELECT content, due FROM tasks")
        trace = await _run_trace(app, events)
    assert provider.requests == []  # no model call
    assert tasks == [{"content": "交电费", "due": "2026-03-05T15:00:00+08:00"}]
    assert "交电费" in text_of(events) and "已创建任务" in text_of(events)  # the action's own words
    assert trace["path"] == "intent" and trace["label"] == "create_task"


async def test_the_command_words_never_become_the_title(make_config) -> None:
    async with _app(make_config, ScriptedProvider([])) as app:
        await turn(app, "帮我记一个任务：明天下午3点交电费")
        await turn(app, "Create a task: pay the electricity bill")
        tasks = await _rows(app, "SELECT content, due FROM tasks ORDER BY id")
    assert tasks == [{"content": "交电费", "due": "2026-03-05T15:00:00+08:00"},
                     {"content": "pay the electricity bill", "due": None}]


async def test_several_items_become_several_rows_and_the_answer_speaks_english(make_config) -> None:
    async with _app(make_config, ScriptedProvider([])) as app:
        events = await turn(app, "add milk and eggs to the shopping list")
        items = [r["name"] for r in await _rows(app, "SELECT name FROM shopping_items ORDER BY id")]
        listing = text_of(await turn(app, "What's on my shopping list?"))
    assert sorted(items) == ["eggs", "milk"]  # the two calls of one round run concurrently
    assert "milk" in text_of(events) and not any("\u4e00" <= ch <= "\u9fff" for ch in text_of(events))
    assert "milk" in listing and "eggs" in listing


async def _count_rows(app: App) -> int:
    tables = [r["name"] for r in await app.db.fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " AND name NOT IN ('messages', 'runs', 'run_events', 'schema_version', 'tool_call_log')"
        " AND name NOT LIKE 'memory%' AND name NOT LIKE 'graph%' AND name NOT LIKE 'vector%'"
        " AND name NOT LIKE 'context%' AND name NOT LIKE 'document%' AND name NOT LIKE 'knowledge%'"
        " AND name NOT LIKE '%fts%' AND name NOT LIKE 'llm_%' AND name NOT LIKE 'member%'")]
    total = 0
    for table in tables:
        total += (await app.db.fetchall(f"SELECT COUNT(*) AS n FROM {table}"))[0]["n"]
    return total


def _questions(text: str) -> list[str]:
    """Question forms of a command: did it happen, is it there."""
    core = text.rstrip("。.!！?？ ")
    if any("\u4e00" <= ch <= "\u9fff" for ch in core):
        return [f"{core}了吗？", f"我是不是{core}？", f"我不记得是不是{core}了"]
    low = f"{core[0].lower()}{core[1:]}"
    return [f"Did I {low}?", f"Is it true that {low}?", f"I can't remember if I {low}"]  # (the last: not knowing, said)


async def test_questions_never_write_sweep_over_every_write_action(make_config) -> None:
    provider = ScriptedProvider(["(model)"] * 2000)
    async with _app(make_config, provider) as app:
        writes = [spec for spec in app.tools if spec.category and spec.examples and spec.permission is not Permission.READ]
        assert len(writes) > 40
        before = await _count_rows(app)
        asked = called = 0
        for spec in writes:
            for line in spec.examples:
                for question in _questions(line.split("→")[0].strip()):
                    events = await turn(app, question, channel=f"q{asked}")
                    asked += 1
                    for event in events:
                        if event.type == "tool_call":
                            tool = app.tools.get(event.name)
                            assert tool is not None and tool.permission is Permission.READ, (question, event.name)
                            called += 1
        after = await _count_rows(app)
    assert asked > 200
    assert after == before  # zero writes
    # What went to the model was offered reads only (or no action at all).
    for request in provider.requests:
        for tool in request.tools:
            spec = app.tools.get(tool.name)
            assert spec is None or not spec.category or spec.permission is Permission.READ, tool.name


async def test_small_talk_goes_to_the_model_with_no_action_offered(make_config) -> None:
    provider = ScriptedProvider(["Good morning to you too."])
    async with _app(make_config, provider) as app:
        events = await turn(app, "Good morning.")
        trace = await _run_trace(app, events)
    assert text_of(events) == "Good morning to you too."
    assert trace["path"] == "model"
    offered = {t.name for t in provider.requests[0].tools}
    assert not offered & {spec.name for spec in app.tools if spec.category}


async def test_a_follow_up_changes_the_record_the_last_turn_touched(make_config) -> None:
    async with _app(make_config, ScriptedProvider([])) as app:
        await turn(app, "提醒我明天下午3点交电费")
        await turn(app, "提醒我后天去银行")
        await turn(app, "把它改到4点")
        tasks = await _rows(app, "SELECT content, due FROM tasks ORDER BY id")
    assert tasks == [{"content": "交电费", "due": "2026-03-05T15:00:00+08:00"},
                     {"content": "去银行", "due": "2026-03-06T16:00:00+08:00"}]


async def test_a_missing_slot_is_asked_for_and_the_next_message_fills_it(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        asked = text_of(await turn(app, "提醒我"))
        done = text_of(await turn(app, "明天下午3点交电费"))
        tasks = await _rows(app, "SELECT content, due FROM tasks")
    assert "？" in asked and "任务" in asked
    assert tasks == [{"content": "交电费", "due": "2026-03-05T15:00:00+08:00"}]
    assert "交电费" in done and provider.requests == []


async def test_who_it_is_and_what_it_can_do_in_the_users_language(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        who = text_of(await turn(app, "你好，你是谁？"))
        help_zh = text_of(await turn(app, "你能做什么"))
        help_en = text_of(await turn(app, "What can you do?"))
    assert "家庭管家" in who
    assert "任务管理" in help_zh and "财务管理" in help_zh
    assert "Tasks:" in help_en and "Finance:" in help_en and "“" not in help_en
    assert provider.requests == []


async def test_an_unsure_utterance_goes_to_the_model_offered_the_ranked_candidates(make_config) -> None:
    provider = ScriptedProvider(["(model)"])
    async with _app(make_config, provider) as app:
        events = await turn(app, "嗯那个东西你帮我弄一下")
        trace = await _run_trace(app, events)
    assert trace["path"] == "model" and text_of(events) == "(model)"
    offered = [t.name for t in provider.requests[0].tools if (s := app.tools.get(t.name)) is not None and s.category]
    assert 0 < len(offered) <= 8
    assert offered[0] == trace["candidates"][0][0] or trace["candidates"][0][0] == "none"


async def test_off_in_config_the_model_answers_as_before(make_config) -> None:
    provider = ScriptedProvider(["(model)"])
    async with _app(make_config, provider, intent=False) as app:
        events = await turn(app, "提醒我明天下午3点交电费")
        assert app.intent is None
    assert text_of(events) == "(model)" and len(provider.requests) == 1


async def test_a_correction_is_learned_and_the_heartbeat_retrains(make_config) -> None:
    async with _app(make_config, ScriptedProvider(["(model)"] * 5)) as app:
        assert app.intent is not None
        first = app.intent.predict("买牛奶").label
        await turn(app, "买牛奶")
        await turn(app, "不是这个，我是说把牛奶加到购物清单")
        learned = await _rows(app, "SELECT text, action FROM intent_examples")
        trained_before = app.intent.trained_at
        await app.heartbeat()
        after = app.intent.predict("买牛奶").label
        assert app.intent.trained_at > trained_before
    assert learned == [{"text": "买牛奶", "action": "add_shopping_item"}]
    assert after == "add_shopping_item", first


async def test_the_trace_and_memory_hold_an_intent_answer_like_any_turn(make_config) -> None:
    async with _app(make_config, ScriptedProvider([])) as app:
        events = await turn(app, "午饭花了35块")
        stored = await app.conversation.recent(2)
        trace = await _run_trace(app, events)
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[0].content == "午饭花了35块" and "35" in stored[1].content
    assert trace["calls"][0]["name"] == "record_transaction"
    assert json.loads(trace["calls"][0]["arguments"])["amount"] in (35, "35", "35块")


async def test_a_layer_that_cannot_train_sends_every_message_to_the_model(tmp_path) -> None:
    from homeagent.intent import IntentLayer
    from homeagent.schema import all_migrations
    from homeagent.store import Database
    from homeagent.tools.registry import ToolRegistry
    from tests.integration.helpers import wipe_tool

    async with Database(tmp_path / "closed.db", all_migrations()) as db:
        pass  # closed: reading the learned examples fails
    registry = ToolRegistry()
    registry.register(wipe_tool([]))
    layer = IntentLayer(registry, clock=FakeClock(NOW), db=db)
    await layer.train()  # logged, not raised
    route = await layer.route("提醒我明天下午3点交电费")
    assert route.path == "model" and route.reason == "not trained" and not route.calls
