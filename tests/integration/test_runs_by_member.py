"""A member's runs page comes from SQL: other members' newer runs never empty it."""

from __future__ import annotations

import pytest

from homeagent.agent.runs import RunHub
from homeagent.schema import all_migrations
from homeagent.store import Database

pytestmark = pytest.mark.anyio


async def test_member_pages_are_full_while_others_have_newer_runs(tmp_path):
    async with Database(tmp_path / "h.db", all_migrations()) as db:
        hub = RunHub(db)
        for i in range(3):
            await hub.open(f"alice_{i}", channel="api", device_id="d", member="alice", text=f"a{i}")
        for i in range(120):
            await hub.open(f"bob_{i}", channel="api", device_id="d", member="bob", text=f"b{i}")
        first = await hub.list(limit=2, member="alice")
        assert [r.id for r in first] == ["alice_2", "alice_1"]
        rest = await hub.list(limit=2, member="alice", before=first[-1].created_at)
        assert [r.id for r in rest] == ["alice_0"]
        assert all(r.member == "bob" for r in await hub.list(limit=50, member="bob"))
