"""Event and habit actions: the calendar, habits and their daily check-ins with streaks."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from homeagent.actions.base import (
    ID,
    LIST,
    ActionRegistry,
    Call,
    Category,
    Deps,
    boolean,
    enum,
    i,
    repeat,
    s,
    when,
)
from homeagent.actions.repeat import show_repeat
from homeagent.actions.sql import Where, delete, find, insert, page, rows, show_when, update
from homeagent.errors import ToolValidationError
from homeagent.store import Database
from homeagent.tools.registry import Permission, ToolOutput

CATEGORY = Category("event_habit")
EVENT = ("日程", "events")
HABIT = ("习惯", "habits")


def render_event(row: dict[str, Any], lang: str = "zh") -> str:
    start = row["start"] if not row.get("all_day") else row["day"]
    text = f"#{row['id']} {show_when(start)} {row['title']}"
    if row.get("end") and not row.get("all_day"):
        text += f"–{show_when(row['end'])[11:]}"
    if row.get("location"):
        text += f" @ {row['location']}"
    if row.get("repeat"):
        text += f" · {show_repeat(row['repeat'], lang)}"
    return text


@CATEGORY.define(
    "create_event",
    "创建日程（会议、约会、活动）/ Put an event on the calendar (meeting, appointment, outing)",
    {
        "title": s("日程标题 / what the event is"),
        "start": when("开始时间 / when it starts"),
        "end": when("结束时间 / when it ends"),
        "duration_minutes": i("时长（分钟）/ length in minutes", 1, 24 * 60 * 14),
        "location": s("地点 / where"),
        "notes": s("备注 / notes"),
        "remind_minutes": i("提前几分钟提醒 / remind this many minutes before", 0, 10080),
        "repeat": repeat("重复 / how it repeats"),
    },
    required=["title", "start"],
    examples=[
        ("帮我安排周五下午3点开会", {"title": "开会", "start": "周五下午3点"}),
        ("Schedule a dentist appointment next Tuesday at 10am", {"title": "dentist appointment", "start": "next Tuesday 10am"}),
        ("明天晚上7点和老王吃饭，在海底捞", {"title": "和老王吃饭", "start": "明天晚上7点", "location": "海底捞"}),
    ],
    featured=1,
)
async def create_event(c: Call) -> ToolOutput:
    title = c.need("title")
    rule = c.repeat()
    start = c.first_due("start", rule)
    if start is None:
        raise ToolValidationError("start: required; e.g. 2026-03-06 15:00 or 周五下午3点")
    end = c.when("end")
    if end is None and c.args.get("duration_minutes") and start.has_time:
        end_value = start.value + timedelta(minutes=int(c.args["duration_minutes"]))
        end_iso: str | None = end_value.isoformat(timespec="seconds")
    else:
        end_iso = end.iso() if end else None
    if end_iso and start.has_time and end_iso < start.iso():
        raise ToolValidationError("end: the event would end before it starts")
    row = {
        "title": title, "start": start.iso(), "end": end_iso, "day": start.day.isoformat(),
        "all_day": 0 if start.has_time else 1, "location": c.text("location", ""),
        "notes": c.text("notes", ""), "remind_minutes": c.args.get("remind_minutes"),
        "repeat": rule.code() if rule else "", **c.stamp(),
    }
    row_id = await insert(c.db, "events", row)
    when_text = show_when(start.iso()) + ("" if start.has_time else c.t("（全天）", " (all day)"))
    if rule:
        when_text += f"，{show_repeat(rule.code(), 'zh')}" if c.lang == "zh" else f", {show_repeat(rule.code(), 'en')}"
    return c.done(f"已创建日程 #{row_id}：{title}，{when_text}。",
                  f"Created event #{row_id}: {title}, {when_text}.", {"id": row_id, **row})


@CATEGORY.define(
    "list_events",
    "查询日程，默认从今天起 7 天 / List calendar events, by default the next 7 days",
    LIST,
    permission=Permission.READ,
    examples=[
        ("我明天有什么安排", {"from": "明天", "to": "明天"}),
        ("What's on my calendar this week?", {"from": "this week"}),
        ("下周有哪些日程", {"from": "下周"}),
    ],
)
async def list_events(c: Call) -> ToolOutput:
    start, end = c.range()
    if start is None and end is None:
        start, end = c.today, c.today + timedelta(days=6)
    where = Where().between("day", start, end).keyword(["title", "location", "notes"], c.text("query"))
    limit, offset = c.page()
    found, total = await page(c.db, "events", where, "start, id", limit, offset)
    return c.listing(EVENT, found, total, lambda r: render_event(dict(r), c.lang), offset=offset)


@CATEGORY.define(
    "update_event",
    "修改日程的时间、标题、地点 / Change an event's time, title or place",
    {
        "id": ID,
        "title": s("日程标题里的词，用来找到日程 / words of the event's title, to find it"),
        "new_title": s("新标题 / new title"),
        "start": when("新的开始时间 / new start"),
        "end": when("新的结束时间 / new end"),
        "location": s("新地点 / new place"),
        "notes": s("新备注 / new notes"),
        "repeat": repeat("新的重复规则，none 表示不再重复 / how it repeats now; none to stop"),
    },
    examples=[
        ("把开会改到下午4点", {"title": "开会", "start": "下午4点"}),
        ("Move the dentist appointment to Thursday 2pm", {"title": "dentist", "start": "Thursday 2pm"}),
    ],
)
async def update_event(c: Call) -> ToolOutput:
    row = await find(c, "events", "title", noun=EVENT, order=f"day >= '{c.today.isoformat()}' DESC, start")
    changes: dict[str, Any] = {}
    if c.text("new_title"):
        changes["title"] = c.text("new_title")
    start = c.when("start")
    if start:
        if not start.has_time and not row["all_day"] and "T" in row["start"]:
            # "move it to Thursday" keeps the time of day.
            start_iso = start.day.isoformat() + row["start"][10:]
            changes.update(start=start_iso, day=start.day.isoformat())
        else:
            changes.update(start=start.iso(), day=start.day.isoformat(), all_day=0 if start.has_time else 1)
    end = c.when("end")
    if end:
        changes["end"] = end.iso()
    for key in ("location", "notes"):
        if c.text(key) is not None:
            changes[key] = c.text(key)
    if "repeat" in c.args:
        rule = c.repeat()
        changes["repeat"] = rule.code() if rule else ""
    if not changes:
        return c.done("没有要修改的内容：请给出 new_title、start、end、location、notes 或 repeat。",
                      "Nothing to change: give new_title, start, end, location, notes or repeat.")
    await update(c.db, "events", row["id"], changes)
    merged = render_event({**row, **changes}, c.lang)
    return c.done(f"已更新日程：{merged}。", f"Updated event: {merged}.",
                  {"id": row["id"], **changes, "before": {k: row.get(k) for k in changes}})


@CATEGORY.define(
    "delete_event",
    "删除（取消）一个日程 / Delete (cancel) an event",
    {"id": ID, "title": s("日程标题里的词 / words of the event's title")},
    permission=Permission.DELETE,
    examples=[("取消周五的会议", {"title": "会议"}), ("Cancel the dentist appointment", {"title": "dentist"})],
)
async def delete_event(c: Call) -> ToolOutput:
    row = await find(c, "events", "title", noun=EVENT, order=f"day >= '{c.today.isoformat()}' DESC, start")
    undo = await delete(c.db, "events", row["id"])
    return c.done(f"已删除日程 #{row['id']}：{row['title']}（{show_when(row['start'])}）。",
                  f"Deleted event #{row['id']}: {row['title']} ({show_when(row['start'])}).", {"id": row["id"], "undo": undo})


# -- habits ----------------------------------------------------------------------------


async def habit_stats(db: Database, today: date, member: str = "") -> list[dict[str, Any]]:
    """Every active habit with its current and best streak, total and today's state."""
    habits = await rows(db, "SELECT * FROM habits WHERE status != 'archived' ORDER BY id")
    days = await rows(db, "SELECT habit_id, day FROM habit_checkins ORDER BY day")
    by_habit: dict[int, list[date]] = {}
    for r in days:
        by_habit.setdefault(r["habit_id"], []).append(date.fromisoformat(r["day"]))
    out = []
    for h in habits:
        checked = sorted(set(by_habit.get(h["id"], [])))
        current, best = _streaks(checked, today, h["frequency"], h["target"])
        out.append({**h, "streak": current, "best_streak": best, "total": len(by_habit.get(h["id"], [])),
                    "checked_today": bool(checked and checked[-1] == today)})
    return out


