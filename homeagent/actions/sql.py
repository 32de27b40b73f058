"""SQL helpers shared by the action modules: insert/update/delete, `Where` (the one
builder of list filters: date range, keyword, equality), paged listing, member privacy,
and `find` — the one record an update, delete or complete means.

This module knows nothing of `Call`: `find` asks for the few things it reads through the
`Lookup` protocol, so `base` can import from here without a cycle.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
from collections import OrderedDict
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


# What the last deletes took, by an unguessable token, so that an undo right after one can
# put it back: kept in memory only (a deleted record is not written anywhere else), the
# newest `_KEPT_DELETES`.
_TAKEN: OrderedDict[str, list[tuple[str, dict[str, Any]]]] = OrderedDict()
_KEPT_DELETES = 64


async def delete(db: Database, table: str, row_id: int) -> str:
    """Delete one row and what its foreign keys cascade to (a habit's check-ins), in one
    transaction. Returns a token for `restore`: what an undo right after it puts back."""

    def run(conn: sqlite3.Connection) -> list[tuple[str, dict[str, Any]]]:
        taken = [(table, r) for r in _rows(conn, f"SELECT * FROM {table} WHERE id = ?", (row_id,))]
        for child, column in _cascades_from(conn, table):
            taken += [(child, r) for r in _rows(conn, f"SELECT * FROM {child} WHERE {column} = ?", (row_id,))]
        conn.execute(f"DELETE FROM {table} WHERE id = ?", (row_id,))
        return taken

    taken = await db.write(run)
    token = secrets.token_hex(8)
    _TAKEN[token] = taken
    while len(_TAKEN) > _KEPT_DELETES:
        _TAKEN.popitem(last=False)
    return token


async def restore(db: Database, token: str) -> int:
    """Put back what the delete of `token` took, with the rows' own ids, in one transaction;
    returns the deleted row's id. A token unknown (or used), or an id taken again since,
    raises `ToolError` and puts back nothing."""
    taken = _TAKEN.get(token)
    if not taken:
        raise ToolError("nothing to put back: that delete is no longer remembered")

    def run(conn: sqlite3.Connection) -> None:
        for table, row in taken:
            marks = ", ".join("?" for _ in row)
            conn.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({marks})", tuple(row.values()))

    try:
        await db.write(run)
    except sqlite3.IntegrityError as err:
        raise ToolError(f"cannot put the record back: {err}") from err
    del _TAKEN[token]
    return int(taken[0][1]["id"])


def _rows(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, tuple(r), strict=True)) for r in cursor.fetchall()]


def _cascades_from(conn: sqlite3.Connection, table: str) -> list[tuple[str, str]]:
    """(table, column) of each foreign key that deletes its rows with a row of `table`."""
    out = []
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        for fk in conn.execute(f"PRAGMA foreign_key_list({name})").fetchall():
            if fk[2] == table and str(fk[6]).upper() == "CASCADE":
                out.append((name, fk[3]))
    return out


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
