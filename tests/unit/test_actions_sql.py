"""homeagent.actions.sql.Where: the one builder of list filters, on a real SQLite table."""

from __future__ import annotations

import ast
import sqlite3
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

import homeagent.actions.sql
from homeagent.actions.sql import Where, like

ROWS = [
    # id, day, title, note, member, kind
    (1, "2026-02-28", "买牛奶", "超市", "", "expense"),
    (2, "2026-03-01", "Buy milk", "at the corner shop", "ann", "expense"),
    (3, "2026-03-15", "交水电费", "三月的电费", "ann", "expense"),
    (4, "2026-03-31", "Salary", "March pay", "bob", "income"),
    (5, "2026-04-01", "牛奶和面包", "早餐 milk", "", "expense"),
]


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, day TEXT, title TEXT, note TEXT, member TEXT, kind TEXT)")
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", ROWS)
    yield db
    db.close()


def ids(conn: sqlite3.Connection, where: Where) -> list[int]:
    return [r[0] for r in conn.execute(f"SELECT id FROM t{where.sql()} ORDER BY id", where.params)]


def test_empty_where_is_no_clause_and_matches_everything(conn: sqlite3.Connection) -> None:
    where = Where()
    assert where.sql() == "" and where.params == []
    assert ids(conn, where) == [1, 2, 3, 4, 5]


def test_missing_values_add_no_condition(conn: sqlite3.Connection) -> None:
    where = (Where().between("day", None, None).keyword(["title"], None).keyword(["title"], "")
             .equal("kind", None).equal("kind", "").contains("note", None).contains("note", ""))
    assert where.sql() == "" and where.params == []


def test_date_range_includes_both_ends(conn: sqlite3.Connection) -> None:
    where = Where().between("day", date(2026, 3, 1), date(2026, 3, 31))
    assert where.sql() == " WHERE day >= ? AND day <= ?"
    assert where.params == ["2026-03-01", "2026-03-31"]
    assert ids(conn, where) == [2, 3, 4]


def test_date_range_open_at_either_end(conn: sqlite3.Connection) -> None:
    since = Where().between("day", date(2026, 3, 31), None)
    assert (since.sql(), since.params) == (" WHERE day >= ?", ["2026-03-31"])
    assert ids(conn, since) == [4, 5]
    until = Where().between("day", None, date(2026, 3, 1))
    assert (until.sql(), until.params) == (" WHERE day <= ?", ["2026-03-01"])
    assert ids(conn, until) == [1, 2]


def test_chinese_keyword_matches_inside_any_named_column(conn: sqlite3.Connection) -> None:
    where = Where().keyword(["title", "note"], "牛奶")
    assert where.sql() == " WHERE (title LIKE ? OR note LIKE ?)"
    assert where.params == ["%牛奶%", "%牛奶%"]
    assert ids(conn, where) == [1, 5]
    assert ids(conn, Where().keyword(["title", "note"], "电费")) == [3]  # found in either column


def test_english_keyword_ignores_ascii_case(conn: sqlite3.Connection) -> None:
    assert ids(conn, Where().keyword(["title", "note"], "MILK")) == [2, 5]


def test_every_word_of_a_keyword_must_appear(conn: sqlite3.Connection) -> None:
    where = Where().keyword(["title", "note"], "milk  corner")
    assert where.sql() == " WHERE (title LIKE ? OR note LIKE ?) AND (title LIKE ? OR note LIKE ?)"
    assert where.params == ["%milk%", "%milk%", "%corner%", "%corner%"]
    assert ids(conn, where) == [2]
    assert ids(conn, Where().keyword(["title", "note"], "牛奶 milk")) == [5]  # mixed Chinese and English


def test_contains_keeps_the_text_whole(conn: sqlite3.Connection) -> None:
    where = Where().contains("note", "corner shop")
    assert (where.sql(), where.params) == (" WHERE note LIKE ?", ["%corner shop%"])
    assert ids(conn, where) == [2]
    assert ids(conn, Where().contains("note", "shop corner")) == []


def test_combined_conditions_join_with_and_in_order(conn: sqlite3.Connection) -> None:
    where = (Where().add("(member = '' OR member = ?)", "ann")
             .between("day", date(2026, 3, 1), date(2026, 4, 30))
             .equal("kind", "expense")
             .keyword(["title", "note"], "milk"))
    assert where.sql() == (" WHERE (member = '' OR member = ?) AND day >= ? AND day <= ? AND kind = ?"
                           " AND (title LIKE ? OR note LIKE ?)")
    assert where.params == ["ann", "2026-03-01", "2026-04-30", "expense", "%milk%", "%milk%"]
    assert ids(conn, where) == [2, 5]
    # Another member sees the shared row, not ann's.
    bob = (Where().add("(member = '' OR member = ?)", "bob").between("day", date(2026, 3, 1), None)
           .keyword(["title", "note"], "milk"))
    assert ids(conn, bob) == [5]


def test_add_takes_one_parameter_per_placeholder(conn: sqlite3.Connection) -> None:
    where = Where().add("status != 'archived'").add("day BETWEEN ? AND ?", "2026-03-01", "2026-03-15")
    assert where.sql() == " WHERE status != 'archived' AND day BETWEEN ? AND ?"
    assert where.params == ["2026-03-01", "2026-03-15"]


def test_like_is_a_neutral_clause_for_an_empty_query() -> None:
    assert like(["title"], "") == ("1", [])
    assert like(["title"], " 牛奶 ") == ("(title LIKE ?)", ["%牛奶%"])


def test_sql_helpers_import_nothing_from_the_action_base() -> None:
    # base imports its SQL helpers from sql, so sql must not import base back (not even
    # for type checking): that circle is what kept the two modules tangled.
    tree = ast.parse(Path(homeagent.actions.sql.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {m for m in imported if m and m.startswith("homeagent.actions")}
