"""Every life action through the registry on a real SQLite file.

Valid arguments: the effect is visible through the action's list action (or the
database, or the answer of a read action). Invalid arguments: a validation error that
names the field, and nothing is written.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp.web
import anyio
import pytest

from homeagent.actions import ActionSettings, HouseholdMode, action_definitions, register_actions
from homeagent.actions.schema import MIGRATIONS as ACTION_MIGRATIONS
from homeagent.clock import FakeClock
from homeagent.io import DeviceRegistry
from homeagent.llm.base import ToolCall
from homeagent.store import MIGRATIONS, Database
from homeagent.tools.registry import ToolContext, ToolRegistry, ToolResult

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday


class Env:
    def __init__(self, db: Database, registry: ToolRegistry, clock: FakeClock, modes: HouseholdMode):
        self.db, self.registry, self.clock, self.modes = db, registry, clock, modes
        self.member = ""

    async def run(self, name: str, **args: Any) -> ToolResult:
        ctx = ToolContext("turn-1", "test", "dev-1", now=self.clock.now, member=self.member)
        return await self.registry.execute(ToolCall("c1", name, json.dumps(args, ensure_ascii=False)), ctx)

    async def ok(self, name: str, **args: Any) -> str:
        result = await self.run(name, **args)
        assert result.ok, result.content
        return result.content

    async def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        return [dict(r) for r in await self.db.fetchall(sql, params)]


@pytest.fixture
async def env(tmp_path: Path, search_url: str = ""):
    async with Database(tmp_path / "actions.db", (*MIGRATIONS, *ACTION_MIGRATIONS)) as db:
        clock = FakeClock(NOW)
        devices = DeviceRegistry(db)
        await devices.touch("http", "kitchen-tablet", "厨房平板")
        registry = ToolRegistry()
        modes = HouseholdMode(db, clock, ("home", "away", "sleep", "guest", "party"))
        register_actions(registry, db=db, clock=clock, modes=modes, channels=devices, settings=ActionSettings())
        yield Env(db, registry, clock, modes)


# Each case: (action, setup calls, arguments, check). A check is ("list", action, args,
# text), ("sql", query, expected first value) or ("says", text) for the answer itself.
SETUP_TASK = [("create_task", {"content": "提交周报", "due": "明天"})]
SETUP_EVENT = [("create_event", {"title": "开会", "start": "周五下午3点"})]
SETUP_HABIT = [("create_habit", {"habit": "跑步"})]
SETUP_NOTE = [("create_note", {"content": "wifi 密码在冰箱上", "title": "wifi"})]
SETUP_GOAL = [("create_goal", {"title": "读书", "target": 12, "unit": "本"})]
SETUP_SHOP = [("add_shopping_item", {"item": "牛奶"})]

VALID: list[tuple[str, list, dict, tuple]] = [
    # task
    ("create_task", [], {"content": "提交周报", "due": "明天下班前", "priority": "high"},
     ("list", "list_tasks", {}, "提交周报 · 截止 2026-03-05 18:00 · 高优先级")),
    ("complete_task", SETUP_TASK, {"content": "提交周报"}, ("list", "list_tasks", {"status": "done"}, "提交周报")),
    ("list_tasks", SETUP_TASK, {"from": "明天", "to": "明天"}, ("says", "提交周报")),
    ("update_task", SETUP_TASK, {"content": "周报", "due": "后天", "new_content": "提交月报"},
     ("list", "list_tasks", {}, "提交月报 · 截止 2026-03-06")),
    ("delete_task", SETUP_TASK, {"content": "提交周报"}, ("sql", "SELECT COUNT(*) FROM tasks", 0)),
    # event & habit
    ("create_event", [], {"title": "dentist", "start": "next Tuesday 10am", "duration_minutes": 30},
     ("list", "list_events", {"from": "next week"}, "2026-03-10 10:00 dentist–10:30")),
    ("list_events", SETUP_EVENT, {}, ("says", "2026-03-06 15:00 开会")),
    ("update_event", SETUP_EVENT, {"title": "开会", "start": "下午4点", "location": "三楼"},
     ("list", "list_events", {}, "开会 @ 三楼")),
    ("delete_event", SETUP_EVENT, {"title": "开会"}, ("sql", "SELECT COUNT(*) FROM events", 0)),
    ("check_in_habit", [], {"habit": "冥想"}, ("list", "list_habits", {}, "冥想：连续 1 天")),
    ("create_habit", [], {"habit": "read", "frequency": "weekly", "target": 3}, ("list", "list_habits", {}, "#1 read")),
    ("list_habits", SETUP_HABIT, {"query": "跑"}, ("says", "跑步")),
    ("update_habit", SETUP_HABIT, {"habit": "跑步", "status": "paused", "new_name": "晨跑"},
     ("sql", "SELECT name || '/' || status FROM habits", "晨跑/paused")),
    ("delete_habit", SETUP_HABIT, {"habit": "跑步"}, ("sql", "SELECT COUNT(*) FROM habits", 0)),
    # note & diary
    ("create_note", [], {"content": "数据库连接字符串", "tags": ["工作"]}, ("list", "list_notes", {"tag": "工作"}, "数据库连接字符串")),
    ("list_notes", SETUP_NOTE, {"query": "密码"}, ("says", "wifi")),
    ("update_note", SETUP_NOTE, {"title": "wifi", "append": "已改成 abc123"}, ("list", "list_notes", {"query": "abc123"}, "#1")),
    ("delete_note", SETUP_NOTE, {"title": "wifi"}, ("sql", "SELECT COUNT(*) FROM notes", 0)),
    ("write_diary", [], {"content": "今天效率很高", "mood": "好"}, ("list", "list_notes", {"kind": "diary"}, "今天效率很高")),
    # finance
    ("record_transaction", [], {"amount": "35块", "note": "午饭"},
     ("list", "list_transactions", {}, "-¥35.00 餐饮 午饭")),
    ("list_transactions", [("record_transaction", {"amount": 8000, "type": "income", "category": "工资"})],
     {"type": "income"}, ("says", "收入 ¥8,000.00")),
    # health
    ("record_mood", [], {"mood": "开心"}, ("list", "list_moods", {}, "开心 (4/5)")),
    ("list_moods", [("record_mood", {"mood": "anxious"})], {}, ("says", "anxious (2/5)")),
    ("record_diet", [], {"food": "牛肉面", "meal": "dinner", "calories": 600}, ("list", "list_diets", {}, "dinner 牛肉面")),
    ("list_diets", [("record_diet", {"food": "oatmeal", "meal": "breakfast"})], {"meal": "breakfast"}, ("says", "oatmeal")),
    ("record_water", [], {"amount": "两杯"}, ("list", "list_water", {}, "500/2000")),
    ("list_water", [("record_water", {"amount": 300})], {}, ("says", "2026-03-04：300/2000 毫升")),
    ("record_sleep", [], {"hours": "7个半小时"}, ("list", "list_health", {"kind": "sleep"}, "7h30m")),
    ("record_body", [], {"weight_kg": "130斤"}, ("list", "list_health", {"kind": "body"}, "weight_kg=65")),
    ("record_medicine", [], {"medicine": "布洛芬", "dose": "一片"}, ("list", "list_health", {"kind": "medicine"}, "布洛芬 一片")),
    ("record_period", [], {"start": "昨天", "flow": "medium"}, ("list", "list_health", {"kind": "period"}, "2026-03-03 → …")),
    ("record_health", [], {"metric": "血压", "value": "120/80", "unit": "mmHg"},
     ("list", "list_health", {"metric": "血压"}, "血压 120/80 mmHg")),
    ("list_health", [("record_health", {"metric": "heart rate", "value": 72})], {"kind": "metric"}, ("says", "heart rate 72")),
    ("get_focus_today", [("create_task", {"content": "交水电费", "due": "今天"})], {}, ("says", "今天到期：交水电费")),
    # goal & achievement
    ("create_goal", [], {"title": "读书", "target": 12, "unit": "本", "deadline": "年底"},
     ("list", "list_goals", {}, "读书：0/12本（0%） · 截止 2026-12-31")),
    # a period said whole is a deadline at its end, not today: "今年读20本书", "by this month"
    ("create_goal", [], {"title": "读书", "target": 20, "unit": "本", "deadline": "今年"},
     ("list", "list_goals", {}, "读书：0/20本（0%） · 截止 2026-12-31")),
    ("create_goal", [], {"title": "run 100 km", "target": 100, "deadline": "this month"},
     ("list", "list_goals", {}, "截止 2026-03-31")),
    ("list_goals", SETUP_GOAL, {"query": "读"}, ("says", "读书")),
    ("update_goal_progress", SETUP_GOAL, {"title": "读书", "add": 6}, ("list", "list_goals", {}, "6/12本（50%）")),
    ("list_achievements", [*SETUP_GOAL, ("update_goal_progress", {"title": "读书", "progress": 12})], {},
     ("says", "完成目标「读书」")),
    # life tools
    ("add_shopping_item", [], {"item": "酸奶", "quantity": "两盒"}, ("list", "list_shopping", {}, "酸奶 两盒")),
    ("list_shopping", SETUP_SHOP, {}, ("says", "牛奶")),
    ("mark_shopping_bought", SETUP_SHOP, {"item": "牛奶", "price": 12}, ("list", "list_shopping", {"status": "bought"}, "牛奶 ✓ 2026-03-04")),
    ("add_wishlist_item", [], {"item": "Switch", "price": "2099元"}, ("list", "list_wishlist", {}, "Switch ¥2,099.00")),
    ("list_wishlist", [("add_wishlist_item", {"item": "Kindle"})], {}, ("says", "Kindle")),
    ("list_countdowns", [("create_countdown", {"title": "旅行", "date": "5月1日"})], {}, ("says", "还有 58 天")),
    ("create_countdown", [], {"title": "trip to Japan", "date": "July 20"}, ("list", "list_countdowns", {}, "trip to Japan（2026-07-20）：还有 138 天")),
    ("delete_countdown", [("create_countdown", {"title": "考试", "date": "6月7日"})], {"title": "考试"},
     ("sql", "SELECT COUNT(*) FROM countdowns", 0)),
    ("create_memo", [], {"content": "记得关窗", "pinned": True}, ("list", "list_memos", {}, "📌 #1 记得关窗")),
    ("list_memos", [("create_memo", {"content": "dog fed"})], {}, ("says", "dog fed")),
    ("list_channels", [], {}, ("says", "[http] 厨房平板")),
    ("record_trajectory", [], {"place": "西湖", "time": "今天下午"}, ("list", "list_trajectories", {}, "西湖")),
    ("list_trajectories", [("record_trajectory", {"place": "the Louvre"})], {"query": "louvre"}, ("says", "the Louvre")),
    ("get_today_summary", [*SETUP_TASK, ("record_water", {"amount": "一杯"}), ("record_transaction", {"amount": 35, "note": "午饭"})],
     {}, ("says", "喝水：250/2000 毫升")),
    # inventory
    ("list_inventory", [("create_inventory_item", {"item": "螺丝刀", "location": "工具箱"})], {"query": "螺丝刀"},
     ("says", "螺丝刀 ×1 @ 工具箱")),
    ("create_inventory_item", [], {"item": "olive oil", "quantity": 3, "unit": " bottles", "location": "pantry", "expires": "2026-12-01"},
     ("list", "list_inventory", {"location": "pantry"}, "olive oil ×3 bottles @ pantry · expires 2026-12-01")),
    ("delete_inventory_item", [("create_inventory_item", {"item": "旧打印机"})], {"item": "打印机"},
     ("sql", "SELECT COUNT(*) FROM inventory_items", 0)),
    ("record_item_lend", [("create_inventory_item", {"item": "相机"})], {"item": "相机", "person": "小李", "due": "下周五"},
     ("list", "list_inventory", {}, "相机 ×1 · 借给了小李")),
    ("record_money_lend", [], {"person": "小王", "amount": "500块"},
     ("sql", "SELECT person || ':' || amount_minor || ':' || direction FROM money_lends", "小王:50000:lent")),
    # mode & extras
    ("switch_mode", [], {"mode": "睡眠模式"}, ("list", "get_current_mode", {}, "当前是 sleep 模式")),
    ("get_current_mode", [], {}, ("says", "home")),
    ("record_dream", [], {"content": "梦见在海边跑步", "date": "昨晚"}, ("sql", "SELECT day FROM dreams", "2026-03-03")),
    ("record_movie", [], {"title": "《让子弹飞》", "rating": "8"}, ("sql", "SELECT title || ':' || rating FROM media", "让子弹飞:8.0")),
    ("add_birthday", [], {"person": "妈妈", "date": "3月8日"}, ("list", "list_birthdays", {}, "妈妈：3月8日（4 天后）")),
    ("list_birthdays", [("add_birthday", {"person": "Tom", "date": "1990-03-05"})], {"within_days": 30}, ("says", "Tom：3月5日（1 天后，满 36 岁）")),
    ("list_subscriptions", [("record_transaction", {"amount": 15, "currency": "USD", "note": "Netflix", "recurring": "monthly"})],
     {}, ("says", "Netflix：$15.00/monthly，下次扣费 2026-04-04")),
    ("add_book", [], {"title": "三体", "author": "刘慈欣"}, ("sql", "SELECT title || '/' || status FROM books", "三体/want")),
    ("create_study_plan", [], {"subject": "日语", "minutes_per_day": 20, "end": "年底"},
     ("sql", "SELECT subject || ':' || end_day FROM study_plans", "日语:2026-12-31")),
    ("create_idea", [], {"content": "做一个自动浇花器", "tags": ["diy", "园艺"]}, ("sql", "SELECT tags FROM ideas", '["diy", "园艺"]')),
    ("record_pet_activity", [], {"pet": "旺财", "activity": "遛狗", "time": "早上7点"},
     ("sql", "SELECT at FROM pet_activities", "2026-03-04T07:00:00+08:00")),
    ("record_plant_watering", [("record_plant_watering", {"plant": "绿萝", "time": "3天前"})], {"plant": "绿萝"}, ("says", "距上次浇水 3 天")),
    ("add_recipe", [], {"dish": "番茄炒蛋", "ingredients": ["番茄", "鸡蛋"]}, ("sql", "SELECT ingredients FROM recipes", '["番茄", "鸡蛋"]')),
    ("record_medical", [], {"reason": "看牙", "hospital": "市一医院", "cost": 300},
     ("sql", "SELECT reason || ':' || cost_minor FROM medical_visits", "看牙:30000")),
    ("add_person", [], {"person": "王老师", "phone": "13912345678"}, ("sql", "SELECT name || ':' || phone FROM people", "王老师:13912345678")),
    ("add_address", [], {"label": "公司", "address": "科技园路10号"}, ("sql", "SELECT address FROM addresses", "科技园路10号")),
    ("add_coupon", [], {"title": "满50减10", "store": "麦当劳", "expires": "月底"},
     ("sql", "SELECT store || ':' || expires FROM coupons", "麦当劳:2026-03-31")),
]

# (action, arguments, the field the error must name)
INVALID: list[tuple[str, dict, str]] = [
    ("create_task", {"due": "明天"}, "content"), ("complete_task", {"id": "three"}, "id"),
    ("list_tasks", {"status": "finished"}, "status"), ("update_task", {"content": "x", "due": "下下下周八"}, "due"),
    ("delete_task", {}, "content"), ("create_event", {"title": "开会"}, "start"),
    ("list_events", {"from": "whenever-ish"}, "from"), ("update_event", {"id": 0}, "id"),
    ("delete_event", {"title": 5}, "title"), ("check_in_habit", {"habit": "冥想", "date": "后天"}, "date"),
    ("create_habit", {"habit": "x", "frequency": "hourly"}, "frequency"), ("list_habits", {"query": 1}, "query"),
    ("update_habit", {"habit": "x", "target": 0}, "target"), ("delete_habit", {"id": -1}, "id"),
    ("create_note", {"content": ""}, "content"), ("list_notes", {"kind": "memo"}, "kind"),
    ("update_note", {"title": "x", "tags": "a"}, "tags"), ("delete_note", {"bogus": 1}, "bogus"),
    ("write_diary", {"content": "x", "date": "someday maybe"}, "date"),
    ("record_transaction", {"amount": "很多钱"}, "amount"), ("list_transactions", {"type": "gift"}, "type"),
    ("record_mood", {"mood": "ok", "score": 9}, "score"), ("list_moods", {"limit": 500}, "limit"),
    ("record_diet", {"food": "面", "meal": "brunch"}, "meal"), ("list_diets", {"offset": -1}, "offset"),
    ("record_water", {"amount": "一大桶"}, "amount"), ("list_water", {"to": "never"}, "to"),
    ("record_sleep", {"hours": "很久"}, "hours"), ("record_body", {"weight_kg": 900}, "weight_kg"),
    ("record_medicine", {"dose": "1片"}, "medicine"), ("record_period", {"start": "明天", "end": "昨天"}, "end"),
    ("record_health", {"metric": "血压", "value": "高"}, "value"), ("list_health", {"kind": "teeth"}, "kind"),
    ("get_focus_today", {"bogus": True}, "bogus"), ("create_goal", {"target": 5}, "title"),
    ("list_goals", {"status": "paused"}, "status"), ("update_goal_progress", {"title": "x"}, "add"),
    ("list_achievements", {"limit": 0}, "limit"), ("add_shopping_item", {"quantity": "2"}, "item"),
    ("list_shopping", {"status": "lost"}, "status"), ("mark_shopping_bought", {"item": "牛奶", "price": "free-ish"}, "price"),
    ("add_wishlist_item", {"item": "x", "priority": "urgent"}, "priority"), ("list_wishlist", {"query": []}, "query"),
    ("list_countdowns", {"include_past": "yes"}, "include_past"), ("create_countdown", {"title": "x"}, "date"),
    ("delete_countdown", {}, "title"), ("create_memo", {"pinned": True}, "content"),
    ("list_memos", {"limit": "ten"}, "limit"), ("list_channels", {"bogus": 1}, "bogus"),
    ("record_trajectory", {"place": "x", "latitude": 200}, "latitude"), ("list_trajectories", {"from": "??"}, "from"),
    ("get_today_summary", {"date": "not a date"}, "date"), ("web_search", {}, "query"),
    ("list_inventory", {"location": 3}, "location"), ("create_inventory_item", {"item": "x", "quantity": "lots"}, "quantity"),
    ("delete_inventory_item", {}, "item"), ("record_item_lend", {"item": "相机"}, "person"),
    ("record_money_lend", {"person": "小王", "amount": "0"}, "amount"), ("switch_mode", {"mode": "vacation"}, "mode"),
    ("get_current_mode", {"mode": "x"}, "mode"), ("record_dream", {"mood": "odd"}, "content"),
    ("record_movie", {"title": "x", "rating": 11}, "rating"), ("add_birthday", {"person": "x", "date": "2月30日"}, "date"),
    ("list_birthdays", {"within_days": 400}, "within_days"), ("list_subscriptions", {"query": 5}, "query"),
    ("add_book", {"title": "x", "status": "burned"}, "status"), ("create_study_plan", {"subject": "x", "minutes_per_day": 0}, "minutes_per_day"),
    ("create_idea", {"tags": ["x"]}, "content"), ("record_pet_activity", {"pet": "猫"}, "activity"),
    ("record_plant_watering", {"plant": "x", "amount_ml": -5}, "amount_ml"), ("add_recipe", {"ingredients": "x"}, "dish"),
    ("record_medical", {"reason": "x", "cost": "abc"}, "cost"), ("add_person", {"person": "x", "phone": "call me"}, "phone"),
    ("add_address", {"label": "家"}, "address"), ("add_coupon", {"title": "x", "expires": "eventually"}, "expires"),
]


def test_tables_cover_every_action() -> None:
    names = {d.name for d in action_definitions()}
    # web_search's effect needs a search backend: it has its own tests below.
    assert {c[0] for c in VALID} == names - {"web_search"}
    assert {c[0] for c in INVALID} == names and len(INVALID) == 75


@pytest.mark.parametrize(("name", "setup", "args", "check"), VALID, ids=[c[0] for c in VALID])
async def test_valid_arguments_have_a_visible_effect(env: Env, name: str, setup: list, args: dict, check: tuple) -> None:
    for setup_name, setup_args in setup:
        await env.ok(setup_name, **setup_args)
    answer = await env.ok(name, **args)
    if check[0] == "says":
        assert check[1] in answer, answer
    elif check[0] == "list":
        listed = await env.ok(check[1], **check[2])
        assert check[3] in listed, listed
    else:
        rows = await env.db.fetchall(check[1])
        assert rows and rows[0][0] == check[2], [tuple(r) for r in rows]


async def _counts(env: Env) -> dict[str, int]:
    tables = [r["name"] for r in await env.rows("SELECT name FROM sqlite_master WHERE type = 'table' "
                                                "AND name NOT IN ('schema_migrations', 'sqlite_sequence', 'devices')")]
    return {t: (await env.rows(f"SELECT COUNT(*) AS n FROM {t}"))[0]["n"] for t in tables}


@pytest.mark.parametrize(("name", "args", "field"), INVALID, ids=[c[0] for c in INVALID])
async def test_invalid_arguments_name_the_field_and_write_nothing(env: Env, name: str, args: dict, field: str) -> None:
    await env.ok("create_note", content="x")  # something to match, so lookups fail on the field
    before = await _counts(env)
    result = await env.run(name, **args)
    assert not result.ok
    assert result.content.startswith("error:") and field in result.content, result.content
    assert "Traceback" not in result.content
    assert await _counts(env) == before


async def test_english_arguments_get_english_answers(env: Env) -> None:
    answer = await env.ok("create_task", content="call the plumber", due="Friday 3pm")
    assert answer == "Created task #1: call the plumber, due 2026-03-06 15:00."
    assert "1 tasks, showing 1–1" in await env.ok("list_tasks", query="plumber")


async def test_list_actions_filter_by_date_range_status_keyword_and_page(env: Env) -> None:
    for n in range(1, 13):
        await env.ok("create_task", content=f"任务{n:02d}", due=f"3月{n}日")
    await env.ok("complete_task", content="任务05")
    page1 = await env.ok("list_tasks", limit=5)
    assert "共 11 条任务，第 1–5 条" in page1 and "offset=5" in page1 and "任务05" not in page1
    page3 = await env.ok("list_tasks", limit=5, offset=10)
    assert "第 11–11 条" in page3 and "offset=" not in page3
    ranged = await env.ok("list_tasks", status="all", **{"from": "3月4日", "to": "3月6日"})
    assert [t in ranged for t in ("任务04", "任务05", "任务06", "任务07")] == [True, True, True, False]
    assert "共 1 条" in await env.ok("list_tasks", query="任务12")


async def test_ambiguous_match_lists_the_candidates(env: Env) -> None:
    await env.ok("create_task", content="提交周报草稿")
    await env.ok("create_task", content="提交周报终稿")
    result = await env.run("complete_task", content="周报")
    assert not result.ok and "#1 提交周报草稿" in result.content and "#2 提交周报终稿" in result.content
    assert "提交周报终稿" in await env.ok("complete_task", id=2)


async def test_habit_streaks_and_achievements_are_derived(env: Env) -> None:
    for _ in range(7):
        await env.ok("check_in_habit", habit="冥想")
        env.clock.advance(days=1)
    listed = await env.ok("list_habits")
    assert "连续 7 天（最长 7）" in listed and "今天未打卡" in listed
    achievements = await env.ok("list_achievements")
    assert "「冥想」连续打卡 3 天" in achievements and "「冥想」连续打卡 7 天" in achievements
    env.clock.advance(days=2)
    assert "连续 0 天（最长 7）" in await env.ok("list_habits")


async def test_household_mode_is_readable_by_other_parts_and_survives(env: Env, tmp_path: Path) -> None:
    heard: list[tuple[str, str]] = []
    env.modes.subscribe(lambda old, new: heard.append((old, new)))
    await env.ok("switch_mode", mode="party")
    assert await env.modes.current() == "party" and heard == [("home", "party")]
    fresh = HouseholdMode(env.db, env.clock, ("home", "away", "sleep", "guest", "party"))
    assert await fresh.current() == "party"


async def test_private_records_are_only_visible_to_their_member(env: Env) -> None:
    env.member = "alice"
    await env.ok("write_diary", content="alice 的秘密")
    await env.ok("create_note", content="alice private note", private=True)
    await env.ok("create_note", content="shared note")
    await env.ok("record_health", metric="血压", value="120/80")
    env.member = "bob"
    assert "秘密" not in await env.ok("list_notes", kind="diary")
    notes = await env.ok("list_notes")
    assert "shared note" in notes and "private" not in notes
    assert "120/80" not in await env.ok("list_health")
    denied = await env.run("update_note", id=1, append="bob was here")
    assert not denied.ok
    env.member = "alice"
    assert "秘密" in await env.ok("list_notes", kind="diary")


async def test_concurrent_calls_each_land_once(env: Env) -> None:
    async with anyio.create_task_group() as tg:
        for n in range(20):
            tg.start_soon(functools.partial(env.ok, "record_water", amount=100 + n))
    assert (await env.rows("SELECT COUNT(*) AS n, SUM(amount_ml) AS ml FROM water_logs"))[0] == {"n": 20, "ml": 2190}


# -- web_search ------------------------------------------------------------------------


async def test_web_search_without_a_backend_says_it_needs_one(env: Env) -> None:
    result = await env.run("web_search", query="天气")
    assert not result.ok and "需要搜索服务和网络" in result.content


async def _fake_searxng(results: list[dict], status: int = 200):
    seen: list[dict[str, str]] = []

    async def search(request: aiohttp.web.Request) -> aiohttp.web.Response:
        seen.append(dict(request.query))
        if status != 200:
            return aiohttp.web.Response(status=status, text="forbidden")
        return aiohttp.web.json_response({"query": request.query.get("q"), "results": results})

    app = aiohttp.web.Application()
    app.router.add_get("/search", search)
    runner = aiohttp.web.AppRunner(app)
    await runner.setup()
    site = aiohttp.web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}", seen


async def test_web_search_queries_a_searxng_json_api(tmp_path: Path) -> None:
    runner, url, seen = await _fake_searxng([
        {"title": "杭州天气", "url": "https://example.org/hz", "content": "明天晴，12–20°C"},
        {"title": "Other", "url": "https://example.org/2", "content": "x"},
        {"title": "no url"},
    ])
    try:
        async with Database(tmp_path / "s.db", (*MIGRATIONS, *ACTION_MIGRATIONS)) as db:
            registry = ToolRegistry()
            register_actions(registry, db=db, clock=FakeClock(NOW), settings=ActionSettings(search_url=url))
            ctx = ToolContext("t", "test", now=FakeClock(NOW).now)
            result = await registry.execute(ToolCall("c", "web_search", '{"query": "明天杭州天气", "limit": 5}'), ctx)
            assert result.ok, result.content
            assert "1. 杭州天气 — https://example.org/hz" in result.content and "明天晴" in result.content
            assert "no url" not in result.content
            assert seen == [{"q": "明天杭州天气", "format": "json"}]
    finally:
        await runner.cleanup()


async def test_web_search_backend_errors_are_readable(tmp_path: Path) -> None:
    runner, url, _ = await _fake_searxng([], status=403)
    try:
        async with Database(tmp_path / "s.db", (*MIGRATIONS, *ACTION_MIGRATIONS)) as db:
            registry = ToolRegistry()
            register_actions(registry, db=db, clock=FakeClock(NOW), settings=ActionSettings(search_url=url))
            ctx = ToolContext("t", "test", now=FakeClock(NOW).now)
            result = await registry.execute(ToolCall("c", "web_search", '{"query": "x"}'), ctx)
            assert not result.ok and "HTTP 403" in result.content and "json" in result.content
    finally:
        await runner.cleanup()
    async with Database(tmp_path / "t.db", (*MIGRATIONS, *ACTION_MIGRATIONS)) as db:
        registry = ToolRegistry()
        register_actions(registry, db=db, clock=FakeClock(NOW), settings=ActionSettings(search_url=url))
        ctx = ToolContext("t", "test", now=FakeClock(NOW).now)
        result = await registry.execute(ToolCall("c", "web_search", '{"query": "x"}'), ctx)
        assert not result.ok and "cannot be reached" in result.content  # the server is gone now
