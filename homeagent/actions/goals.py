"""Goal actions, and achievements derived from habit streaks, goals and finished tasks."""

from __future__ import annotations

from typing import Any

from homeagent.actions.base import (
    ID,
    PAGE,
    ActionRegistry,
    Call,
    Category,
    Deps,
    enum,
    num,
    s,
    when,
)
from homeagent.actions.events import habit_stats
from homeagent.actions.sql import Where, find, insert, page, rows, update
from homeagent.errors import ToolValidationError
from homeagent.tools.registry import Permission, ToolOutput

CATEGORY = Category("goal")
NOUN = ("目标", "goals")
STREAK_MILESTONES = (3, 7, 21, 30, 100, 365)
COUNT_MILESTONES = (10, 50, 100, 500)


def render(row: dict[str, Any], lang: str) -> str:
    text = f"#{row['id']} {row['title']}"
    if row["target"]:
        pct = min(100, round(100 * row["progress"] / row["target"]))
        text += f"：{row['progress']:g}/{row['target']:g}{row['unit']}（{pct}%）" if lang == "zh" else \
            f": {row['progress']:g}/{row['target']:g}{row['unit']} ({pct}%)"
    elif row["progress"]:
        text += f" {row['progress']:g}{row['unit']}"
    if row["deadline"]:
        text += f" · {'截止' if lang == 'zh' else 'by'} {row['deadline']}"
    if row["status"] != "active":
        text += f" · {row['status']}"
    return text


@CATEGORY.define(
    "create_goal",
    "创建一个目标，可设目标数值和截止日期 / Set a goal, optionally with a target number and a deadline",
    {"title": s("目标 / the goal"), "target": num("目标数值，如 12（本书）/ target number, e.g. 12 (books)"),
     "unit": s("单位，如 本、公里 / unit, e.g. books, km"), "deadline": when("截止日期 / deadline")},
    required=["title"],
    examples=[("今年的目标是读完12本书", {"title": "读书", "target": 12, "unit": "本", "deadline": "2026-12-31"}),
              ("My goal is to run 100 km this month", {"title": "run", "target": 100, "unit": "km"}),
              ("定个目标：学会游泳", {"title": "学会游泳"})],
)
async def create_goal(c: Call) -> ToolOutput:
    title = c.need("title")
    deadline = c.deadline("deadline")
    target = c.number("target", minimum=0)
    row = {"title": title, "target": target, "progress": 0, "unit": c.text("unit", ""),
           "deadline": deadline.isoformat() if deadline else None, **c.stamp()}
    row_id = await insert(c.db, "goals", row)
    return c.done(f"已创建目标 #{row_id}：{render({'id': row_id, 'status': 'active', **row}, 'zh')}。",
                  f"Created goal {render({'id': row_id, 'status': 'active', **row}, 'en')}.", {"id": row_id, **row})


@CATEGORY.define(
    "list_goals",
    "查询目标及进度 / List goals and their progress",
    {"status": enum("active 进行中（默认）、done 已完成、abandoned 已放弃、all 全部", "active", "done", "abandoned", "all"),
     "query": s("关键词 / keyword"), **PAGE},
    permission=Permission.READ,
    examples=[("我的目标进展如何", {}), ("Show my finished goals", {"status": "done"})],
)
async def list_goals(c: Call) -> ToolOutput:
    status = c.text("status", "active")
    where = Where().equal("status", None if status == "all" else status).contains("title", c.text("query"))
    limit, offset = c.page()
    found, total = await page(c.db, "goals", where, "deadline IS NULL, deadline, id", limit, offset)
    return c.listing(NOUN, found, total, lambda r: render(dict(r), c.lang), offset=offset)


