"""Which record an action by name means, when names overlap: an exact match wins over
partial ones. Driven through the agent's tool loop (scripted model replies) on a real
SQLite file, so it holds whatever shape the action registry takes."""

from __future__ import annotations

import pytest

from homeagent.llm.testing import ScriptedProvider, ScriptedReply

from .helpers import running_app, turn

pytestmark = pytest.mark.anyio


def results(events) -> list:
    return [e for e in events if e.type == "tool_result"]


async def test_completing_a_task_by_a_title_that_others_contain_picks_the_exact_one(make_config):
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("create_task", {"content": "周报"})]),
        "记下了。",
        ScriptedReply(tool_calls=[("create_task", {"content": "提交周报"})]),
        "记下了。",
        # "周报" is one task's whole title and part of the other's.
        ScriptedReply(tool_calls=[("complete_task", {"content": "周报"})]),
        "完成了。",
        ScriptedReply(tool_calls=[("list_tasks", {"status": "done"}), ("list_tasks", {})]),
        "这是任务。",
    ])
    async with running_app(make_config(), provider=provider) as app:
        for text in ("记一个任务：周报", "再记一个：提交周报"):
            created = results(await turn(app, text))
            assert len(created) == 1 and created[0].ok, created
        completed = results(await turn(app, "周报做完了"))
        listed = results(await turn(app, "看看任务"))

    assert len(completed) == 1
    assert completed[0].ok, f"an exact title match must win over partial ones: {completed[0].content}"
    done, pending = listed
    assert done.ok and pending.ok
    assert "周报" in done.content and "提交周报" not in done.content, done.content
    assert "提交周报" in pending.content, pending.content
