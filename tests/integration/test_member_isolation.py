"""Household members: one member's diary, private notes and health records stay theirs,
whichever tool or API asks."""

from __future__ import annotations

import json

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


# -- sealed members: words, documents, facts, runs ---------------------------------------

SECRETS = ("GUITAR-FUND", "7.8 mmol", "blood sugar", "血糖", "西湖", "糖尿病")


def _asked(provider, since: int) -> str:
    """Every message of every request the model got since request `since`: system,
    history, tool results, all of it."""
    return "\n".join(m.content for r in provider.requests[since:] for m in r.messages)


async def _get(s, base: str, token: str, path: str) -> tuple[int, str]:
    """A GET as `token`: the status and the body as readable text (JSON unescaped)."""
    async with s.get(base + path, headers={"Authorization": f"Bearer {token}"}) as r:
        body = await r.json()
        return r.status, json.dumps(body, ensure_ascii=False)


async def test_what_a_member_says_and_commits_never_reaches_another_member(make_config):
    provider = ScriptedProvider([
        # Alice tells a secret, then commits a health note, a health reading and a fact.
        "好的，我不会说出去。",
        ScriptedReply(tool_calls=[
            ("doc_commit", {"text": "Alice blood sugar 7.8 mmol/L fasting, 血糖偏高", "tags": ["health"]}),
            ("record_health", {"metric": "血糖", "value": "7.8", "unit": "mmol/L"}),
            ("memory_commit", {"subject": "我", "relation": "has", "object": "糖尿病"}),
        ]),
        "记下了。",
        # Bob knows Alice: her entity is in his memory too, her facts are not.
        ScriptedReply(tool_calls=[("memory_commit", {"subject": "我", "relation": "knows", "object": "alice"})]),
        "OK.",
        # Bob asks memory for everything Alice left behind.
        ScriptedReply(tool_calls=[
            ("doc_query", {"query": "blood sugar 血糖 mmol", "k": 10}),
            ("memory_recall", {"query": "alice 糖尿病 西湖 血糖"}),
            ("memory_recall", {"query": "我住在哪里"}),
        ]),
        "I found nothing.",
    ])
    async with running_app(make_config(), provider=provider, http=True) as app:
        alice = await app.members.add("alice")
        bob = await app.members.add("bob")
        base = f"http://127.0.0.1:{app.health.port}"
        async with aiohttp.ClientSession() as s:
            told = await run_as(s, base, alice, "我的秘密：我在偷偷存 GUITAR-FUND，我住在西湖边")
            noted = await run_as(s, base, alice, "记一下我的血糖 7.8 mmol/L")
            assert all(e["data"]["ok"] for e in noted["events"] if e["type"] == "tool_result")
            await app.heartbeat()  # distil Alice's exchanges into the graph
            await run_as(s, base, bob, "I know alice")
            since = len(provider.requests)
            asked = await run_as(s, base, bob, "alice 的血糖 blood sugar 糖尿病 西湖 GUITAR-FUND？")
            bob_prompts = _asked(provider, since).replace(asked["run"]["input"], "")
            bob_results = "\n".join(results(asked).values())
            reads = [await _get(s, base, bob, p) for p in (
                "/api/messages", "/api/agent/runs?limit=500",
                f"/api/agent/runs/{told['run']['id']}", f"/api/agent/runs/{noted['run']['id']}/trace",
            )]
            alice_messages = (await _get(s, base, alice, "/api/messages"))[1]
    assert asked["run"]["status"] == "completed"
    for secret in SECRETS:
        assert secret not in bob_prompts, f"{secret!r} reached Bob's prompt"
        assert secret not in bob_results, f"{secret!r} came back in Bob's tool results"
    messages, runs, run, trace = reads
    assert run[0] == 404 and trace[0] == 404
    for status, body in (messages, runs):
        assert status == 200
        for secret in ("GUITAR-FUND", "血糖"):
            assert secret not in body.replace(asked["run"]["input"], ""), f"{secret!r} in Bob's API read"
    assert "GUITAR-FUND" in alice_messages  # Alice still sees her own


