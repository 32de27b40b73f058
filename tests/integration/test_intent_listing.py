"""Follow-ups that point at what the last turn showed, through the intent layer in the real
App (real SQLite, the real registry and core, the FakeClock; the scripted provider only
where a turn reaches the model): a record the household already had, the n-th row of a
listing, the same question for another period, the next page."""

from __future__ import annotations

import json
import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.clock import FakeClock
from homeagent.llm.testing import ScriptedProvider
from tests.integration.helpers import running_app, text_of, turn

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday


def _app(make_config, provider: ScriptedProvider):
    config = make_config(actions={"intent": True}, permissions={"classes": {"delete": "allow"}})
    return running_app(config, provider=provider, clock=FakeClock(NOW))


def _calls(events) -> list[tuple[str, str]]:
    return [(e.name, e.arguments) for e in events if e.type == "tool_call"]


async def test_a_record_already_there_is_still_the_one_a_follow_up_means(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "购物清单加上鸡蛋")
        await turn(app, "购物清单加上鸡蛋", channel="kitchen")  # already on the list: nothing new made
        await turn(app, "再加一个牛奶", channel="kitchen")
        await turn(app, "I want to start a daily habit of stretching")
        await turn(app, "I want to start a daily habit of stretching", channel="hall")
        events = await turn(app, "delete that one", channel="hall")
        items = [r["name"] for r in await app.db.fetchall("SELECT name FROM shopping_items ORDER BY id")]
        habits = await app.db.fetchall("SELECT name FROM habits")
    assert provider.requests == []
    assert items == ["鸡蛋", "牛奶"]
    assert _calls(events) and _calls(events)[0][0] == "delete_habit"
    assert habits == []


