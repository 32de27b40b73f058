"""homeagent.store: a real SQLite file, WAL, migrations, serialized writes, concurrent reads."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import anyio
import pytest

from homeagent.errors import SchemaVersionError, StartupError
from homeagent.store import MIGRATIONS, Database, Migration

pytestmark = pytest.mark.anyio


def _table(name: str, version: int) -> Migration:
    def apply(conn: sqlite3.Connection) -> None:
        conn.execute(f"CREATE TABLE {name} (id INTEGER PRIMARY KEY, v TEXT)")

    return Migration(version, name, apply)


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path)


async def test_opens_real_file_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "homeagent.db"
    async with Database(path, MIGRATIONS) as db:
        assert path.is_file()
        (mode,) = (await db.fetchall("PRAGMA journal_mode"))[0]
        assert mode == "wal"
        (timeout,) = (await db.fetchall("PRAGMA busy_timeout"))[0]
        assert timeout >= 1000
        writer_timeout = db.write_sync(lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0])
        assert writer_timeout >= 1000
        (fk,) = (await db.fetchall("PRAGMA foreign_keys"))[0]
        assert fk == 1
        assert await db.check() == "ok"
    # WAL is a property of the file: a fresh connection sees it too.
    with raw(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_shipped_migrations_are_applied_and_recorded(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    async with Database(path, MIGRATIONS) as db:
        rows = await db.fetchall("SELECT version, name FROM schema_migrations ORDER BY version")
        assert [(r["version"], r["name"]) for r in rows] == [
            (m.version, m.name) for m in MIGRATIONS
        ]
        (version,) = (await db.fetchall("PRAGMA user_version"))[0]
        assert version == db.schema_version == max(m.version for m in MIGRATIONS)
        tables = {r["name"] for r in await db.fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"messages", "devices", "schema_migrations"} <= tables


async def test_migrations_apply_in_version_order(tmp_path: Path) -> None:
    order: list[int] = []

    def step(version: int) -> Migration:
        def apply(conn: sqlite3.Connection) -> None:
            order.append(version)
            if version == 1:
                conn.execute("CREATE TABLE t (a INTEGER)")
            else:
                # Depends on the earlier migration having run.
                conn.execute(f"ALTER TABLE t ADD COLUMN c{version} INTEGER")

        return Migration(version, f"step{version}", apply)

    async with Database(tmp_path / "o.db", [step(3), step(1), step(2)]):
        pass
    assert order == [1, 2, 3]


async def test_reopening_does_not_reapply(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    calls: list[int] = []

    def counted(conn: sqlite3.Connection) -> None:
        calls.append(1)
        conn.execute("CREATE TABLE once (x INTEGER)")

    migrations = [Migration(1, "once", counted)]
    async with Database(path, migrations) as db:
        await db.execute("INSERT INTO once VALUES (?)", (7,))
    async with Database(path, migrations) as db:
        rows = await db.fetchall("SELECT x FROM once")
        assert [r["x"] for r in rows] == [7]
        (count,) = (await db.fetchall("SELECT COUNT(*) FROM schema_migrations"))[0]
        assert count == 1
    assert calls == [1]


async def test_new_migration_applies_on_upgrade(tmp_path: Path) -> None:
    path = tmp_path / "u.db"
    async with Database(path, [_table("a", 1)]):
        pass
    async with Database(path, [_table("a", 1), _table("b", 2)]) as db:
        rows = await db.fetchall("SELECT version FROM schema_migrations ORDER BY version")
        assert [r["version"] for r in rows] == [1, 2]
        (version,) = (await db.fetchall("PRAGMA user_version"))[0]
        assert version == 2


async def test_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with raw(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(SchemaVersionError) as info:
        async with Database(path, MIGRATIONS):
            pass
    message = str(info.value)
    assert "upgrade" in message.lower()
    assert "99" in message
    assert isinstance(info.value, StartupError)
    # Refusing must not touch the file.
    with raw(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 99
        tables = conn.execute("SELECT name FROM sqlite_master").fetchall()
        assert tables == []


async def test_refused_open_does_not_leak_the_connection(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with raw(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    db = Database(path, MIGRATIONS)
    with pytest.raises(SchemaVersionError):
        db.open()
    assert db._writer is None
    with pytest.raises(StartupError, match="not open"):
        db.write_sync(lambda c: None)


async def test_failing_migration_rolls_back_completely(tmp_path: Path) -> None:
    path = tmp_path / "f.db"

    def half(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half (x INTEGER)")
        conn.execute("INSERT INTO half VALUES (1)")
        raise RuntimeError("disk on fire")

    with pytest.raises(StartupError) as info:
        async with Database(path, [_table("good", 1), Migration(2, "half", half)]):
            pass
    assert "half" in str(info.value) and "disk on fire" in str(info.value)
    assert isinstance(info.value.__cause__, RuntimeError)
    with raw(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "half" not in tables
        assert "good" in tables  # the earlier migration committed on its own
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
        assert versions == [1]
    # Fixed code can then open the same file and finish the job.
    async with Database(path, [_table("good", 1), _table("half", 2)]) as db:
        (version,) = (await db.fetchall("PRAGMA user_version"))[0]
        assert version == 2


async def test_migration_ending_its_own_transaction_reports_the_real_error(
    tmp_path: Path,
) -> None:
    def bad(conn: sqlite3.Connection) -> None:
        conn.execute("ROLLBACK")
        raise ValueError("the real cause")

    with pytest.raises(StartupError, match="the real cause"):
        async with Database(tmp_path / "x.db", [Migration(1, "bad", bad)]):
            pass


def test_duplicate_migration_versions_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unique"):
        Database(tmp_path / "d.db", [_table("a", 1), _table("b", 1)])


async def test_write_rolls_back_on_error(tmp_path: Path) -> None:
    async with Database(tmp_path / "w.db", [_table("t", 1)]) as db:

        def fails(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO t(v) VALUES ('lost')")
            raise RuntimeError("boom")

        with pytest.raises(RuntimeError, match="boom"):
            await db.write(fails)
        assert await db.fetchall("SELECT * FROM t") == []
        # The writer is not wedged in an open transaction.
        await db.execute("INSERT INTO t(v) VALUES ('kept')")
        assert [r["v"] for r in await db.fetchall("SELECT v FROM t")] == ["kept"]


async def test_write_that_ends_its_transaction_does_not_wedge_the_writer(tmp_path: Path) -> None:
    async with Database(tmp_path / "w.db", [_table("t", 1)]) as db:

        def ends_tx(conn: sqlite3.Connection) -> None:
            conn.execute("ROLLBACK")

        with pytest.raises(sqlite3.OperationalError):
            await db.write(ends_tx)
        await db.execute("INSERT INTO t(v) VALUES ('ok')")
        assert len(await db.fetchall("SELECT * FROM t")) == 1


async def test_execute_returns_lastrowid(tmp_path: Path) -> None:
    async with Database(tmp_path / "l.db", [_table("t", 1)]) as db:
        first = await db.execute("INSERT INTO t(v) VALUES (?)", ("一",))
        second = await db.execute("INSERT INTO t(v) VALUES (?)", ("二",))
        assert (first, second) == (1, 2)
        rows = await db.fetchall("SELECT id, v FROM t ORDER BY id")
        assert [(r["id"], r["v"]) for r in rows] == [(1, "一"), (2, "二")]


async def test_reader_connections_are_read_only(tmp_path: Path) -> None:
    async with Database(tmp_path / "ro.db", [_table("t", 1)]) as db:
        with pytest.raises(sqlite3.OperationalError):
            await db.read(lambda c: c.execute("INSERT INTO t(v) VALUES ('x')"))


async def test_many_concurrent_writes_all_land(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    async with Database(path, [_table("t", 1)]) as db:

        async def writer(i: int) -> None:
            await db.execute("INSERT INTO t(v) VALUES (?)", (f"row-{i}",))

        async with anyio.create_task_group() as tg:
            for i in range(200):
                tg.start_soon(writer, i)
        rows = await db.fetchall("SELECT v FROM t")
        assert sorted(r["v"] for r in rows) == sorted(f"row-{i}" for i in range(200))
    # Durable: another connection sees every row after close.
    with raw(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 200


async def test_concurrent_read_modify_write_is_serialized(tmp_path: Path) -> None:
    async with Database(tmp_path / "s.db", [_table("t", 1)]) as db:
        await db.execute("INSERT INTO t(id, v) VALUES (1, '0')")

        def increment(conn: sqlite3.Connection) -> None:
            (value,) = conn.execute("SELECT v FROM t WHERE id = 1").fetchone()
            conn.execute("UPDATE t SET v = ? WHERE id = 1", (str(int(value) + 1),))

        async with anyio.create_task_group() as tg:
            for _ in range(100):
                tg.start_soon(db.write, increment)
        (value,) = (await db.fetchall("SELECT v FROM t WHERE id = 1"))[0]
        assert value == "100"


async def test_reads_run_while_a_write_is_in_progress(tmp_path: Path) -> None:
    async with Database(tmp_path / "rw.db", [_table("t", 1)]) as db:
        await db.execute("INSERT INTO t(v) VALUES ('committed')")
        in_write = threading.Event()
        release = threading.Event()

        def slow_write(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO t(v) VALUES ('pending')")
            in_write.set()
            # Bounded so a broken store fails the test instead of hanging it.
            assert release.wait(30), "write was never released"

        async with anyio.create_task_group() as tg:
            tg.start_soon(db.write, slow_write)
            assert await anyio.to_thread.run_sync(in_write.wait, 30)
            # The writer holds its transaction open; a read still completes and sees
            # only committed data.
            rows = await db.fetchall("SELECT v FROM t")
            assert [r["v"] for r in rows] == ["committed"]
            assert not release.is_set()
            release.set()
        rows = await db.fetchall("SELECT v FROM t ORDER BY id")
        assert [r["v"] for r in rows] == ["committed", "pending"]


async def test_reader_connections_of_finished_threads_are_closed(tmp_path: Path) -> None:
    async with Database(tmp_path / "t.db", [_table("t", 1)]) as db:

        def read_in_own_thread() -> None:
            db.read_sync(lambda c: c.execute("SELECT 1").fetchone())

        for _ in range(5):
            thread = threading.Thread(target=read_in_own_thread)
            thread.start()
            thread.join()
        db.read_sync(lambda c: c.execute("SELECT 1").fetchone())
        # Only live threads keep a connection: at most the last one plus this one.
        assert len(db._reader_conns) <= 2
        assert all(t.is_alive() for t in db._reader_conns if t is not threading.current_thread())


async def test_reopened_database_reads_again(tmp_path: Path) -> None:
    db = Database(tmp_path / "again.db", [_table("t", 1)])
    async with db:
        await db.execute("INSERT INTO t(v) VALUES ('a')")
        assert len(db.read_sync(lambda c: c.execute("SELECT * FROM t").fetchall())) == 1
    async with db:
        # Same object, same (main) thread: a fresh reader connection, not a closed one.
        assert len(db.read_sync(lambda c: c.execute("SELECT * FROM t").fetchall())) == 1


async def test_unusable_path_is_a_startup_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    with pytest.raises(StartupError):
        async with Database(blocker / "sub" / "h.db", MIGRATIONS):
            pass


async def test_corrupt_file_is_a_startup_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not a sqlite database at all" * 200)
    with pytest.raises(StartupError, match="is corrupt .*file is not a database"):
        async with Database(path, MIGRATIONS):
            pass
    assert path.exists()  # only the daemon's start moves a corrupt file aside
