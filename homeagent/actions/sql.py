"""SQL helpers shared by the action modules: insert/update/delete, `Where` (the one
builder of list filters: date range, keyword, equality), paged listing, member privacy,
and `find` — the one record an update, delete or complete means.

This module knows nothing of `Call`: `find` asks for the few things it reads through the
`Lookup` protocol, so `base` can import from here without a cycle.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from homeagent.errors import ToolError, ToolValidationError
from homeagent.store import Database


class Lookup(Protocol):
    """What `find` needs of a call (homeagent.actions.base.Call provides it)."""

    @property
    def db(self) -> Database: ...

    @property
    def args(self) -> Mapping[str, Any]: ...

    def text(self, key: str, default: str | None = None) -> str | None: ...

    def t(self, zh: str, en: str) -> str: ...


async def insert(db: Database, table: str, values: Mapping[str, Any]) -> int:
    cols = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    return await db.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})", tuple(values.values()))


async def update(db: Database, table: str, row_id: int, values: Mapping[str, Any]) -> None:
    if values:
        sets = ", ".join(f"{k} = ?" for k in values)
        await db.execute(f"UPDATE {table} SET {sets} WHERE id = ?", (*values.values(), row_id))


async def delete(db: Database, table: str, row_id: int) -> None:
    await db.execute(f"DELETE FROM {table} WHERE id = ?", (row_id,))


async def rows(db: Database, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    return [dict(r) for r in await db.fetchall(sql, params)]


@dataclass
class Where:
    """The WHERE clause of one list query, a condition at a time, with its parameters.

    Conditions join with AND in the order they are added; a filter whose value is
    missing (None or "") adds nothing, so callers pass what the user gave unchecked.
    """

    clauses: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, clause: str, *params: Any) -> Where:
        """Any condition, with one parameter per `?` in it."""
        self.clauses.append(clause)
        self.params.extend(params)
        return self

    def equal(self, column: str, value: Any) -> Where:
        return self if value is None or value == "" else self.add(f"{column} = ?", value)

    def contains(self, column: str, text: str | None) -> Where:
        """`column` holds `text` as it stands (not split into words)."""
        return self.add(f"{column} LIKE ?", f"%{text}%") if text else self

    def between(self, column: str, start: date | None, end: date | None) -> Where:
        """An ISO-date `column` from `start` to `end`, both included; either may be open."""
        if start:
            self.add(f"{column} >= ?", start.isoformat())
        if end:
            self.add(f"{column} <= ?", end.isoformat())
        return self

    def keyword(self, columns: Sequence[str], query: str | None) -> Where:
        """Every word of `query` appears in one of `columns` (see `like`)."""
        if query:
            clause, params = like(columns, query)
            self.add(clause, *params)
        return self

    def sql(self) -> str:
        """" WHERE a AND b", or "" when there is no condition."""
        return f" WHERE {' AND '.join(self.clauses)}" if self.clauses else ""


async def page(
    db: Database, table: str, where: Where, order: str, limit: int, offset: int,
) -> tuple[list[dict[str, Any]], int]:
    clause, params = where.sql(), where.params

    def run(conn: sqlite3.Connection) -> tuple[list[dict[str, Any]], int]:
        total = conn.execute(f"SELECT COUNT(*) FROM {table}{clause}", params).fetchone()[0]
        found = conn.execute(
            f"SELECT * FROM {table}{clause} ORDER BY {order} LIMIT ? OFFSET ?", (*params, limit, offset)
        ).fetchall()
        return [dict(r) for r in found], int(total)

    return await db.read(run)


def like(columns: Sequence[str], query: str) -> tuple[str, list[str]]:
    """A keyword filter over several columns (every word must appear in one of them)."""
    parts, params = [], []
    for word in query.split():
        parts.append("(" + " OR ".join(f"{c} LIKE ?" for c in columns) + ")")
        params += [f"%{word}%"] * len(columns)
    return " AND ".join(parts) or "1", params


def private_to(member: str, *, flag: str | None = None) -> tuple[str, list[str]]:
    """Rows a member may see: their own, unowned ones, and (with `flag`) shared ones."""
    clause = "(member = '' OR member = ?)"
    if flag:
        clause = f"({flag} = 0 OR member = '' OR member = ?)"
    return clause, [member]


async def find(
    call: Lookup,
    table: str,
    column: str,
    *,
    noun: tuple[str, str],
    id_key: str = "id",
    text_key: str | None = None,
    where: Sequence[str] = (),
    params: Sequence[Any] = (),
    order: str = "id DESC",
) -> dict[str, Any]:
    """The one record an update/delete/complete call means: by id, else by its text.

    An exact text match wins; several partial matches are an error that lists them, so
    the model can ask the user or retry with an id.
    """
    zh, en = noun
    text_key = text_key or column
    extra = " AND ".join(where)
    row_id = call.args.get(id_key)
    if row_id is not None:
        sql = f"SELECT * FROM {table} WHERE id = ?" + (f" AND {extra}" if extra else "")
        found = await rows(call.db, sql, (row_id, *params))
        if not found:
            raise ToolError(call.t(f"没有编号为 {row_id} 的{zh}。", f"there is no {en} with id {row_id}"))
        return found[0]
    text = call.text(text_key)
    if text is None:
        raise ToolValidationError(f"{text_key}: give the {en}'s id or its {text_key} text")
    base = f"SELECT * FROM {table} WHERE " + (f"{extra} AND " if extra else "")
    exact = await rows(call.db, base + f"{column} = ? ORDER BY {order}", (*params, text))
    if exact:
        return exact[0]
    clause, like_params = like([column], text)
    partial = await rows(call.db, base + f"{clause} ORDER BY {order} LIMIT 6", (*params, *like_params))
    if not partial:
        raise ToolError(call.t(f"没有找到与“{text}”相符的{zh}。", f"no {en} matches {text!r}"))
    if len(partial) > 1:
        names = "; ".join(f"#{r['id']} {r[column]}" for r in partial[:5])
        raise ToolError(call.t(f"有多条{zh}与“{text}”相符：{names}。请指明编号 id。",
                               f"several {en} match {text!r}: {names}; give the id"))
    return partial[0]


def show_when(value: str | None) -> str:
    """An ISO date or datetime as people read it: 2026-03-05 18:00."""
    if not value:
        return ""
    if "T" in value:
        return value[:16].replace("T", " ")
    return value


def tags_of(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [t for t in re.split(r"[,，、\s]+", value) if t]
    return [str(t).strip() for t in value if str(t).strip()]
