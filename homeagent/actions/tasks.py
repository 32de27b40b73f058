"""Task actions: create, complete, list, update and delete to-do items."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

from homeagent.actions.base import (
    ID,
    LIST,
    ActionRegistry,
    Call,
    Category,
    Deps,
    enum,
    repeat,
    s,
    strings,
    when,
)
from homeagent.actions.repeat import RepeatError, parse_repeat, show_repeat
from homeagent.actions.sql import (
    Where,
    delete,
    find,
    insert,
    page,
    show_when,
    tags_of,
    update,
)
from homeagent.tools.registry import Permission, ToolOutput

CATEGORY = Category("task")
NOUN = ("任务", "tasks")
_PRIORITY = enum("优先级 / priority", "high", "medium", "low")
_PRIORITY_ZH = {"high": "高", "medium": "中", "low": "低"}


def render(row: dict[str, Any], lang: str = "zh") -> str:
    parts = [f"#{row['id']} {row['content']}"]
    if row.get("due"):
        parts.append(("截止 " if lang == "zh" else "due ") + show_when(row["due"]))
    if row.get("priority") and row["priority"] != "medium":
        parts.append(_PRIORITY_ZH[row["priority"]] + "优先级" if lang == "zh" else f"{row['priority']} priority")
    if row.get("repeat"):
        parts.append(show_repeat(row["repeat"], lang))
    if row.get("status") == "done":
        parts.append("已完成" if lang == "zh" else "done")
    return " · ".join(parts)


_REPEAT = repeat("重复 / how it repeats")


@CATEGORY.define(
    "create_task",
    "创建一个新的待办任务 / Create a new to-do task",
    {
        "content": s("任务内容 / what needs doing"),
        "priority": _PRIORITY,
        "due": when("截止时间 / when it is due"),
        "category": s("分类 / category"),
        "tags": strings("标签 / tags"),
        "repeat": _REPEAT,
    },
    required=["content"],
    examples=[
        ("帮我记一个任务，明天下班前提交周报", {"content": "提交周报", "due": "明天下班前"}),
        ("Remind me to call the plumber on Friday", {"content": "call the plumber", "due": "Friday"}),
        ("添加待办：交水电费，优先级高", {"content": "交水电费", "priority": "high"}),
        ("Add a task to renew my passport", {"content": "renew my passport"}),
    ],
    featured=1,
)
async def create_task(c: Call) -> ToolOutput:
    content = c.need("content")
    rule = c.repeat()
    due = c.first_due("due", rule)
    tags = tags_of(c.args.get("tags"))
    row = {
        "content": content,
        "priority": c.text("priority", "medium"),
        "due": due.iso() if due else None,
        "due_day": due.day.isoformat() if due else None,
        "category": c.text("category", ""),
        "tags": json.dumps(tags, ensure_ascii=False),
        "repeat": rule.code() if rule else "",
        **c.stamp(),
    }
    row_id = await insert(c.db, "tasks", row)
    due_text = show_when(row["due"]) if due else c.t("无", "none")
    again_zh = f"，{show_repeat(rule.code(), 'zh')}" if rule else ""
    again_en = f", {show_repeat(rule.code(), 'en')}" if rule else ""
    return c.done(
        f"已创建任务 #{row_id}：{content}，截止 {due_text}{again_zh}。",
        f"Created task #{row_id}: {content}, due {due_text}{again_en}.",
        {"id": row_id, **row, "tags": tags},
    )


@CATEGORY.define(
    "complete_task",
    "把任务标记为已完成 / Mark a task as done",
    {"id": ID, "content": s("任务内容里的词，用来找到任务 / words of the task, to find it")},
    examples=[
        ("把提交周报这个任务标记完成", {"content": "提交周报"}),
        ("I finished calling the plumber", {"content": "call the plumber"}),
        ("任务3做完了", {"id": 3}),
    ],
    featured=1,
)
async def complete_task(c: Call) -> ToolOutput:
    row = await find(c, "tasks", "content", noun=NOUN, order="status = 'open' DESC, id DESC")
    if row["status"] == "done":
        return c.done(f"任务 #{row['id']}「{row['content']}」早已完成。",
                      f"Task #{row['id']} ({row['content']}) was already done.", dict(row))
    if row.get("repeat"):
        return await _complete_occurrence(c, row)
    await update(c.db, "tasks", row["id"], {
        "status": "done", "completed_at": c.now.isoformat(timespec="seconds"),
        "completed_day": c.today.isoformat(),
    })
    return c.done(f"已完成任务 #{row['id']}：{row['content']}。",
                  f"Marked task #{row['id']} done: {row['content']}.", {"id": row["id"]})


async def _complete_occurrence(c: Call, row: dict[str, Any]) -> ToolOutput:
    """A repeating task stays open: this occurrence is done, the due moves to the next one
    (unless the scheduler already moved it there when this occurrence was reminded)."""
    stamp = {"completed_at": c.now.isoformat(timespec="seconds"), "completed_day": c.today.isoformat()}
    changes: dict[str, Any] = dict(stamp)
    if not row["due_day"] or row["due_day"] <= c.today.isoformat():
        nxt = next_due(row["repeat"], row["due"], c.now)
        if nxt is not None:
            changes.update(due=nxt[0], due_day=nxt[1])
    await update(c.db, "tasks", row["id"], changes)
    following = show_when(changes.get("due", row["due"]))
    return c.done(f"已完成本次任务 #{row['id']}：{row['content']}；下次 {following}。",
                  f"Marked this time of task #{row['id']} done: {row['content']}; next {following}.",
                  {"id": row["id"], "repeat": row["repeat"], "before": {"due": row["due"], "status": "open"}, **changes})


def next_due(code: str, due: str | None, now: datetime) -> tuple[str, str] | None:
    """The next occurrence of a repeating task after both its due and `now`: (iso, day)."""
    try:
        rule = parse_repeat(code)
    except RepeatError:
        return None
    anchor = datetime.fromisoformat(due) if due and "T" in due else None
    day_only = date.fromisoformat(due[:10]) if due and anchor is None else None
    if anchor is not None and anchor.tzinfo is None:
        anchor = anchor.replace(tzinfo=now.tzinfo)
    after = max(anchor, now) if anchor is not None else now
    nxt = rule.next_after(after, anchor or day_only)
    if rule.at is None and anchor is None:
        return nxt.date().isoformat(), nxt.date().isoformat()
    return nxt.isoformat(timespec="seconds"), nxt.date().isoformat()


@CATEGORY.define(
    "list_tasks",
    "查询任务列表，可按状态、截止日期范围、关键词筛选 / List tasks, filtered by status, due-date range or keyword",
    {
        "status": enum("状态：open 未完成（默认）、done 已完成、all 全部 / open (default), done or all",
                       "open", "done", "all"),
        "priority": _PRIORITY,
        **LIST,
    },
    permission=Permission.READ,
    examples=[
        ("我还有哪些没完成的任务", {"status": "open"}),
        ("What's on my to-do list this week?", {"from": "this week"}),
        ("Show the tasks I completed", {"status": "done"}),
    ],
    featured=1,
)
async def list_tasks(c: Call) -> ToolOutput:
    status = c.text("status", "open")
    where = Where().equal("status", None if status == "all" else status).equal("priority", c.text("priority"))
    start, end = c.range()
    where.between("due_day", start, end).keyword(["content", "category", "tags"], c.text("query"))
    limit, offset = c.page()
    found, total = await page(
        c.db, "tasks", where,
        "status = 'done', due_day IS NULL, due_day, CASE priority WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, id",
        limit, offset,
    )
    return c.listing(NOUN, found, total, lambda r: render(dict(r), c.lang), offset=offset)


@CATEGORY.define(
    "update_task",
    "修改任务的内容、截止时间、优先级或状态 / Change a task's text, due time, priority or status",
    {
        "id": ID,
        "content": s("任务内容里的词，用来找到任务 / words of the task, to find it"),
        "new_content": s("新的任务内容 / the new text"),
        "due": when("新的截止时间 / new due time"),
        "priority": _PRIORITY,
        "status": enum("open 或 done / open or done", "open", "done"),
        "tags": strings("新的标签 / new tags"),
        "repeat": repeat("新的重复规则，none 表示不再重复 / how it repeats now; none to stop"),
    },
    examples=[
        ("把周报任务改到后天截止", {"content": "周报", "due": "后天"}),
        ("Make the passport task high priority", {"content": "passport", "priority": "high"}),
    ],
)
async def update_task(c: Call) -> ToolOutput:
    due = c.when("due")  # bad values are reported before anything is looked up
    row = await find(c, "tasks", "content", noun=NOUN, order="status = 'open' DESC, id DESC")
    changes: dict[str, Any] = {}
    if c.text("new_content"):
        changes["content"] = c.text("new_content")
    if due:
        changes["due"], changes["due_day"] = due.iso(), due.day.isoformat()
    if c.text("priority"):
        changes["priority"] = c.text("priority")
    if c.text("status"):
        changes["status"] = c.text("status")
        done = changes["status"] == "done"
        changes["completed_at"] = c.now.isoformat(timespec="seconds") if done else None
        changes["completed_day"] = c.today.isoformat() if done else None
    if "tags" in c.args:
        changes["tags"] = json.dumps(tags_of(c.args["tags"]), ensure_ascii=False)
    if "repeat" in c.args:
        rule = c.repeat()
        changes["repeat"] = rule.code() if rule else ""
    if not changes:
        return c.done("没有要修改的内容：请给出 new_content、due、priority、status、tags 或 repeat。",
                      "Nothing to change: give new_content, due, priority, status, tags or repeat.")
    await update(c.db, "tasks", row["id"], changes)
    merged = {**row, **changes}
    return c.done(f"已更新任务：{render(merged, 'zh')}。", f"Updated task: {render(merged, 'en')}.",
                  {"id": row["id"], **changes, "before": {k: row.get(k) for k in changes}})


@CATEGORY.define(
    "delete_task",
    "删除一个任务 / Delete a task",
    {"id": ID, "content": s("任务内容里的词，用来找到任务 / words of the task, to find it")},
    permission=Permission.DELETE,
    examples=[("删掉交水电费那个任务", {"content": "交水电费"}), ("Delete task 4", {"id": 4})],
)
async def delete_task(c: Call) -> ToolOutput:
    row = await find(c, "tasks", "content", noun=NOUN)
    undo = await delete(c.db, "tasks", row["id"])
    return c.done(f"已删除任务 #{row['id']}：{row['content']}。",
                  f"Deleted task #{row['id']}: {row['content']}.", {"id": row["id"], "undo": undo})


def register(registry: ActionRegistry, deps: Deps | None) -> None:
    """Hand the task actions to `registry` (`deps` is None when they are only listed)."""
    registry.add(
        create_task,
        complete_task,
        list_tasks,
        update_task,
        delete_task,
    )