async def test_telling_everyone_makes_an_exchange_shared(make_config):
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[
            ("doc_commit", {"text": "周六晚上 8 点到 10 点停水 WATER-OFF"}),
            ("memory_commit", {"subject": "水管工", "relation": "phone", "object": "PHONE-1234"}),
        ]),
        "好的，我会告诉大家。",
        "Noted, just for you.",
        ScriptedReply(tool_calls=[
            ("doc_query", {"query": "停水 WATER-OFF"}),
            ("memory_recall", {"query": "水管工"}),
            ("memory_recall", {"query": "alice 住在哪里"}),
        ]),
        "周六晚上停水。",
    ])
    async with running_app(make_config(), provider=provider, http=True) as app:
        alice = await app.members.add("alice")
        bob = await app.members.add("bob")
        base = f"http://127.0.0.1:{app.health.port}"
        async with aiohttp.ClientSession() as s:
            await run_as(s, base, alice, "告诉大家：周六晚上停水 WATER-OFF，我住在滨江")
            await run_as(s, base, alice, "my own PRIVATE-NOTE about the plumber")
            await app.heartbeat()  # what is distilled from a shared exchange is shared
            since = len(provider.requests)
            asked = await run_as(s, base, bob, "周六有什么事？")
            bob_prompts = _asked(provider, since)
            bob_messages = (await _get(s, base, bob, "/api/messages"))[1]
    assert "告诉大家：周六晚上停水 WATER-OFF" in bob_prompts  # in Bob's working context
    found = "\n".join(e["data"]["content"] for e in asked["events"] if e["type"] == "tool_result")
    assert "WATER-OFF" in found  # the note committed in that turn
    assert "PHONE-1234" in found  # the fact committed in that turn
    assert "滨江" in found  # the fact distilled from it
    assert "WATER-OFF" in bob_messages
    assert "PRIVATE-NOTE" not in bob_prompts and "PRIVATE-NOTE" not in bob_messages


async def test_without_members_everything_is_the_households(make_config):
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("doc_commit", {"text": "The spare key is under the blue pot"})]),
        "Noted.",
        ScriptedReply(tool_calls=[("doc_query", {"query": "spare key"})]),
        "Under the blue pot.",
    ])
    async with running_app(make_config(), provider=provider, http=True) as app:
        base = f"http://127.0.0.1:{app.health.port}"
        async with aiohttp.ClientSession() as s:
            await run_as(s, base, "", "remember: the spare key is under the blue pot")
            since = len(provider.requests)
            asked = await run_as(s, base, "", "where is the spare key?")
            async with s.get(base + "/api/messages") as r:
                messages = [m["content"] for m in (await r.json())["messages"]]
    assert "remember: the spare key is under the blue pot" in _asked(provider, since)
    assert "blue pot" in results(asked)["doc_query"]
    assert "remember: the spare key is under the blue pot" in messages


async def test_another_members_facts_about_you_stay_theirs(make_config):
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("memory_commit", {"subject": "我", "relation": "likes", "object": "绿茶"})]),
        "记住了。",
        # Bob plans a surprise: a fact about Alice, but Bob's.
        ScriptedReply(tool_calls=[("memory_commit", {"subject": "alice", "relation": "likes", "object": "SURPRISE-CAKE"})]),
        "Noted.",
        ScriptedReply(tool_calls=[("memory_recall", {"query": "alice"})]),
        "好的。",
    ])
    async with running_app(make_config(), provider=provider, http=True) as app:
        alice = await app.members.add("alice")
        bob = await app.members.add("bob")
        base = f"http://127.0.0.1:{app.health.port}"
        async with aiohttp.ClientSession() as s:
            await run_as(s, base, alice, "我喜欢绿茶")
            await run_as(s, base, bob, "alice likes cake, keep it secret")
            await app.heartbeat()  # rebuilds the profiles
            since = len(provider.requests)
            await run_as(s, base, alice, "我喜欢什么？")
    alice_prompts = _asked(provider, since)
    assert "绿茶" in alice_prompts  # her profile and her own recall
    assert "SURPRISE-CAKE" not in alice_prompts
