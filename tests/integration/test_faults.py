"""Faults the house will meet: a full disk, a crash right after a 202.

A full disk is real SQLite behaviour: `PRAGMA max_page_count` at the file's current size
makes every write that needs a new page fail with SQLITE_FULL ("database or disk is
full"), exactly as a full filesystem does; raising it again is space coming back.
"""

from __future__ import annotations

import aiohttp
import anyio
import pytest

from homeagent.llm.echo import EchoProvider

from .helpers import running_app

pytestmark = pytest.mark.anyio


def base(app) -> str:
    return f"http://127.0.0.1:{app.health.port}"


async def _fill_disk(app) -> None:
    pages = await app.db.read(lambda c: c.execute("PRAGMA page_count").fetchone()[0])
    await app.db.write(lambda c: c.execute(f"PRAGMA max_page_count = {pages}").fetchone())


async def _free_disk(app) -> None:
    await app.db.write(lambda c: c.execute("PRAGMA max_page_count = 1073741823").fetchone())


async def _health(s, app) -> dict:
    async with s.get(base(app) + "/healthz") as r:
        assert r.status == 200
        return await r.json()


async def test_full_disk_fails_writes_clearly_keeps_reads_and_recovers(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app, aiohttp.ClientSession() as s:
        async with s.post(base(app) + "/api/chat", json={"message": "before the disk filled"}) as r:
            assert r.status == 200
            await r.read()
        await _fill_disk(app)
        # Enough runs and turns to need new pages.
        big = "x" * 20_000
        async with s.post(base(app) + "/api/agent/runs", json={"input": big}) as r:
            body = await r.json()
            assert r.status == 507, body
            assert "disk is full" in body["error"]["message"]
        for i in range(5):
            async with s.post(base(app) + "/api/chat", json={"message": f"{big} {i}"}) as r:
                assert r.status == 200
                await r.read()
        async with s.get(base(app) + "/api/messages") as r:
            assert r.status == 200
            assert (await r.json())["messages"], "reads keep working"
        with anyio.fail_after(10):
            while (health := await _health(s, app))["writers"]["runs"]["status"] == "ok":  # noqa: ASYNC110 - polls /healthz
                await anyio.sleep(0.1)
        assert health["status"] == "degraded"
        assert "full" in health["writers"]["runs"]["last_error"]

        await _free_disk(app)
        with anyio.fail_after(40):  # the writer retries with backoff and drains by itself
            while (health := await _health(s, app))["writers"]["runs"]["status"] != "ok":  # noqa: ASYNC110 - polls /healthz
                await anyio.sleep(0.2)
        assert health["status"] == "ok" and health["writers"]["runs"]["pending"] == 0
        async with s.post(base(app) + "/api/agent/runs", json={"input": "after"}) as r:
            assert r.status == 202
        # Turns whose runs waited in the queue were stored once space came back.
        runs = await app.db.fetchall("SELECT input FROM runs WHERE input LIKE 'xxx%'")
        assert len(runs) == 5


async def test_a_202_run_is_committed_before_the_answer(make_config):
    """The row exists in the database file the moment the 202 is read (seen by a
    connection of its own, as a restarted daemon would)."""
    import sqlite3

    async with running_app(make_config(), provider=EchoProvider(), http=True) as app, aiohttp.ClientSession() as s:
        for i in range(10):
            async with s.post(base(app) + "/api/agent/runs", json={"input": f"run {i}"}) as r:
                assert r.status == 202
                run_id = (await r.json())["id"]
            conn = sqlite3.connect(app.db.path)
            try:
                assert conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone(), run_id
            finally:
                conn.close()


async def test_audit_rows_wait_out_a_full_disk_and_health_shows_it(make_config):
    from homeagent.llm.testing import ScriptedProvider, ScriptedReply

    from .helpers import turn

    provider = ScriptedProvider([
        # Arguments big enough that their audit row needs new pages.
        ScriptedReply(tool_calls=[("current_time", {"timezone": "Asia/" + "x" * 30_000})]), "It is late.",
        ScriptedReply(tool_calls=[("current_time", {})]), "Still late.",
    ])
    async with running_app(make_config(), provider=provider, http=True) as app, aiohttp.ClientSession() as s:
        await _fill_disk(app)
        await turn(app, "what time is it?")
        health = await _health(s, app)
        assert health["writers"]["audit"]["status"] == "failing" and health["writers"]["audit"]["pending"] >= 1
        assert health["writers"]["text_log"]["status"] == "ok"  # a file on a disk with room
        assert health["status"] == "degraded"
        await _free_disk(app)
        await turn(app, "and now?")
        health = await _health(s, app)
        assert health["writers"]["audit"]["status"] == "ok" and health["writers"]["audit"]["pending"] == 0
        rows = await app.db.fetchall("SELECT name FROM tool_call_log")
        assert [r["name"] for r in rows] == ["current_time", "current_time"]  # the kept row too