def _streaks(days: list[date], today: date, frequency: str, target: int) -> tuple[int, int]:
    """Consecutive days (daily) or weeks with at least `target` check-ins (weekly)."""
    if frequency == "weekly":
        weeks: dict[date, int] = {}
        for d in days:
            monday = d - timedelta(days=d.weekday())
            weeks[monday] = weeks.get(monday, 0) + 1
        units = sorted(w for w, n in weeks.items() if n >= max(1, target))
        step = timedelta(days=7)
        latest_ok = today - timedelta(days=today.weekday())
    else:
        units, step, latest_ok = days, timedelta(days=1), today
    best = run = 0
    prev: date | None = None
    for u in units:
        run = run + 1 if prev is not None and u - prev == step else 1
        best = max(best, run)
        prev = u
    current = 0
    if units and units[-1] >= latest_ok - step:
        current = 1
        for a, b in zip(reversed(units[:-1]), reversed(units[1:]), strict=False):
            if b - a != step:
                break
            current += 1
    return current, best


@CATEGORY.define(
    "create_habit",
    "创建一个要坚持的习惯 / Start tracking a habit",
    {
        "habit": s("习惯名称 / the habit"),
        "frequency": enum("频率：daily 每天、weekly 每周 / daily or weekly", "daily", "weekly"),
        "target": i("每个周期打卡几次 / check-ins per period", 1, 50),
        "note": s("备注 / note"),
        "remind_at": when("每天几点提醒打卡 / the time of day to be reminded"),
    },
    required=["habit"],
    examples=[
        ("我想养成每天跑步的习惯", {"habit": "跑步", "frequency": "daily"}),
        ("养成练字的习惯，晚上9点提醒打卡", {"habit": "练字", "frequency": "daily", "remind_at": "晚上9点"}),
        ("New habit: stretch every morning", {"habit": "stretch", "frequency": "daily"}),
        ("Track a habit: read 20 pages, three times a week", {"habit": "read 20 pages", "frequency": "weekly", "target": 3}),
    ],
)
async def create_habit(c: Call) -> ToolOutput:
    name = c.need("habit")
    existing = await rows(c.db, "SELECT id FROM habits WHERE name = ? AND status != 'archived'", (name,))
    if existing:
        return c.done(f"习惯「{name}」已经存在（#{existing[0]['id']}）。",
                      f"The habit {name!r} already exists (#{existing[0]['id']}).",
                      {"id": existing[0]["id"], "name": name, "existing": True})
    row = {"name": name, "frequency": c.text("frequency", "daily"), "target": int(c.args.get("target") or 1),
           "note": c.text("note", ""), "remind_at": _remind_at(c), **c.stamp()}
    row_id = await insert(c.db, "habits", row)
    remind = c.t(f"，每天 {row['remind_at']} 提醒", f", reminded at {row['remind_at']}") if row["remind_at"] else ""
    return c.done(f"已创建习惯 #{row_id}：{name}（{'每天' if row['frequency'] == 'daily' else '每周'} {row['target']} 次）{remind}。",
                  f"Created habit #{row_id}: {name} ({row['target']}× {row['frequency']}){remind}.", {"id": row_id, **row})


