"""Follow-ups that name a listed record by its words, add one more after a read, or give a
detail of the record just made, through the intent layer in the real App (real SQLite, the
real registry, the FakeClock; the scripted provider only where a turn reaches the model)."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.clock import FakeClock
from homeagent.llm.testing import ScriptedProvider
from tests.integration.helpers import running_app, turn

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday


def _app(make_config, provider: ScriptedProvider):
    config = make_config(actions={"intent": True}, permissions={"classes": {"delete": "allow"}})
    return running_app(config, provider=provider, clock=FakeClock(NOW))


def _calls(events) -> list[tuple[str, dict]]:
    return [(e.name, json.loads(e.arguments or "{}")) for e in events if e.type == "tool_call"]


@pytest.mark.parametrize(("made", "show", "then", "action", "table", "column", "gone"), [
    (["remind me to buy raffle tickets", "remind me to renew the car rego"], "What tasks do I have?",
     "Delete the one about the raffle.", "delete_task", "tasks", "content", "buy raffle tickets"),
    (["start a habit of cold showers every morning", "start a habit of reading every night"], "what habits do I have?",
     "Delete the cold showers one, I'm done suffering.", "delete_habit", "habits", "name", "cold showers"),
    (["add a countdown to prom on May 20", "add a countdown to the beach trip on June 1"], "show my countdowns",
     "delete the prom one", "delete_countdown", "countdowns", "title", "prom"),
    (["提醒我交电费", "提醒我写周报"], "我还有哪些任务", "周报那个删了", "delete_task", "tasks", "content", "写周报"),
])
async def test_a_listed_record_named_by_its_words_is_the_one_the_verb_acts_on(
        make_config, made: list[str], show: str, then: str, action: str, table: str, column: str, gone: str) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        for said in made:
            await turn(app, said)
        before = {r[column] for r in await app.db.fetchall(f"SELECT {column} FROM {table}")}
        await turn(app, show, channel="a")
        events = await turn(app, then, channel="a")
        after = {r[column] for r in await app.db.fetchall(f"SELECT {column} FROM {table}")}
    assert gone in before and len(before) == 2
    assert _calls(events) and _calls(events)[0][0] == action
    assert before - after == {gone}


@pytest.mark.parametrize(("ask", "then", "action", "sql", "value"), [
    ("How much water have I had today?", "Add another 250.", "record_water", "SELECT amount_ml AS v FROM water_logs", 250),
    ("心愿单里都有啥", "那再加一个足浴盆", "add_wishlist_item", "SELECT name AS v FROM wishlist_items", "足浴盆"),
])
async def test_one_more_after_a_read_is_written_where_the_read_looked(make_config, ask: str, then: str, action: str,
                                                                      sql: str, value) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, ask)
        events = await turn(app, then)
        rows = [r["v"] for r in await app.db.fetchall(sql)]
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0] == action
    assert rows == [value]


@pytest.mark.parametrize(("made", "then", "column", "value"), [
    ("Book leg day with my PT Tuesday at 6:30am", "Put it at the Iron Temple gym.", "location", "Iron Temple gym"),
    ("周六下午两点带孩子打疫苗", "放在社区医院", "location", "社区医院"),
    ("下礼拜三上午九点半产检 在市妇幼", "地方搞错了 是重医附一院", "location", "重医附一院"),
    ("staff mtg 0800 Fri", "location 4B conf room", "location", "4B conf room"),
])
async def test_where_an_event_is_said_right_after_it(make_config, made: str, then: str, column: str, value: str) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, made)
        events = await turn(app, then)
        rows = await app.db.fetchall(f"SELECT {column} FROM events")
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0] == "update_event"
    assert [r[column] for r in rows] == [value]


async def test_a_priority_said_right_after_a_task_is_that_tasks(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "Remind me to phone the plumber tomorrow")
        events = await turn(app, "And mark it high priority while you're at it.")
        rows = await app.db.fetchall("SELECT content, priority FROM tasks")
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0] == "update_task"
    assert [(r["content"], r["priority"]) for r in rows] == [("phone the plumber", "high")]


async def test_a_wu_no_before_a_new_time_corrects_the_task(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "明朝下半天三点去物业交管理费，侬帮我记一记")
        events = await turn(app, "弗对，改到四点")
        rows = await app.db.fetchall("SELECT due FROM tasks")
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0] == "update_task"
    assert [r["due"] for r in rows] == ["2026-03-05T16:00:00+08:00"]


async def test_a_record_named_after_a_listing_is_found_even_off_the_page_shown(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        for n in range(11):
            await turn(app, f"提醒我明天整理第{n}号抽屉")
        await turn(app, "remind me to buy raffle tickets next month")  # the twelfth: not on a page of ten
        await turn(app, "What tasks do I have?", channel="a")
        events = await turn(app, "Delete the one about the raffle.", channel="a")
        route = app.intent.last_route
        left = [r["content"] for r in await app.db.fetchall("SELECT content FROM tasks")]
    assert provider.requests == []
    assert route.reason == "follow-up: named"
    assert _calls(events) == [("delete_task", {"content": "raffle"})]
    assert len(left) == 11 and "buy raffle tickets" not in left


async def test_a_listed_row_said_done_with_ban_wan(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        for said in ("提醒我明天交电费", "提醒我周五交房租", "提醒我下周一寄快递"):
            await turn(app, said)
        await turn(app, "我还有啥事没办？")
        events = await turn(app, "第二个办完了")
        done = [r["content"] for r in await app.db.fetchall("SELECT content FROM tasks WHERE status = 'done'")]
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0] == "complete_task"
    assert len(done) == 1


@pytest.mark.parametrize(("first", "then", "table", "column"), [
    ("Did my yoga today, tick it off", "And yesterday's as well, I forgot.", "habit_checkins", "day"),
    ("跑步打卡，今天跑了五公里", "昨天也跑了，一道补上", "habit_checkins", "day"),
])
async def test_the_same_again_on_another_day(make_config, first: str, then: str, table: str, column: str) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "start a daily habit of yoga")
        await turn(app, "新建一个习惯：跑步")
        made = await turn(app, first)
        events = await turn(app, then)
        days = sorted(r[column] for r in await app.db.fetchall(f"SELECT {column} FROM {table}"))
    assert provider.requests == []
    assert _calls(made) and _calls(events) and _calls(events)[0][0] == _calls(made)[0][0] == "check_in_habit"
    assert days == ["2026-03-03", "2026-03-04"]


async def test_the_same_again_on_another_day_with_its_new_amount(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "今天喝了两杯水")
        events = await turn(app, "昨天也喝了三杯")
        rows = sorted((r["amount_ml"], r["day"]) for r in await app.db.fetchall("SELECT amount_ml, day FROM water_logs"))
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0] == "record_water"
    assert rows == [(500, "2026-03-04"), (750, "2026-03-03")]


async def test_another_day_with_words_of_its_own_is_another_record(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "早饭吃了两个包子")
        events = await turn(app, "昨天晚饭吃的饺子也补上")
        foods = sorted(r["food"] for r in await app.db.fetchall("SELECT food FROM diets"))
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0] == "record_diet"
    assert foods == ["两个包子", "饺子"]


async def test_a_title_and_a_repeat_said_right_after_the_record(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "记一下 车的保险单号是PDZA2026001873")
        titled = await turn(app, "标题叫车险吧")
        await turn(app, "remind me to call Mam on Sunday")
        repeated = await turn(app, "and make that every Sunday")
        notes = await app.db.fetchall("SELECT title, content FROM notes")
        tasks = await app.db.fetchall("SELECT content, repeat FROM tasks")
    assert provider.requests == []
    assert _calls(titled)[0][0] == "update_note" and _calls(repeated)[0][0] == "update_task"
    assert [(r["title"], r["content"]) for r in notes] == [("车险", "车的保险单号是PDZA2026001873")]
    assert len(tasks) == 1 and tasks[0]["content"] == "call Mam" and tasks[0]["repeat"]


async def test_prepone_moves_the_task_just_made(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "task: book flights for Diwali by the 20th")
        before = [r["due_day"] for r in await app.db.fetchall("SELECT due_day FROM tasks")]
        events = await turn(app, "kindly prepone it to this Friday")
        after = await app.db.fetchall("SELECT content, due_day FROM tasks")
    assert provider.requests == []
    assert _calls(events)[0][0] == "update_task"
    assert len(after) == 1 and after[0]["content"] == "book flights for Diwali" and [after[0]["due_day"]] != before


async def test_a_listing_narrowed_by_a_filter_is_the_same_read(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "Remind me to phone the plumber tomorrow")
        await turn(app, "And mark it high priority while you're at it.")
        await turn(app, "remind me to water the ferns")
        await turn(app, "what tasks do I have")
        done = await turn(app, "only the done ones")
        await turn(app, "what tasks do I have")
        high = await turn(app, "just the high priority ones")
        zh = await turn(app, "只看高优先级的")  # (narrowed again by the same filter: the same read)
        rows = await app.db.fetchall("SELECT content, status FROM tasks ORDER BY id")
    assert provider.requests == []
    assert _calls(high) == [("list_tasks", {"priority": "high"})]
    assert _calls(done) == [("list_tasks", {"status": "done"})]  # (was complete_task of "only the ones")
    assert _calls(zh) == [("list_tasks", {"priority": "high"})]
    assert [(r["content"], r["status"]) for r in rows] == [("phone the plumber", "open"), ("water the ferns", "open")]