@CATEGORY.define(
    "update_goal_progress",
    "更新目标进度：增加多少（add）或当前达到多少（progress）/ Update a goal: add to it, or set where it stands",
    {"id": ID, "title": s("目标名称里的词，用来找到目标 / words of the goal, to find it"),
     "add": num("本次增加的量，如 1（本）/ amount to add, e.g. 1"),
     "progress": num("当前总进度 / the new total"), "note": s("备注 / note"),
     "status": enum("标记完成或放弃 / mark done or abandoned", "active", "done", "abandoned")},
    examples=[("我又读完了一本书", {"title": "读书", "add": 1}),
              ("I've run 42 km so far", {"title": "run", "progress": 42}),
              ("游泳目标完成了", {"title": "游泳", "status": "done"})],
)
async def update_goal_progress(c: Call) -> ToolOutput:
    add, total = c.number("add"), c.number("progress", minimum=0)
    status = c.text("status")
    if add is None and total is None and status is None:
        raise ToolValidationError("add: give add (amount to add), progress (new total) or status")
    goal = await find(c, "goals", "title", noun=NOUN, order="status = 'active' DESC, id DESC")
    progress = goal["progress"]
    if total is not None:
        progress = total
    if add is not None:
        progress += add
    changes: dict[str, Any] = {"progress": progress}
    if status:
        changes["status"] = status
    elif goal["target"] and progress >= goal["target"]:
        changes["status"] = "done"
    if changes.get("status") == "done" and goal["status"] != "done":
        changes["completed_day"] = c.today.isoformat()
    await update(c.db, "goals", goal["id"], changes)
    await insert(c.db, "goal_progress", {"goal_id": goal["id"], "progress": progress,
                                         "note": c.text("note", ""), "day": c.today.isoformat(), **c.stamp()})
    merged = {**goal, **changes}
    cheer = c.t("🎉 目标达成！", " 🎉 Goal reached!") if changes.get("status") == "done" and goal["status"] != "done" else ""
    return c.done(f"已更新目标：{render(merged, 'zh')}。{cheer}", f"Updated goal: {render(merged, 'en')}.{cheer}",
                  {"id": goal["id"], **changes})


async def achievements(c: Call) -> list[dict[str, Any]]:
    """Earned achievements, derived: nothing is stored, so they never disagree with the data."""
    out: list[dict[str, Any]] = []
    for h in await habit_stats(c.db, c.today):
        for n in STREAK_MILESTONES:
            if h["best_streak"] >= n:
                out.append({"kind": "streak", "title": c.t(f"「{h['name']}」连续打卡 {n} 天", f"{h['name']}: {n}-day streak"),
                            "habit": h["name"], "value": n})
        for n in COUNT_MILESTONES:
            if h["total"] >= n:
                out.append({"kind": "checkins", "title": c.t(f"「{h['name']}」累计打卡 {n} 次", f"{h['name']}: {n} check-ins"),
                            "habit": h["name"], "value": n})
    for g in await rows(c.db, "SELECT * FROM goals"):
        if g["status"] == "done":
            out.append({"kind": "goal", "title": c.t(f"完成目标「{g['title']}」", f"Goal reached: {g['title']}"),
                        "goal": g["title"], "day": g["completed_day"]})
        elif g["target"] and g["progress"] >= g["target"] / 2:
            out.append({"kind": "goal_half", "title": c.t(f"目标「{g['title']}」过半", f"Halfway to {g['title']}"),
                        "goal": g["title"]})
    done = (await rows(c.db, "SELECT COUNT(*) AS n FROM tasks WHERE status = 'done'"))[0]["n"]
    for n in COUNT_MILESTONES:
        if done >= n:
            out.append({"kind": "tasks", "title": c.t(f"累计完成 {n} 个任务", f"{n} tasks done"), "value": n})
    return out


@CATEGORY.define(
    "list_achievements",
    "查询已获得的成就（来自习惯连续打卡、目标完成和任务数）/ List earned achievements (habit streaks, goals, tasks done)",
    PAGE,
    permission=Permission.READ,
    examples=[("我获得了哪些成就", {}), ("What achievements have I unlocked?", {}), ("看看我的勋章", {})],
)
async def list_achievements(c: Call) -> ToolOutput:
    earned = await achievements(c)
    limit, offset = c.page()
    return c.listing(("成就", "achievements"), earned[offset : offset + limit], len(earned),
                     lambda a: a["title"], offset=offset)


def register(registry: ActionRegistry, deps: Deps | None) -> None:
    """Hand the goal and achievement actions to `registry` (`deps` is None when they are only listed)."""
    registry.add(
        create_goal,
        list_goals,
        update_goal_progress,
        list_achievements,
    )
