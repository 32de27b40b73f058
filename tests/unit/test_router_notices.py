"""homeagent.llm.router: the fallback notice is told once per episode, and an episode
ends when the preferred provider serves again, so the next outage is announced anew."""

from __future__ import annotations

import pytest

from homeagent.clock import FakeClock
from homeagent.llm.base import ChatRequest, Message, Notice, ProviderEvent, TextDelta
from homeagent.llm.router import Route, Router
from homeagent.llm.testing import ScriptedProvider, ScriptedReply

pytestmark = pytest.mark.anyio

DOWN = ScriptedReply(error="cloud: upstream unavailable")


def ask(text: str = "what time is it?") -> ChatRequest:
    return ChatRequest(messages=(Message("system", "You are HomeAgent."), Message("user", text)))


async def turn(router: Router, request: ChatRequest) -> tuple[str, list[Notice]]:
    events: list[ProviderEvent] = [e async for e in router.stream(request)]
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    return text, [e for e in events if isinstance(e, Notice)]


async def test_second_outage_after_recovery_announces_itself_again():
    clock = FakeClock()
    cloud = ScriptedProvider([DOWN, "cloud is back", DOWN], name="cloud")
    local = ScriptedProvider(["local one", "local two", "local three"], name="local")
    router = Router(
        [Route("cloud", cloud, cloud=True, type="openai_compatible"), Route("local", local, type="llama_cpp")],
        clock=clock, notices="event",
    )

    # Episode 1: the cloud fails before its first token; the local model answers, once told.
    text, notices = await turn(router, ask())
    assert text == "local one" and [n.kind for n in notices] == ["failover"]
    # Still the same episode (the cloud cools down): no second notice.
    text, notices = await turn(router, ask())
    assert text == "local two" and notices == []

    # The cooldown ends and the preferred provider serves again: the episode is over.
    clock.advance(seconds=3600)
    text, notices = await turn(router, ask())
    assert text == "cloud is back" and notices == []

    # Episode 2: a new outage must be announced again, not swallowed by episode 1's notice.
    text, notices = await turn(router, ask())
    assert text == "local three"
    assert [n.kind for n in notices] == ["failover"], "a new fallback episode after recovery must notify"
    assert len(cloud.requests) == 3 and len(local.requests) == 3


async def test_the_notice_names_the_engine_that_answered():
    """Two cloud engines down, the echo engine answers: the one notice names echo, not
    the second cloud engine that was tried and failed too."""
    first = ScriptedProvider([DOWN], name="cloud")
    second = ScriptedProvider([DOWN], name="backup")
    echo = ScriptedProvider(["local answer"], name="echo")
    router = Router(
        [Route("cloud", first, cloud=True, type="openai_compatible"),
         Route("backup", second, cloud=True, type="openai_compatible"),
         Route("echo", echo, type="echo")],
        clock=FakeClock(), notices="event",
    )
    text, notices = await turn(router, ask())
    assert text == "local answer"
    assert [n.text for n in notices] == ["(The cloud model is unavailable right now, so the echo model is answering.)"]
