"""Relative edits of a record's time through the intent layer, in the real App: real
SQLite, the real registry and core, the injected FakeClock; the scripted provider stands
in for the model only where a turn reaches it."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.app import App
from homeagent.chat import ToolCall
from homeagent.clock import FakeClock
from homeagent.llm.testing import ScriptedProvider
from homeagent.tools.registry import ToolContext
from tests.integration.helpers import running_app, text_of, turn

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday


def _app(make_config, provider: ScriptedProvider):
    return running_app(make_config(actions={"intent": True}), provider=provider, clock=FakeClock(NOW))


async def _due(app: App) -> list[str | None]:
    return [r["due"] for r in await app.db.fetchall("SELECT due FROM tasks ORDER BY id")]


async def act(app: App, name: str, member: str = "", **args) -> None:
    result = await app.tools.execute(ToolCall("c", name, json.dumps(args, ensure_ascii=False)),
                                     ToolContext(turn_id="t", channel="test", member=member))
    assert result.ok, result.content


async def test_chinese_follow_ups_shift_the_task_the_last_turn_touched(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "提醒我明天下午3点交电费")
        seen = []
        for said in ("往后推一个小时", "提前半小时", "晚两天", "推迟到下周", "把它提前一天"):
            events = await turn(app, said)
            seen.append((await _due(app))[0])
        answer = text_of(events)
    assert provider.requests == []  # none of it needed the model
    assert seen == ["2026-03-05T16:00:00+08:00", "2026-03-05T15:30:00+08:00", "2026-03-07T15:30:00+08:00",
                    "2026-03-14T15:30:00+08:00", "2026-03-13T15:30:00+08:00"]
    assert "交电费" in answer


async def test_english_follow_ups_shift_by_hours_minutes_and_days(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "Remind me to call the plumber tomorrow at 3pm")
        seen = []
        for said in ("push it back an hour", "make it 30 minutes earlier", "move it two days later",
                     "push it back an hour and a half"):
            await turn(app, said)
            seen.append((await _due(app))[0])
    assert provider.requests == []
    assert seen == ["2026-03-05T16:00:00+08:00", "2026-03-05T15:30:00+08:00", "2026-03-07T15:30:00+08:00",
                    "2026-03-07T17:00:00+08:00"]


async def test_a_command_naming_the_record_shifts_that_record_only(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await act(app, "create_task", content="交电费", due="2026-03-06 09:00")
        await act(app, "create_task", content="取快递", due="2026-03-06 09:00")
        await act(app, "create_event", title="dentist appointment", start="2026-03-06 10:00", end="2026-03-06 11:00")
        await turn(app, "把交电费往后推一天")
        await turn(app, "push the dentist back an hour")
        tasks = await _due(app)
        events = [dict(r) for r in await app.db.fetchall("SELECT title, start, end FROM events")]
        await turn(app, "再往后推半小时")  # the record the last turn touched: the dentist
        later = [dict(r) for r in await app.db.fetchall("SELECT start FROM events")]
    assert provider.requests == []
    assert tasks == ["2026-03-07T09:00:00+08:00", "2026-03-06T09:00:00+08:00"]
    assert events == [{"title": "dentist appointment", "start": "2026-03-06T11:00:00+08:00",
                       "end": "2026-03-06T12:00:00+08:00"}]
    assert later == [{"start": "2026-03-06T11:30:00+08:00"}]


async def test_an_absolute_time_still_replaces_the_old_one(make_config) -> None:
    async with _app(make_config, ScriptedProvider([])) as app:
        await turn(app, "提醒我明天下午3点交电费")
        await turn(app, "把它改到4点")
        first = (await _due(app))[0]
        await turn(app, "Remind me to call the plumber tomorrow at 3pm")
        await turn(app, "move it to Friday at 9am")
        second = (await _due(app))[1]
    assert first == "2026-03-05T16:00:00+08:00"
    assert second == "2026-03-06T09:00:00+08:00"


async def test_a_shift_with_no_record_touched_or_named_changes_nothing(make_config) -> None:
    provider = ScriptedProvider(["Which one should I move?"])
    async with _app(make_config, provider) as app:
        await act(app, "create_task", content="交电费", due="2026-03-06 09:00")
        events = await turn(app, "往后推一个小时")
        tasks = await _due(app)
    assert tasks == ["2026-03-06T09:00:00+08:00"]
    assert text_of(events) == "Which one should I move?"  # the model asks; nothing was guessed


async def test_named_shifts_in_chinese_and_an_ambiguous_name_goes_to_the_model(make_config) -> None:
    provider = ScriptedProvider(["有两条“交”开头的任务，是哪一条？"])
    async with _app(make_config, provider) as app:
        await act(app, "create_task", content="交电费", due="2026-03-06 09:00")
        await act(app, "create_task", content="交水费", due="2026-03-06 09:00")
        await act(app, "create_event", title="牙医预约", start="2026-03-10 10:00")
        await turn(app, "把交电费那个任务往后推一天")
        await turn(app, "把牙医预约提前半小时")
        events = await turn(app, "把交往后推一天")  # two tasks match: which one is not guessed
        tasks = await _due(app)
        start = [r["start"] for r in await app.db.fetchall("SELECT start FROM events")]
    assert tasks == ["2026-03-07T09:00:00+08:00", "2026-03-06T09:00:00+08:00"]
    assert start == ["2026-03-10T09:30:00+08:00"]
    assert len(provider.requests) == 1 and "哪一条" in text_of(events)


async def test_asking_whether_it_moved_moves_nothing(make_config) -> None:
    provider = ScriptedProvider(["(model)"] * 5)
    async with _app(make_config, provider) as app:
        await turn(app, "提醒我明天下午3点交电费")
        for said in ("是不是往后推了一个小时？", "did I push it back an hour?", "把交电费往后推一天了吗？",
                     "往后推了一个小时吗？"):
            await turn(app, said)
        tasks = await _due(app)
    assert tasks == ["2026-03-05T15:00:00+08:00"]


async def test_a_new_day_for_a_timed_task_keeps_its_time_of_day(make_config) -> None:
    async with _app(make_config, ScriptedProvider([])) as app:
        await turn(app, "提醒我明天下午3点交电费")
        await turn(app, "把它改到周五")
        first = (await _due(app))[0]
        await turn(app, "Remind me to call the plumber tomorrow at 9am")
        await turn(app, "move it to Monday")
        second = (await _due(app))[1]
    assert (first, second) == ("2026-03-06T15:00:00+08:00", "2026-03-09T09:00:00+08:00")


async def test_structured_slots_land_in_their_columns(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        for said in ("添加联系人张三，电话138 1234 5678", "run 100 km this year",
                     "add 3 cans of tuna to the pantry", "watered the fern with 300ml"):
            await turn(app, said)
        people = [dict(r) for r in await app.db.fetchall("SELECT name, phone FROM people")]
        goals = [dict(r) for r in await app.db.fetchall("SELECT title, target, unit FROM goals")]
        stock = [dict(r) for r in await app.db.fetchall("SELECT name, quantity, unit, location FROM inventory_items")]
        water = [dict(r) for r in await app.db.fetchall("SELECT plant, amount_ml FROM plant_waterings")]
    assert provider.requests == []
    assert people == [{"name": "张三", "phone": "13812345678"}]
    assert goals == [{"title": "run 100 km", "target": 100, "unit": "km"}]
    assert stock == [{"name": "tuna", "quantity": 3, "unit": "cans", "location": "pantry"}]
    assert water == [{"plant": "fern", "amount_ml": 300}]


@pytest.mark.parametrize(("lent", "repaid", "person", "amounts"), [
    ("记一下，借给小周500", "他刚还了200", "小周", (50000, 20000)),
    ("I lent Priya 300", "she just paid back 100", "Priya", (30000, 10000)),
])
async def test_a_repayment_said_with_a_pronoun_is_the_last_loan_s_person(make_config, lent: str, repaid: str,
                                                                          person: str, amounts: tuple[int, int]) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, lent)
        await turn(app, repaid)
        rows = await app.db.fetchall("SELECT person, amount_minor, repaid_minor FROM money_lends ORDER BY id")
    assert provider.requests == []  # the layer answered both
    assert [(r["person"], r["amount_minor"], r["repaid_minor"]) for r in rows] == [(person, *amounts)]


@pytest.mark.parametrize(("first", "then", "table", "column", "expected"), [
    ("帮我加个任务：写季度总结", "优先级设成高", "tasks", "priority", "high"),
    ("remind me to send the invoice by Friday", "make it high priority", "tasks", "priority", "high"),
    ("提醒我周五交水费", "已经交了，标记完成吧", "tasks", "status", "done"),
    ("明天下午3点和房东看房", "地点改成小区南门", "events", "location", "小区南门"),
    ("book the choir rehearsal on Thursday at 7pm", "and change the location to the church hall", "events", "location",
     "church hall"),
    # Where it is, said of the event just made ("It's at the town hall").
    ("book the choir rehearsal on Thursday at 7pm", "It's at the town hall", "events", "location", "town hall"),
])
async def test_a_change_with_no_words_of_its_own_is_the_last_record_s(make_config, first: str, then: str, table: str,
                                                                       column: str, expected: str) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, first)
        await turn(app, then)
        rows = await app.db.fetchall(f"SELECT {column} FROM {table} ORDER BY id")
    assert provider.requests == []
    assert [r[column] for r in rows] == [expected]


@pytest.mark.parametrize(("first", "then", "expected"), [
    ("后天晚上七点和老同学吃火锅，放日历上", "改到周六同一时间", "2026-03-07T19:00"),
    ("book the choir rehearsal on Thursday at 7pm", "actually move it to Friday, same time", "2026-03-06T19:00"),
])
async def test_a_new_day_at_the_same_time_moves_the_event_just_made(make_config, first: str, then: str,
                                                                     expected: str) -> None:
    # (no record named, only a day and "the same time": the event the last turn made, not a task)
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, first)
        await turn(app, then)
        starts = [r["start"] for r in await app.db.fetchall("SELECT start FROM events ORDER BY id")]
        tasks = await app.db.fetchall("SELECT id FROM tasks")
    assert provider.requests == [] and tasks == []
    assert len(starts) == 1 and starts[0].startswith(expected), starts


@pytest.mark.parametrize(("first", "then", "expected"), [
    ("Add a task to book the MOT", "Due next Wednesday", "2026-03-11"),
    ("Add a task to renew the car insurance", "it's due on the 20th", "2026-03-20"),
])
async def test_a_due_day_said_alone_is_the_task_just_made(make_config, first: str, then: str, expected: str) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, first)
        await turn(app, then)
        rows = await app.db.fetchall("SELECT due FROM tasks ORDER BY id")
    assert provider.requests == []
    assert len(rows) == 1 and str(rows[0]["due"]).startswith(expected), [dict(r) for r in rows]


async def test_a_habits_reminder_said_in_english_is_the_habit_just_made(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "Start a daily habit: meditation")
        await turn(app, "Remind me at 6:45 every morning")
        habits = [dict(r) for r in await app.db.fetchall("SELECT * FROM habits")]
        tasks = await app.db.fetchall("SELECT id FROM tasks")
    assert provider.requests == [] and tasks == []
    assert len(habits) == 1 and "06:45" in str(habits[0]), habits


async def test_one_more_of_the_same_keeps_whose_it_is_and_its_kind(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "Add Severance to my watch list")
        await turn(app, "Also Slow Horses")  # another show to watch, not one watched
        await turn(app, "午饭花了35块")
        await turn(app, "还有晚饭68")
        await turn(app, "Walked Biscuit this morning")
        await turn(app, "And fed him")  # him: Biscuit
        media = [tuple(r) for r in await app.db.fetchall("SELECT title, status FROM media ORDER BY id")]
        spent = [r["amount_minor"] for r in await app.db.fetchall("SELECT * FROM transactions ORDER BY id")]
        pets = [tuple(r) for r in await app.db.fetchall("SELECT pet, activity FROM pet_activities ORDER BY id")]
    assert provider.requests == []
    assert media == [("Severance", "want"), ("Slow Horses", "want")]
    assert spent == [3500, 6800]
    assert [p for p, _ in pets] == ["Biscuit", "Biscuit"]


async def test_the_same_read_again_with_another_day_or_place_said_alone(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await act(app, "create_task", content="交电费", due="2026-03-05")
        await act(app, "create_task", content="取快递", due="2026-03-06")
        await act(app, "record_water", amount=300, time="2026-03-03T09:00")
        await act(app, "record_water", amount=450, time="2026-03-04T08:00")
        first = text_of(await turn(app, "what's on my to-do list for tomorrow?"))
        then = text_of(await turn(app, "and the day after?"))
        today = text_of(await turn(app, "how much water have I had today?"))
        yesterday = text_of(await turn(app, "and yesterday?"))
    assert provider.requests == []  # each answered by the layer, none by the model
    assert "交电费" in first and "取快递" not in first
    assert "取快递" in then and "交电费" not in then
    assert "450" in today and "300" not in today
    assert "300" in yesterday and "450" not in yesterday


async def test_a_correction_that_changes_a_value_changes_the_record_and_keeps_it(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "建个习惯，每周跑步三次")
        await turn(app, "不对，改成四次")
        habits = [dict(r) for r in await app.db.fetchall("SELECT * FROM habits")]
    assert provider.requests == []
    assert len(habits) == 1 and habits[0]["target"] == 4, habits  # not deleted and made again as "四次"


async def test_another_record_named_after_an_action_is_the_one_acted_on(make_config) -> None:
    provider = ScriptedProvider([])
    config = make_config(actions={"intent": True}, permissions={"classes": {"delete": "allow"}})  # (no one to confirm here)
    async with running_app(config, provider=provider, clock=FakeClock(NOW)) as app:
        for content in ("订机票", "订酒店", "打印合同", "交房租"):
            await act(app, "create_task", content=content)
        await act(app, "create_note", title="car", content="plate 沪A12345")
        await act(app, "create_note", title="insurance", content="policy 889")
        await turn(app, "删掉订机票那个任务")
        retargeted = text_of(await turn(app, "等下，不是这个，是订酒店那个"))  # the hotel one goes, the flight comes back
        await turn(app, "还有打印合同那个，也删了")
        await turn(app, "delete my note about the car")
        await turn(app, "not that one, the one about the insurance")
        tasks = sorted(r["content"] for r in await app.db.fetchall("SELECT content FROM tasks"))
        notes = sorted(r["title"] for r in await app.db.fetchall("SELECT title FROM notes"))
    assert provider.requests == []
    assert tasks == ["交房租", "订机票"], tasks  # (the wrong delete is put back)
    assert "订酒店" in retargeted and "已恢复刚删除的任务 #1" in retargeted
    assert notes == ["car"], notes


async def test_the_same_again_on_another_record_and_one_more_made_the_same_way(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        for content in ("finish the history essay", "practise piano", "email the landlord"):
            await act(app, "create_task", content=content)
        await turn(app, "mark the history one done")
        too = text_of(await turn(app, "and the piano one too"))
        done = [r["content"] for r in await app.db.fetchall("SELECT content FROM tasks WHERE status = 'done' ORDER BY id")]
        await turn(app, "帮我建个倒计时：妹妹婚礼，五月二十号", channel="hall")
        await turn(app, "再建一个，搬新家六月一号", channel="hall")
        countdowns = [(r["title"], r["day"]) for r in await app.db.fetchall("SELECT title, day FROM countdowns ORDER BY id")]
    assert provider.requests == []
    assert done == ["finish the history essay", "practise piano"], done
    assert "piano" in too
    assert countdowns == [("妹妹婚礼", "2026-05-20"), ("搬新家", "2026-06-01")], countdowns


@pytest.mark.parametrize(("first", "then", "table", "column", "expected"), [
    ("remind me to ring the garage", "tonight at 9", "tasks", "due", "2026-03-04T21:00"),
    ("提醒我给物业打电话", "今晚九点", "tasks", "due", "2026-03-04T21:00"),
    ("remind me to ring the garage", "actually make it tomorrow at 10", "tasks", "due", "2026-03-05T10:00"),
])
async def test_a_time_alone_right_after_a_record_is_its_time(make_config, first: str, then: str, table: str,
                                                              column: str, expected: str) -> None:
    # (no name and no verb: not a new event nor a question back, the record just made)
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, first)
        await turn(app, then)
        rows = await app.db.fetchall(f"SELECT {column} FROM {table} ORDER BY id")
        events = await app.db.fetchall("SELECT id FROM events")
    assert provider.requests == []
    assert [str(r[column])[:16] for r in rows] == [expected] and not events
