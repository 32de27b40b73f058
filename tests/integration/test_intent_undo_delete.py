"""An undo or a retarget right after a delete puts the record back: the same row, its own
id, and what the delete cascaded to (a habit's check-ins). Real App, real SQLite; the
scripted provider is never reached."""

from __future__ import annotations

import pytest

from homeagent.actions.sql import delete, restore
from homeagent.errors import ToolError
from homeagent.llm.testing import ScriptedProvider
from tests.integration.helpers import text_of, turn
from tests.integration.test_intent_repeat import _app, _rows, act

pytestmark = pytest.mark.anyio
ALLOW = {"classes": {"delete": "allow"}}


async def test_undo_after_a_delete_puts_the_habit_and_its_check_ins_back(make_config) -> None:
    provider = ScriptedProvider([])
    async with _app(make_config, provider, permissions=ALLOW) as app:
        await act(app, "create_habit", habit="跑步", frequency="daily")
        await act(app, "check_in_habit", habit="跑步", date="2026-03-02")
        await act(app, "check_in_habit", habit="跑步", date="2026-03-03")
        habits = await _rows(app, "SELECT * FROM habits")
        checkins = await _rows(app, "SELECT * FROM habit_checkins ORDER BY id")
        deleted = text_of(await turn(app, "把跑步这个习惯删掉"))
        gone = (await _rows(app, "SELECT id FROM habits"), await _rows(app, "SELECT id FROM habit_checkins"))
        undone = text_of(await turn(app, "撤销"))
        back = (await _rows(app, "SELECT * FROM habits"), await _rows(app, "SELECT * FROM habit_checkins ORDER BY id"))
    assert provider.requests == []
    assert "已删除习惯" in deleted and gone == ([], [])
    assert len(checkins) == 2
    assert back == (habits, checkins)  # every column as it was, ids included
    assert undone.startswith("已撤销上一步：") and "已恢复刚删除的习惯 #" in undone


async def test_undo_after_deleting_a_task_in_english_and_a_second_undo_has_nothing_to_undo(make_config) -> None:
    async with _app(make_config, ScriptedProvider([]), permissions=ALLOW) as app:
        await act(app, "create_task", content="renew the car insurance", due="2026-03-09T09:00", priority="high")
        await act(app, "create_task", content="water the ferns")
        before = await _rows(app, "SELECT * FROM tasks ORDER BY id")
        await turn(app, "delete the car insurance task")
        after_delete = await _rows(app, "SELECT content FROM tasks")
        undone = text_of(await turn(app, "undo that"))
        after_undo = await _rows(app, "SELECT * FROM tasks ORDER BY id")
        again = text_of(await turn(app, "undo that"))
        after_again = await _rows(app, "SELECT * FROM tasks ORDER BY id")
    assert after_delete == [{"content": "water the ferns"}]
    assert after_undo == before
    assert undone.startswith("Undone: Put back the deleted task #1.")
    assert after_again == before and again == "There is nothing to undo."


async def test_not_that_one_after_a_delete_deletes_the_one_named_and_puts_the_first_back(make_config) -> None:
    async with _app(make_config, ScriptedProvider([]), permissions=ALLOW) as app:
        await act(app, "create_task", content="订机票")
        await act(app, "create_task", content="订酒店")
        before = await _rows(app, "SELECT id, content FROM tasks ORDER BY id")
        await turn(app, "删掉订机票那个任务")
        answer = text_of(await turn(app, "不是这个，是订酒店那个"))
        left = await _rows(app, "SELECT id, content FROM tasks ORDER BY id")
    assert before == [{"id": 1, "content": "订机票"}, {"id": 2, "content": "订酒店"}]
    assert left == [{"id": 1, "content": "订机票"}]
    assert answer.startswith("好的，是「订酒店」那条。已恢复刚删除的任务 #1。")
    assert "无法撤回" not in answer


async def test_a_delete_remembered_once_and_an_id_taken_again_puts_back_nothing(make_config) -> None:
    async with _app(make_config, ScriptedProvider([])) as app:
        await act(app, "create_habit", habit="reading", frequency="daily")
        await act(app, "check_in_habit", habit="reading", date="2026-03-03")
        token = await delete(app.db, "habits", 1)
        with pytest.raises(ToolError, match="no longer remembered"):
            await restore(app.db, "not-a-token")
        # a new row took the deleted id: nothing goes back, not even the check-in
        await app.db.execute("INSERT INTO habits (id, name, created_at) VALUES (1, 'other', '2026-03-04')")
        with pytest.raises(ToolError, match="cannot put the record back"):
            await restore(app.db, token)
        checkins = await _rows(app, "SELECT id FROM habit_checkins")
        await app.db.execute("DELETE FROM habits WHERE id = 1")
        await restore(app.db, token)  # still remembered after a failed try
        back = await _rows(app, "SELECT name FROM habits"), await _rows(app, "SELECT habit_id FROM habit_checkins")
        with pytest.raises(ToolError, match="no longer remembered"):
            await restore(app.db, token)  # used once
    assert checkins == []
    assert back == ([{"name": "reading"}], [{"habit_id": 1}])