def _remind_at(c: Call) -> str | None:
    """The habit's reminder time as HH:MM (from "21:00", "晚上9点", "9pm")."""
    found = c.when("remind_at")
    if found is None:
        return None
    if not found.has_time:
        raise ToolValidationError("remind_at: expected a time of day, e.g. 21:00 or 晚上9点")
    return found.value.strftime("%H:%M")


@CATEGORY.define(
    "check_in_habit",
    "习惯打卡（没有这个习惯时会自动创建）/ Check in a habit for a day (creates the habit if new)",
    {
        "id": ID,
        "habit": s("习惯名称 / the habit"),
        "date": when("打卡日期，默认今天 / the day, default today"),
        "note": s("备注 / note"),
    },
    examples=[
        ("我今天冥想打卡", {"habit": "冥想"}),
        ("I went for my run today", {"habit": "run"}),
        ("昨天的背单词补个卡", {"habit": "背单词", "date": "昨天"}),
    ],
    featured=1,
)
async def check_in_habit(c: Call) -> ToolOutput:
    day = c.day("date", prefer="past") or c.today
    if day > c.today:
        raise ToolValidationError("date: cannot check in for a future day")
    created = False
    if c.args.get("id") is None and c.text("habit"):
        name = c.need("habit")
        found = await rows(c.db, "SELECT * FROM habits WHERE name = ? AND status != 'archived'", (name,))
        if not found:
            where = Where().add("status != 'archived'").keyword(["name"], name)
            found = await rows(c.db, f"SELECT * FROM habits{where.sql()}", where.params)
        if len(found) > 1:
            habit = await find(c, "habits", "name", text_key="habit", noun=HABIT, where=["status != 'archived'"])
        elif found:
            habit = found[0]
        else:
            row = {"name": name, "frequency": "daily", "target": 1, "note": "", **c.stamp()}
            habit = {"id": await insert(c.db, "habits", row), **row}
            created = True
    else:
        habit = await find(c, "habits", "name", text_key="habit", noun=HABIT, where=["status != 'archived'"])
    await insert(c.db, "habit_checkins", {"habit_id": habit["id"], "day": day.isoformat(),
                                          "note": c.text("note", ""), **c.stamp()})
    stats = next(h for h in await habit_stats(c.db, c.today) if h["id"] == habit["id"])
    new = c.t(f"（新建习惯 #{habit['id']}）", f" (new habit #{habit['id']})") if created else ""
    return c.done(
        f"已打卡：{habit['name']}，{day.isoformat()}{new}。连续 {stats['streak']} 天，累计 {stats['total']} 次。",
        f"Checked in {habit['name']} for {day.isoformat()}{new}. Streak {stats['streak']}, {stats['total']} in all.",
        {"habit_id": habit["id"], "day": day.isoformat(), "streak": stats["streak"]},
    )