async def test_the_n_th_row_of_a_listing_is_the_one_a_follow_up_names(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        for said in ("提醒我明天交电费", "提醒我周五交房租", "提醒我下周一寄快递", "remind me to call the plumber tomorrow"):
            await turn(app, said)
        ids = [r["id"] for r in await app.db.fetchall("SELECT id FROM tasks")]
        await app.db.execute("UPDATE tasks SET id = id + 10")  # row numbers are no longer ids
        listing = text_of(await turn(app, "我还有哪些任务", channel="a"))
        shown = await turn(app, "第三个是什么来着", channel="a")
        moved = await turn(app, "那个改到下周二", channel="a")
        listing_b = text_of(await turn(app, "what's on my to-do list?", channel="b"))
        deleted = await turn(app, "delete the last one", channel="b")
        await turn(app, "我还有哪些任务", channel="c")
        done = await turn(app, "第一个已经做完了", channel="c")
        rows = {r["id"]: dict(r) for r in await app.db.fetchall("SELECT id, content, due, status FROM tasks")}
    assert provider.requests == []
    assert len(ids) == 4
    order = [int(n) for n in re.findall(r"^- #(\d+)", listing, re.M)]  # as shown: by due day, then id
    assert len(order) == 4 and min(order) > 10
    third, first = order[2], order[0]
    last = [int(n) for n in re.findall(r"^- #(\d+)", listing_b, re.M)][-1]  # 寄快递 moved: the order is b's own
    assert text_of(shown).startswith(f"#{third} ")
    assert _calls(moved)[0][0] == "update_task" and json.loads(_calls(moved)[0][1])["id"] == third
    assert _calls(deleted)[0][0] == "delete_task" and last not in rows and len(rows) == 3
    if third != last:
        assert rows[third]["due"].startswith("2026-03-10")
    assert _calls(done)[0][0] == "complete_task" and rows[first]["status"] == "done"
    assert [i for i, r in rows.items() if r["status"] == "done"] == [first]


async def test_the_same_question_for_another_period_and_the_next_page(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        for n in range(12):
            await turn(app, f"购物清单加上东西{n}")
        await turn(app, "午饭花了35块")
        await turn(app, "这周花了多少钱", channel="a")
        again = await turn(app, "那上周呢", channel="a")
        await turn(app, "how much did I spend this week?", channel="b")
        again_en = await turn(app, "and last month?", channel="b")
        await turn(app, "看看购物清单", channel="c")
        page = await turn(app, "下一页", channel="c")
        cold = await turn(app, "下一页", channel="d")  # nothing listed before: no page to turn
    assert _calls(again) == [("list_transactions", _calls(again)[0][1])]
    assert '"from": "上周"' in _calls(again)[0][1] or "上周" in _calls(again)[0][1]
    assert _calls(again_en)[0][0] == "list_transactions" and "last month" in _calls(again_en)[0][1]
    assert _calls(page)[0][0] == "list_shopping" and '"offset": 10' in _calls(page)[0][1]
    assert "东西11" in text_of(page) or "东西0" in text_of(page)
    assert not _calls(cold)


async def test_short_follow_ups_change_or_add_to_what_the_last_turn_touched(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "remind me to call the plumber tomorrow at 9am", channel="a")
        await turn(app, "actually make it 10", channel="a")
        await turn(app, "track a new habit: gym, 4 times a week", channel="b")
        await turn(app, "actually make that 3", channel="b")
        await turn(app, "新建一个习惯：每天练字", channel="c")
        await turn(app, "每天晚上八点提醒我", channel="c")
        await turn(app, "is milk on the list?", channel="d")
        await turn(app, "ok add it then", channel="d")
        await turn(app, "add eggs to the shopping list", channel="e")
        await turn(app, "and bread", channel="e")
        tasks = await app.db.fetchall("SELECT content, due FROM tasks")
        habits = {r["name"]: dict(r) for r in await app.db.fetchall("SELECT name, target, remind_at FROM habits")}
        items = [r["name"] for r in await app.db.fetchall("SELECT name FROM shopping_items ORDER BY id")]
    assert provider.requests == []
    assert [(r["content"], r["due"]) for r in tasks] == [("call the plumber", "2026-03-05T10:00:00+08:00")]
    assert habits["gym"]["target"] == 3
    assert habits["练字"]["remind_at"] == "20:00"
    assert items == ["milk", "eggs", "bread"]


@pytest.mark.parametrize(("show", "bought"), [("看一下购物清单", "第二个已经买了"), ("show the shopping list", "I got the second one")])
async def test_a_listed_item_said_bought_is_ticked_off(make_config, show: str, bought: str) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        for item in ("酱油", "鸡蛋", "牛奶"):
            await turn(app, f"购物清单加上{item}")
        listing = text_of(await turn(app, show))
        events = await turn(app, bought)
        rows = {r["name"]: r["status"] for r in await app.db.fetchall("SELECT name, status FROM shopping_items")}
    assert provider.requests == []
    second = re.findall(r"^- #\d+\s+(\S+)", listing, re.M)[1]
    assert _calls(events) and _calls(events)[0][0] == "mark_shopping_bought"
    assert [name for name, status in rows.items() if status == "bought"] == [second]


async def test_a_question_about_what_was_just_listed_narrows_that_listing(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        for item in ("酱油", "鸡蛋", "coffee"):
            await turn(app, f"购物清单加上{item}")
        await turn(app, "午饭花了35块")
        await turn(app, "打车花了20块")
        await turn(app, "看一下购物清单", channel="a")
        zh = await turn(app, "有酱油吗", channel="a")
        await turn(app, "what's on the shopping list?", channel="b")
        en = await turn(app, "is there coffee on it?", channel="b")
        await turn(app, "我这个月花了多少钱", channel="c")
        part = await turn(app, "其中打车多少", channel="c")
    assert provider.requests == []
    assert _calls(zh) and _calls(zh)[0][0] == "list_shopping" and json.loads(_calls(zh)[0][1])["query"] == "酱油"
    assert _calls(en) and _calls(en)[0][0] == "list_shopping" and json.loads(_calls(en)[0][1])["query"] == "coffee"
    args = json.loads(_calls(part)[0][1])
    assert _calls(part)[0][0] == "list_transactions" and args["query"] == "打车" and args["from"] == "这个月"
    assert "20" in text_of(part) and "35" not in text_of(part)


async def test_it_after_a_listing_of_one_record_is_that_record(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, "set a goal to save 5000 dollars for the vacation")
        await turn(app, "what's the progress on my vacation goal?", channel="a")
        events = await turn(app, "add 200 to it", channel="a")
        await turn(app, "我的目标进度怎么样", channel="b")
        zh = await turn(app, "再加300", channel="b")
        goals = await app.db.fetchall("SELECT progress FROM goals")
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0] == "update_goal_progress"
    assert _calls(zh) and _calls(zh)[0][0] == "update_goal_progress"
    assert [r["progress"] for r in goals] == [500]


@pytest.mark.parametrize(("made", "then", "column", "value"), [
    ("明天上午10点跟李总开会", "地点在公司三楼会议室", "location", "公司三楼会议室"),
    ("add dinner with the Johnsons on Saturday at 7", "the location is their place on Elm Street", "location",
     "their place on Elm Street"),
])
async def test_a_detail_said_right_after_a_record_is_that_records(make_config, made: str, then: str, column: str,
                                                                   value: str) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, made)
        events = await turn(app, then)
        rows = await app.db.fetchall(f"SELECT {column} FROM events")
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0] == "update_event"
    assert [r[column] for r in rows] == [value]


@pytest.mark.parametrize(("made", "then", "table", "column", "value"), [
    ("下周五前交设计稿", "加个标签，工作", "tasks", "tags", '["工作"]'),
    ("remind me to submit the expense report by Friday", "tag it work", "tasks", "tags", '["work"]'),
    ("存个笔记：车位号B2-137", "再补一句，车位月租300", "notes", "content", "车位号B2-137\n车位月租300"),
    ("存个笔记：车位号B2-137", "再补充一句，月租300", "notes", "content", "车位号B2-137\n月租300"),
    ("make a note: gate code 1942", "also add that the back gate is 2001", "notes", "content",
     "gate code 1942\nthe back gate is 2001"),
    ("提醒我每天早上吃维生素", "改成每隔一天", "tasks", "repeat", None),
])
async def test_one_field_named_right_after_a_record_changes_that_record(make_config, made: str, then: str, table: str,
                                                                        column: str, value: str | None) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider) as app:
        await turn(app, made)
        before = [r[column] for r in await app.db.fetchall(f"SELECT {column} FROM {table}")]
        events = await turn(app, then)
        rows = [r[column] for r in await app.db.fetchall(f"SELECT {column} FROM {table}")]
    assert provider.requests == []
    assert _calls(events) and _calls(events)[0][0].startswith("update_")
    assert len(rows) == 1 and rows != before
    if value is not None:
        assert rows[0].replace(" ", "") == value.replace(" ", "") if column == "tags" else rows[0] == value
