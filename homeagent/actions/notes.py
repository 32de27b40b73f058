"""Note and diary actions. Private notes and every diary entry belong to their member."""

from __future__ import annotations

import json
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
    s,
    strings,
    when,
)
from homeagent.actions.sql import (
    Where,
    delete,
    find,
    insert,
    page,
    private_to,
    tags_of,
    update,
)
from homeagent.errors import ToolError, ToolValidationError
from homeagent.tools.registry import Permission, ToolOutput

CATEGORY = Category("note_diary")
NOTE = ("记", "notes")
DIARY = ("日记", "diary entries")


def _title_of(content: str) -> str:
    first = content.strip().splitlines()[0] if content.strip() else ""
    return first[:30]


def render_note(row: dict[str, Any]) -> str:
    body = row["content"].replace("\n", " ")
    body = body if len(body) <= 80 else body[:79] + "…"
    title = row.get("title") or ""
    return f"#{row['id']} [{row['day']}] " + (f"{title}：{body}" if title and title != body[: len(title)] else body)


async def _note(c: Call) -> dict[str, Any]:
    """The note a call means: by id, by its title, else by words of its text."""
    clause, params = private_to(c.member, flag="private")
    try:
        return await find(c, "notes", "title", noun=NOTE, where=[clause], params=params)
    except ToolValidationError:
        raise
    except ToolError:
        if c.args.get("id") is not None:
            raise
        return await find(c, "notes", "content", noun=NOTE, text_key="title", where=[clause], params=params)


@CATEGORY.define(
    "create_note",
    "创建一条笔记，记下需要保存的信息 / Save a note with information to keep",
    {
        "content": s("笔记内容 / the text to keep"),
        "title": s("标题，可省略 / optional title"),
        "tags": strings("标签 / tags"),
        "private": boolean("仅自己可见 / only visible to the speaker"),
    },
    required=["content"],
    examples=[
        ("帮我记个笔记：数据库连接字符串", {"content": "数据库连接字符串"}),
        ("Note that the wifi password is on the fridge", {"content": "the wifi password is on the fridge"}),
        ("记一下：车停在B2层 A区 36号", {"content": "车停在B2层 A区 36号"}),
    ],
    featured=1,
)
async def create_note(c: Call) -> ToolOutput:
    content = c.need("content")
    title = c.text("title") or _title_of(content)
    stamp = c.stamp()
    row = {"title": title, "content": content,
           "tags": json.dumps(tags_of(c.args.get("tags")), ensure_ascii=False),
           "private": 1 if c.args.get("private") else 0, "day": c.today.isoformat(),
           "updated_at": stamp["created_at"], **stamp}
    row_id = await insert(c.db, "notes", row)
    return c.done(f"已保存笔记 #{row_id}：{title}。", f"Saved note #{row_id}: {title}.", {"id": row_id, **row})


@CATEGORY.define(
    "list_notes",
    "查询或搜索笔记；kind=diary 时查日记 / List or search notes; kind=diary lists diary entries",
    {"kind": enum("note 笔记（默认）或 diary 日记 / note (default) or diary", "note", "diary"),
     "tag": s("标签 / tag"), **LIST},
    permission=Permission.READ,
    examples=[
        ("找一下关于数据库的笔记", {"query": "数据库"}),
        ("Show my notes from last week", {"from": "last week"}),
        ("看看我这个月写的日记", {"kind": "diary", "from": "本月"}),
    ],
)
async def list_notes(c: Call) -> ToolOutput:
    diary = c.text("kind") == "diary"
    table = "diary_entries" if diary else "notes"
    clause, params = private_to(c.member) if diary else private_to(c.member, flag="private")
    where = Where().add(clause, *params)
    start, end = c.range()
    where.between("day", start, end).keyword(["content"] if diary else ["title", "content", "tags"], c.text("query"))
    if c.text("tag") and not diary:
        where.add("tags LIKE ?", f'%"{c.text("tag")}"%')
    limit, offset = c.page()
    found, total = await page(c.db, table, where, "day DESC, id DESC", limit, offset)
    return c.listing(DIARY if diary else NOTE, found, total, lambda r: render_note(dict(r)), offset=offset)


