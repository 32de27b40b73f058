"""homeagent.store.inspect and the doctor's database check built on it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from homeagent.doctor import _check_db
from homeagent.schema import all_migrations
from homeagent.store import Database
from homeagent.store.inspect import inspect_file
from tests.conftest import write_config

pytestmark = pytest.mark.anyio


async def test_inspect_reads_the_schema_version_and_integrity(tmp_path: Path) -> None:
    latest = max(m.version for m in all_migrations())
    async with Database(tmp_path / "data" / "homeagent.db", all_migrations()):
        pass
    state = inspect_file(tmp_path / "data" / "homeagent.db")
    assert state.schema_version == latest and state.integrity == "ok"
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(sqlite3.Error):
        inspect_file(tmp_path / "junk.db")


async def test_doctor_refuses_a_database_from_a_newer_homeagent(tmp_path: Path) -> None:
    from homeagent.config import load_config

    config = load_config(write_config(tmp_path), env={})
    path = Path(config.data_dir) / "homeagent.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 9999")
    check = _check_db(config)
    assert not check.ok and "schema 9999, newer" in check.detail
