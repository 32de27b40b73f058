"""Memory as the agent uses it: learn from a turn, recall it in a later prompt, forget."""

from __future__ import annotations

import aiohttp
import pytest

from homeagent.llm.base import ToolCall
from homeagent.llm.testing import FunctionProvider
from homeagent.tools.registry import ToolContext

from .helpers import running_app, turn

pytestmark = pytest.mark.anyio


def system_text(request) -> str:
    return "\n".join(m.content for m in request.messages if m.role == "system")


async def test_a_fact_told_once_reaches_later_prompts_and_can_be_forgotten(make_config):
    provider = FunctionProvider(lambda request: "好的，记住了。")
    async with running_app(make_config(), provider=provider, http=True) as app:
        await turn(app, "我叫小明，我住在北京。")
        report = await app.heartbeat()
        assert report.counts()["facts_new"] >= 2 and not report.errors
        await turn(app, "我住在哪里？")
        later = system_text(provider.requests[-1])
        # The prompt gets the node index only (names, types, counts, relation types) …
        assert "lives_in" in later and "name" in later
        # … and the details come from the memory_recall tool.
        recall = await app.tools.execute(
            ToolCall("c1", "memory_recall", '{"query": "我住在哪里"}'), ToolContext("t", "test")
        )
        assert recall.ok and "北京" in recall.content

        # The user asks to forget the first message: its facts leave the graph too.
        base = f"http://127.0.0.1:{app.health.port}"
        first_user = (await app.conversation.page(limit=10))[-1]
        assert first_user.content == "我叫小明，我住在北京。"
        async with aiohttp.ClientSession() as s, s.delete(f"{base}/api/messages/{first_user.id}") as r:
            forgotten = (await r.json())["forgotten"]
        assert forgotten["facts"] >= 2 and forgotten["log_records"] == 1
        assert forgotten["context_entries"] == 1
        recall = await app.tools.execute(
            ToolCall("c2", "memory_recall", '{"query": "我住在哪里"}'), ToolContext("t", "test")
        )
        assert "北京" not in recall.content


async def test_working_context_survives_a_restart(make_config):
    config = make_config()
    first = FunctionProvider(lambda request: "Noted: the plumber comes on Friday.")
    async with running_app(config, provider=first) as app:
        await turn(app, "The plumber comes on Friday.")
    second = FunctionProvider(lambda request: "Friday.")
    async with running_app(config, provider=second) as app:
        await turn(app, "When does the plumber come?")
    replayed = [(m.role, m.content) for m in second.requests[0].messages if m.role in ("user", "assistant")]
    assert replayed[:2] == [("user", "The plumber comes on Friday."),
                            ("assistant", "Noted: the plumber comes on Friday.")]


async def test_old_context_is_archived_into_documents_and_recalled(make_config):
    provider = FunctionProvider(lambda request: "ok")
    config = make_config(memory={"context_top_k": 4, "context_keep_last": 1})
    async with running_app(config, provider=provider) as app:
        await turn(app, "The spare key is under the blue flowerpot.")
        for i in range(4):
            await turn(app, f"Unrelated chat number {i} about the weather.")
        assert await app.memory.documents.count() >= 1  # pruned from L1 into L2
        await turn(app, "Where is the spare key?")
    prompt = system_text(provider.requests[-1])
    assert "blue flowerpot" in prompt  # the archived exchange came back as a summary


async def test_a_heartbeat_that_used_the_model_prepares_the_next_turn_again(make_config):
    import json
    from dataclasses import dataclass, field

    import anyio

    facts = json.dumps({"facts": [{"record": 1, "subject": "user", "relation": "likes", "object": "tea"}]})

    @dataclass
    class LocalLike(FunctionProvider):
        warmed: list = field(default_factory=list)

        async def warm(self, messages):
            self.warmed.append(list(messages))
            return len(messages)

    provider = LocalLike(lambda request: facts, supports_tools=False)
    async with running_app(make_config(memory={"distill_provider": "chat"}), provider=provider) as app:
        await turn(app, "我喜欢喝茶")
        with anyio.fail_after(10):
            while app.agent.stats.next_turns_prepared < 1:  # noqa: ASYNC110 - polls a counter
                await anyio.sleep(0.01)
        before = len(provider.warmed)
        report = await app.heartbeat()
    assert report.llm_calls >= 1
    assert len(provider.warmed) >= before + 1  # (+1 more if a minute turned meanwhile)
    prepared = provider.warmed[-1]
    # The prefix, the history (the exchange), and the clock line that starts a turn.
    assert prepared[0].role == "system" and [m.content for m in prepared[-3:-1]] == ["我喜欢喝茶", facts]
    assert prepared[-1].role == "system" and prepared[-1].content.startswith("Current date and time (")


async def test_the_chat_distiller_works_through_a_router_chain(make_config):
    """memory.distill_provider: chat with a provider chain: the heartbeat asks the chain's
    quiet view, which fails over like a turn does and tells the user nothing."""
    import json

    from homeagent.llm.router import Route, Router
    from homeagent.llm.testing import ScriptedReply

    facts = json.dumps({"facts": [{"record": 1, "subject": "user", "relation": "likes", "object": "jasmine tea"}]})
    cloud = FunctionProvider(lambda request: ScriptedReply(error="the cloud is down"), name="cloud")
    local = FunctionProvider(lambda request: facts if "jasmine" in str(request.messages) else "好的",
                             name="local", supports_tools=False)
    router = Router([Route("cloud", cloud, cloud=True), Route("local", local)], notices="event")
    async with running_app(make_config(memory={"distill_provider": "chat"}), provider=router) as app:
        await turn(app, "I like jasmine tea")
        report = await app.heartbeat()
    assert report.errors == () and report.llm_calls >= 1
    assert report.facts_new >= 1, report
    assert any("jasmine" in str(r.messages) for r in local.requests[1:])  # the distiller's prompt
