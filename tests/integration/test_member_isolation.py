"""Household members: one member's diary, private notes and health records stay theirs,
whichever tool or API asks."""

from __future__ import annotations

import aiohttp
import anyio
import pytest

from homeagent.llm.testing import ScriptedProvider, ScriptedReply

from .helpers import running_app

pytestmark = pytest.mark.anyio


async def run_as(s, base: str, token: str, text: str) -> dict:
    headers = {"Authorization": f"Bearer {token}"}
    async with s.post(base + "/api/agent/runs", json={"input": text}, headers=headers) as r:
        run_id = (await r.json())["id"]
    with anyio.fail_after(20):
        while True:
            async with s.get(base + f"/api/agent/runs/{run_id}/trace?limit=1000", headers=headers) as r:
                trace = await r.json()
            if trace["run"]["status"] in ("completed", "failed"):
                return trace
            await anyio.sleep(0.05)


def results(trace: dict) -> dict[str, str]:
    return {e["data"]["name"]: e["data"]["content"] for e in trace["events"] if e["type"] == "tool_result"}


async def test_private_records_are_invisible_to_other_members(make_config):
    provider = ScriptedProvider([
        # Alice writes her diary, a private note, a shared note and a blood pressure reading.
        ScriptedReply(tool_calls=[
            ("write_diary", {"content": "今天和小红吵架了，很难过"}),
            ("create_note", {"content": "Surprise party for Bob on Friday", "private": True}),
            ("create_note", {"content": "Wi-Fi password is on the fridge"}),
            ("record_health", {"metric": "血压", "value": "150/95", "unit": "mmHg"}),
        ]),
        "记下了。",
        # Bob asks for everything.
        ScriptedReply(tool_calls=[
            ("list_notes", {"kind": "diary"}),
            ("list_notes", {}),
            ("list_health", {"kind": "all"}),
        ]),
        "Here is what I found.",
        # Alice asks for her own.
        ScriptedReply(tool_calls=[("list_notes", {"kind": "diary"}), ("list_health", {"kind": "all"})]),
        "这是你的记录。",
    ])
    async with running_app(make_config(), provider=provider, http=True) as app:
        alice = await app.members.add("alice")
        bob = await app.members.add("bob")
        base = f"http://127.0.0.1:{app.health.port}"
        async with aiohttp.ClientSession() as s:
            wrote = await run_as(s, base, alice, "记日记、记笔记、记血压")
            assert all(e["data"]["ok"] for e in wrote["events"] if e["type"] == "tool_result")
            seen_by_bob = await run_as(s, base, bob, "show me all notes, diaries and health records")
            seen_by_alice = await run_as(s, base, alice, "看看我的日记和健康记录")
            async with s.get(base + "/api/messages", headers={"Authorization": f"Bearer {bob}"}) as r:
                bob_messages = [m["content"] for m in (await r.json())["messages"]]
    bob_view = "\n".join(results(seen_by_bob).values()) + "\n".join(bob_messages)
    assert "吵架" not in bob_view and "Surprise party" not in bob_view and "150/95" not in bob_view
    assert "Wi-Fi password" in bob_view  # a shared note is the household's
    alice_view = "\n".join(results(seen_by_alice).values())
    assert "吵架" in alice_view and "150/95" in alice_view


async def test_member_profiles_are_built_at_the_heartbeat_and_follow_the_speaker(make_config):
    from homeagent.llm.testing import FunctionProvider

    provider = FunctionProvider(lambda request: "好的。")
    async with running_app(make_config(), provider=provider, http=True) as app:
        alice = await app.members.add("alice")
        bob = await app.members.add("bob")
        base = f"http://127.0.0.1:{app.health.port}"
        async with aiohttp.ClientSession() as s:
            for text in ("我喜欢绿茶", "我住在杭州", "洗碗机又漏水了", "洗碗机的管子坏了"):
                await run_as(s, base, alice, text)
            await app.heartbeat()
            profile = await app.profiles.get("alice")
            assert profile is not None
            assert "likes 绿茶" in profile.preferences and "lives_in 杭州" in profile.facts
            assert "洗碗" in profile.topics or "碗机" in profile.topics
            await run_as(s, base, alice, "推荐一种饮料")
            alice_prompt = "\n".join(m.content for m in provider.requests[-1].messages if m.role == "system")
            await run_as(s, base, bob, "推荐一种饮料")
            bob_prompt = "\n".join(m.content for m in provider.requests[-1].messages if m.role == "system")
    assert "About the person speaking" in alice_prompt and "绿茶" in alice_prompt
    assert "About the person speaking" not in bob_prompt and "绿茶" not in bob_prompt
