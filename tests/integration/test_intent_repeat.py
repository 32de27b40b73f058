"""Recurrences, undo and retarget through the intent layer, in the real App: real SQLite,
the real registry, core and scheduler, the injected FakeClock (time is moved, never slept);
the scripted provider stands in for the model only where a turn reaches it."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.app import App
from homeagent.chat import ToolCall
from homeagent.clock import FakeClock
from homeagent.config import load_config
from homeagent.llm.testing import ScriptedProvider
from homeagent.tools.registry import ToolContext
from tests.conftest import write_config
from tests.integration.helpers import running_app, text_of, turn
from tests.integration.test_intent_cli import run_cli

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday


def _app(make_config, provider: ScriptedProvider, clock: FakeClock | None = None, **sections):
    return running_app(make_config(actions={"intent": True}, **sections), provider=provider,
                       clock=clock or FakeClock(NOW))


async def _rows(app: App, sql: str) -> list[dict]:
    return [dict(r) for r in await app.db.fetchall(sql)]


async def act(app: App, name: str, **args) -> str:
    result = await app.tools.execute(ToolCall("c", name, json.dumps(args, ensure_ascii=False)),
                                     ToolContext(turn_id="t", channel="test"))
    assert result.ok, result.content
    return result.content


async def _trace(app: App, events) -> dict:
    stored = await app.runs.events(events[0].turn_id)
    return next(e.payload for e in stored if e.type == "intent")


async def test_every_weekday_at_seven_is_one_task_the_scheduler_moves_to_the_next_weekday(make_config) -> None:
    clock = FakeClock(NOW)
    provider = ScriptedProvider([])
    async with _app(make_config, provider, clock) as app:
        made = text_of(await turn(app, "每个工作日早上七点提醒我吃药"))
        tasks = await _rows(app, "SELECT content, due, repeat, status FROM tasks")
        listing = text_of(await turn(app, "我还有哪些任务"))
        clock.advance(hours=21)  # Thursday 07:00
        thursday = [(r.kind, r.title, r.about) for r in await app.scheduler.check()]
        after_thursday = (await _rows(app, "SELECT due FROM tasks"))[0]["due"]
        clock.advance(days=1)  # Friday 07:00
        friday = [(r.kind, r.title) for r in await app.scheduler.check()]
        after_friday = (await _rows(app, "SELECT due FROM tasks"))[0]["due"]
        clock.advance(days=2, hours=23)  # Monday 06:00: taken early, so Monday's reminder is not owed
        done = await act(app, "complete_task", content="吃药")
        after_done = await _rows(app, "SELECT due, status FROM tasks")
        clock.advance(hours=2)  # Monday 08:00
        monday = await app.scheduler.check()
    assert provider.requests == []
    assert tasks == [{"content": "吃药", "due": "2026-03-05T07:00:00+08:00", "repeat": "weekdays@07:00",
                      "status": "open"}]
    assert "每个工作日 07:00" in made
    assert "吃药" in listing and "重复：每个工作日 07:00" in listing
    assert thursday == [("task", "吃药", "2026-03-05T07:00:00+08:00")]
    assert after_thursday == "2026-03-06T07:00:00+08:00"
    assert friday == [("task", "吃药")]
    assert after_friday == "2026-03-09T07:00:00+08:00"  # the weekend skipped
    assert after_done == [{"due": "2026-03-10T07:00:00+08:00", "status": "open"}] and "下次 2026-03-10 07:00" in done
    assert monday == []


async def test_english_recurrences_and_a_habits_frequency(make_config) -> None:
    async with _app(make_config, ScriptedProvider([])) as app:
        await turn(app, "Remind me every Monday at 8 to take out the trash")
        await turn(app, "remind me every other day to water the plants")
        tasks = await _rows(app, "SELECT content, due, repeat FROM tasks ORDER BY id")
        await turn(app, "我想养成每周游泳的习惯")
        habits = await _rows(app, "SELECT name, frequency FROM habits")
    assert tasks == [
        {"content": "take out the trash", "due": "2026-03-09T08:00:00+08:00", "repeat": "weekly:1@08:00"},
        {"content": "water the plants", "due": "2026-03-05", "repeat": "days:2"},
    ]
    assert habits == [{"name": "游泳", "frequency": "weekly"}]


async def test_a_repeating_event_gets_its_next_occurrence_once_this_one_is_due(make_config) -> None:
    clock = FakeClock(NOW)
    async with _app(make_config, ScriptedProvider([]), clock) as app:
        made = await act(app, "create_event", title="周会", start="下周一早上9点", repeat="每周一", remind_minutes=10)
        clock.advance(days=4, hours=22, minutes=50)  # Monday 08:50
        reminded = [(r.kind, r.title) for r in await app.scheduler.check()]
        events_before = await _rows(app, "SELECT start, repeat FROM events ORDER BY id")
        clock.advance(minutes=10)  # 09:00: it starts; the series moves on
        await app.scheduler.check()
        events = await _rows(app, "SELECT title, start, repeat FROM events ORDER BY id")
        listing = text_of(await turn(app, "下周有哪些日程"))
    assert "每周一" in made
    assert reminded == [("event", "周会")]
    assert events_before == [{"start": "2026-03-09T09:00:00+08:00", "repeat": "weekly:1"}]
    assert events == [{"title": "周会", "start": "2026-03-09T09:00:00+08:00", "repeat": ""},
                      {"title": "周会", "start": "2026-03-16T09:00:00+08:00", "repeat": "weekly:1"}]
    assert "重复：每周一" in listing


async def test_undo_reopens_a_completed_task_and_the_lesson_is_learned_at_the_heartbeat(make_config) -> None:
    provider = ScriptedProvider(["(model)"] * 3)
    config_path = None
    async with _app(make_config, provider) as app:
        await act(app, "create_task", content="交电费")
        done = text_of(await turn(app, "把交电费这个任务标记完成"))
        closed = await _rows(app, "SELECT status FROM tasks")
        undone = await turn(app, "撤销")
        reopened = await _rows(app, "SELECT status FROM tasks")
        learned = await _rows(app, "SELECT text, action, arguments FROM intent_examples")
        before = app.intent.trained_at
        await app.heartbeat()
        again = await turn(app, "把交电费这个任务标记完成", channel="kitchen")
        trace = await _trace(app, again)
        config_path = app.config.data_dir
    assert "已完成任务" in done and closed == [{"status": "done"}]
    assert reopened == [{"status": "open"}]
    assert "已撤销上一步" in text_of(undone) and "交电费" in text_of(undone)
    assert learned == [{"text": "把交电费这个任务标记完成", "action": "none",
                        "arguments": json.dumps({"undid": "complete_task"})}]
    assert app.intent.trained_at > before
    # The same words now go to the model, without the action that was undone.
    assert trace["path"] == "model" and trace["reason"] == "learned: undone before"
    assert trace["learned"]["text"] == "把交电费这个任务标记完成"
    assert len(provider.requests) == 1
    assert "complete_task" not in [t.name for t in provider.requests[0].tools]
    assert config_path is not None


async def test_explain_shows_the_learned_example_that_routed_an_utterance(tmp_path) -> None:
    path = write_config(tmp_path, actions={"intent": True})
    async with running_app(load_config(path, env={}), provider=ScriptedProvider([]), clock=FakeClock(NOW)) as app:
        await turn(app, "买牛奶")
        await turn(app, "不是这个，我是说把牛奶加到购物清单")
    proc = run_cli("explain", "--json", "--config", str(path), "买牛奶")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["action"] == "add_shopping_item"
    assert out["learned"] == {"text": "买牛奶", "action": "add_shopping_item", "example": "learned:1"}


async def test_undo_that_deletes_the_record_just_made_and_nothing_to_undo_says_so(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider, permissions={"classes": {"delete": "allow"}}) as app:
        nothing = text_of(await turn(app, "undo", channel="hall"))
        await turn(app, "Remind me tomorrow at 3pm to pay the electricity bill")
        made = await _rows(app, "SELECT content FROM tasks")
        undone = text_of(await turn(app, "undo that"))
        left = await _rows(app, "SELECT content FROM tasks")
        twice = text_of(await turn(app, "undo that"))
    assert provider.requests == []
    assert nothing == "There is nothing to undo."
    assert made == [{"content": "pay the electricity bill"}] and left == []
    assert undone.startswith("Undone: ") and "Deleted task" in undone
    assert twice == "There is nothing to undo."


async def test_not_this_one_redoes_the_action_on_the_record_named_and_puts_the_wrong_one_back(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await act(app, "create_task", content="交电费")
        await act(app, "create_task", content="写周报")
        await turn(app, "把交电费这个任务标记完成")
        answer = text_of(await turn(app, "不是这个，是周报那个"))
        zh = await _rows(app, "SELECT content, status FROM tasks ORDER BY id")
        await act(app, "create_task", content="call the plumber")
        await act(app, "create_task", content="call the landlord")
        await turn(app, "I finished calling the plumber", channel="hall")
        english = text_of(await turn(app, "no, not that one, the landlord one", channel="hall"))
        en = await _rows(app, "SELECT content, status FROM tasks WHERE id > 2 ORDER BY id")
    assert provider.requests == []
    assert zh == [{"content": "交电费", "status": "open"}, {"content": "写周报", "status": "done"}]
    assert "周报" in answer
    assert en == [{"content": "call the plumber", "status": "open"}, {"content": "call the landlord", "status": "done"}]
    assert english.startswith("OK, the landlord one.")


async def test_a_correction_removes_the_record_made_by_mistake_and_makes_the_right_one(make_config) -> None:
    async with _app(make_config, ScriptedProvider([]), permissions={"classes": {"delete": "allow"}}) as app:
        # (a bare "提醒我买牛奶" sits between a task and the shopping list: the model decides)
        await turn(app, "提醒我明天买牛奶")
        made = await _rows(app, "SELECT content FROM tasks")
        answer = text_of(await turn(app, "不是这个，我是说把牛奶加到购物清单"))
        tasks = await _rows(app, "SELECT content FROM tasks")
        items = await _rows(app, "SELECT name FROM shopping_items")
        learned = await _rows(app, "SELECT text, action FROM intent_examples")
    assert made == [{"content": "买牛奶"}]
    assert tasks == [] and items == [{"name": "牛奶"}]
    assert "已删除任务" in answer
    assert learned == [{"text": "提醒我明天买牛奶", "action": "add_shopping_item"}]


async def test_undo_switches_the_household_back_and_says_what_it_cannot_undo(make_config) -> None:
    async with _app(make_config, ScriptedProvider([])) as app:
        await turn(app, "我出门了，切换到离家模式")
        away = await app.modes.current()
        back = text_of(await turn(app, "不对，撤回"))
        mode = await app.modes.current()
        await turn(app, "add milk to the shopping list")
        kept = text_of(await turn(app, "undo that"))
        items = await _rows(app, "SELECT name FROM shopping_items")
    assert away == "away" and mode == "home"
    assert back.startswith("已撤销上一步：")
    assert "add_shopping_item" in kept and "cannot be undone" in kept and items == [{"name": "milk"}]


async def test_a_bare_verb_or_and_too_right_after_a_record_means_that_record(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider, permissions={"classes": {"delete": "allow"}}) as app:
        await turn(app, "提醒我明天上午9点交水费")
        await turn(app, "改到下午三点吧")
        moved = await _rows(app, "SELECT content, due FROM tasks")
        await turn(app, "加个待办：买电池", channel="hall")
        await turn(app, "算了，删了吧", channel="hall")
        left = await _rows(app, "SELECT content FROM tasks ORDER BY id")
        await turn(app, "add bread to the shopping list", channel="porch")
        await turn(app, "and butter too", channel="porch")
        items = await _rows(app, "SELECT name FROM shopping_items ORDER BY id")
    assert provider.requests == []
    assert moved == [{"content": "交水费", "due": "2026-03-05T15:00:00+08:00"}]
    assert left == [{"content": "交水费"}]
    assert items == [{"name": "bread"}, {"name": "butter"}]