@CATEGORY.define(
    "list_habits",
    "查询习惯及连续打卡天数 / List habits with their streaks and today's check-in",
    {"query": s("关键词 / keyword"), "include_archived": boolean("包含已归档的 / include archived habits")},
    permission=Permission.READ,
    examples=[("我的习惯坚持得怎么样", {}), ("Which habits haven't I done today?", {})],
)
async def list_habits(c: Call) -> ToolOutput:
    stats = await habit_stats(c.db, c.today)
    if c.args.get("include_archived"):
        archived = await rows(c.db, "SELECT * FROM habits WHERE status = 'archived'")
        stats += [{**a, "streak": 0, "best_streak": 0, "total": 0, "checked_today": False} for a in archived]
    q = (c.text("query") or "").casefold()
    stats = [h for h in stats if q in h["name"].casefold()]

    def render(h: Any) -> str:
        today = c.t("今天已打卡", "done today") if h["checked_today"] else c.t("今天未打卡", "not yet today")
        return c.t(f"#{h['id']} {h['name']}：连续 {h['streak']} 天（最长 {h['best_streak']}），累计 {h['total']} 次，{today}",
                   f"#{h['id']} {h['name']}: streak {h['streak']} (best {h['best_streak']}), {h['total']} check-ins, {today}")

    return c.listing(HABIT, stats, len(stats), render)


@CATEGORY.define(
    "update_habit",
    "修改习惯的名称、频率、目标或状态（暂停/归档）/ Change a habit's name, frequency, target or status",
    {
        "id": ID,
        "habit": s("习惯名称，用来找到习惯 / the habit's name, to find it"),
        "new_name": s("新名称 / new name"),
        "frequency": enum("daily 或 weekly / daily or weekly", "daily", "weekly"),
        "target": i("每个周期打卡几次 / check-ins per period", 1, 50),
        "status": enum("active 进行中、paused 暂停、archived 归档", "active", "paused", "archived"),
        "remind_at": when("每天几点提醒打卡 / the time of day to be reminded"),
    },
    examples=[("跑步改成每周三次", {"habit": "跑步", "frequency": "weekly", "target": 3}),
              ("Pause my reading habit", {"habit": "reading", "status": "paused"})],
)
async def update_habit(c: Call) -> ToolOutput:
    habit = await find(c, "habits", "name", text_key="habit", noun=HABIT)
    changes = {k: c.args[k] for k in ("frequency", "target", "status") if c.args.get(k) is not None}
    if c.text("new_name"):
        changes["name"] = c.text("new_name")
    if c.text("remind_at"):
        changes["remind_at"] = _remind_at(c)
    if not changes:
        return c.done("没有要修改的内容。", "Nothing to change: give new_name, frequency, target, status or remind_at.")
    await update(c.db, "habits", habit["id"], changes)
    return c.done(f"已更新习惯 #{habit['id']}：{ {**habit, **changes}['name'] }。",
                  f"Updated habit #{habit['id']}: { {**habit, **changes}['name'] }.", {"id": habit["id"], **changes})


@CATEGORY.define(
    "delete_habit",
    "删除一个习惯及其打卡记录 / Delete a habit and its check-ins",
    {"id": ID, "habit": s("习惯名称 / the habit's name")},
    permission=Permission.DELETE,
    examples=[("不再记录冥想这个习惯了，删掉吧", {"habit": "冥想"}), ("Delete the habit floss", {"habit": "floss"})],
)
async def delete_habit(c: Call) -> ToolOutput:
    habit = await find(c, "habits", "name", text_key="habit", noun=HABIT)
    undo = await delete(c.db, "habits", habit["id"])
    return c.done(f"已删除习惯 #{habit['id']}：{habit['name']}。",
                  f"Deleted habit #{habit['id']}: {habit['name']}.", {"id": habit["id"], "undo": undo})


def register(registry: ActionRegistry, deps: Deps | None) -> None:
    """Hand the event and habit actions to `registry` (`deps` is None when they are only listed)."""
    registry.add(
        create_event,
        list_events,
        update_event,
        delete_event,
        create_habit,
        check_in_habit,
        list_habits,
        update_habit,
        delete_habit,
    )