@CATEGORY.define(
    "update_note",
    "修改笔记：替换或追加内容、改标题或标签 / Edit a note: replace or append text, retitle, retag",
    {
        "id": ID,
        "title": s("笔记标题或内容里的词，用来找到笔记 / words of the note, to find it"),
        "content": s("新的完整内容 / the new text, replacing the old"),
        "append": s("追加到末尾的内容 / text to add at the end"),
        "new_title": s("新标题 / new title"),
        "tags": strings("新的标签 / new tags"),
    },
    examples=[
        ("在购物笔记里加上：鸡蛋", {"title": "购物", "append": "鸡蛋"}),
        ("Change the wifi note to say the password is taped under the router",
         {"title": "wifi", "content": "the wifi password is taped under the router"}),
    ],
)
async def update_note(c: Call) -> ToolOutput:
    note = await _note(c)
    changes: dict[str, Any] = {}
    if c.text("content"):
        changes["content"] = c.text("content")
    if c.text("append"):
        changes["content"] = changes.get("content", note["content"]).rstrip() + "\n" + (c.text("append") or "")
    if c.text("new_title"):
        changes["title"] = c.text("new_title")
    if "tags" in c.args:
        changes["tags"] = json.dumps(tags_of(c.args["tags"]), ensure_ascii=False)
    if not changes:
        return c.done("没有要修改的内容：请给出 content、append、new_title 或 tags。",
                      "Nothing to change: give content, append, new_title or tags.")
    changes["updated_at"] = c.now.isoformat(timespec="seconds")
    await update(c.db, "notes", note["id"], changes)
    return c.done(f"已更新笔记 #{note['id']}：{changes.get('title', note['title'])}。",
                  f"Updated note #{note['id']}: {changes.get('title', note['title'])}.", {"id": note["id"]})


@CATEGORY.define(
    "delete_note",
    "删除一条笔记 / Delete a note",
    {"id": ID, "title": s("笔记标题或内容里的词 / words of the note")},
    permission=Permission.DELETE,
    examples=[("把停车位置那条笔记删了", {"title": "停车"}), ("Delete note 12", {"id": 12})],
)
async def delete_note(c: Call) -> ToolOutput:
    note = await _note(c)
    undo = await delete(c.db, "notes", note["id"])
    return c.done(f"已删除笔记 #{note['id']}：{note['title']}。",
                  f"Deleted note #{note['id']}: {note['title']}.", {"id": note["id"], "undo": undo})


@CATEGORY.define(
    "write_diary",
    "写日记（同一天多次写会按时间追加）/ Write a diary entry (several on one day are kept in order)",
    {
        "content": s("日记内容 / what to write"),
        "date": when("日期，默认今天 / the day, default today"),
        "mood": s("心情 / mood"),
        "weather": s("天气 / weather"),
    },
    required=["content"],
    examples=[
        ("写个日记：今天效率很高", {"content": "今天效率很高"}),
        ("Dear diary, the kids built a snowman today", {"content": "the kids built a snowman today"}),
        ("记日记：昨天去爬山了，很累但开心", {"content": "去爬山了，很累但开心", "date": "昨天"}),
    ],
    featured=1,
)
async def write_diary(c: Call) -> ToolOutput:
    content = c.need("content")
    day = c.day("date", prefer="past") or c.today
    row = {"day": day.isoformat(), "content": content, "mood": c.text("mood", ""),
           "weather": c.text("weather", ""), **c.stamp()}
    row_id = await insert(c.db, "diary_entries", row)
    return c.done(f"已写入 {day.isoformat()} 的日记（#{row_id}）。",
                  f"Wrote the diary entry for {day.isoformat()} (#{row_id}).", {"id": row_id, **row})


def register(registry: ActionRegistry, deps: Deps | None) -> None:
    """Hand the note and diary actions to `registry` (`deps` is None when they are only listed)."""
    registry.add(
        create_note,
        list_notes,
        update_note,
        delete_note,
        write_diary,
    )
