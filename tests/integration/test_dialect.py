"""The one tool dialect: the agent speaks native tool calls and the llm edge translates.

Runs a real App (SQLite, every registered action) on scripted providers: one that calls
functions sees native requests with no trace of the `[ACTION]` protocol; one that cannot
is wrapped by `homeagent.llm.dialect`, whose stable prefix stays byte-identical across
turns and equals what the engine was primed with, so a local engine's cache holds.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from homeagent.llm.base import ToolDef
from homeagent.llm.dialect import ActionDialect
from homeagent.llm.dialect.blocks import OPEN
from homeagent.llm.dialect.prompt import INSTRUCTIONS
from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from tests.integration.helpers import running_app, text_of, turn

pytestmark = pytest.mark.anyio


@dataclass
class PrimedEngine(ScriptedProvider):
    """A scripted engine that records what it was primed with, as a local one caches it."""

    primed: list[str] = field(default_factory=list)

    async def prime(self, stable_prefix: str, tools: Sequence[ToolDef] = ()) -> None:
        self.primed.append(stable_prefix)


def everything(request) -> str:
    return json.dumps([m.content for m in request.messages], ensure_ascii=False)


async def test_the_agent_speaks_native_tool_calls_only(make_config):
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("current_time", {})]), "It is morning."])
    async with running_app(make_config(), provider=provider) as app:
        assert app.provider is provider  # a model that calls functions is not wrapped
        events = await turn(app, "what time is it")
    first, second = provider.requests
    assert first.tool_choice == "auto" and {t.name for t in first.tools} >= {"current_time", "create_task"}
    for request in provider.requests:
        assert "[ACTION]" not in everything(request) and "[RESULTS]" not in everything(request)
    assert second.messages[-2].tool_calls[0].name == "current_time"
    assert second.messages[-1].role == "tool" and second.messages[-1].name == "current_time"
    assert text_of(events) == "It is morning."


async def test_the_stable_prefix_is_byte_identical_across_turns_and_is_what_was_primed(make_config):
    provider = PrimedEngine(["Hello!", "Noted."], supports_tools=False, supports_grammar=True)
    async with running_app(make_config(), provider=provider) as app:
        assert isinstance(app.provider, ActionDialect) and app.provider.inner is provider
        await turn(app, "Good morning")
        await turn(app, "帮我记一个任务，明天下午交电费")
        personality = app.personality.text
    one, two = provider.requests
    head = one.messages[0].content[: one.stable_prefix_chars]
    assert head == personality + "\n\n" + INSTRUCTIONS + head[len(personality) + 2 + len(INSTRUCTIONS):]
    assert two.messages[0].content[: two.stable_prefix_chars] == head
    assert provider.primed == [head]  # the engine's cached state matches every turn's start
    # The actions offered for a message go after the history, in the turn's own section.
    assert "## Actions for this message" not in head
    assert "## Actions for this message\n- create_task(" in two.messages[-2].content
    assert one.tools == two.tools == ()  # the engine reads its tools from the prompt


async def test_a_later_round_resends_the_models_own_bytes(make_config):
    reply = f'Checking.\n{OPEN}\n{{"name": "current_time"}}\n[/ACTION]'
    provider = ScriptedProvider([reply, "It is morning."], supports_tools=False)
    async with running_app(make_config(), provider=provider) as app:
        events = await turn(app, "what time is it")
    second = provider.requests[1].messages
    assert second[-2].role == "assistant" and second[-2].content == reply
    assert second[-1].role == "user" and second[-1].content.startswith("[RESULTS]\n- current_time: ")
    assert text_of(events) == "Checking.\nIt is morning."


async def test_a_message_that_asks_for_an_action_gets_a_grammar_on_its_first_round_only(make_config):
    provider = ScriptedProvider(
        ['[ACTION]{"name": "create_task", "content": "交电费"}[/ACTION]', "好的。"],
        supports_tools=False, supports_grammar=True,
    )
    config = make_config(actions={"results_answer_local": False})
    async with running_app(config, provider=provider) as app:
        events = await turn(app, "帮我记一个任务：交电费")
    first, second = provider.requests
    assert first.grammar is not None and '"\\"交电费\\""' in first.grammar  # values from the user's words
    assert second.grammar is None
    assert any(e.type == "tool_result" and e.ok for e in events)


@dataclass
class WarmedEngine(PrimedEngine):
    """… and what it was asked to prepare while idle."""

    warmed: list[list[str]] = field(default_factory=list)

    async def warm(self, messages, tools=()):
        self.warmed.append([m.content for m in messages])
        return None


async def test_every_turn_starts_with_the_primed_head_whatever_it_is_offered(make_config):
    # With the intent layer on, small talk is offered no action and an unsure request a
    # few: both must still start with the head the engine was primed with, and what it
    # prepares while idle must start with it too, or each turn re-evaluates its history.
    provider = WarmedEngine(["Hello to you!", "I am not sure what you mean.", "Noted."],
                            supports_tools=False, supports_grammar=True)
    async with running_app(make_config(actions={"intent": True}), provider=provider) as app:
        await turn(app, "Good morning, how are you?")
        await turn(app, "Could you sort out something about the milk for me?")
        await app.agent.prepare_next()
    (head,) = provider.primed
    assert INSTRUCTIONS in head
    small_talk, unsure = provider.requests
    for request in (small_talk, unsure):
        assert request.messages[0].content.startswith(head)
    assert small_talk.tools == () and "## Actions for this message" not in small_talk.messages[-2].content
    assert provider.warmed and all(w[0].startswith(head) for w in provider.warmed)


async def test_a_call_to_an_action_the_turn_was_not_offered_is_not_run(make_config):
    # Small talk is offered nothing; a block the model writes anyway is not a call.
    block = '[ACTION]{"name": "create_task", "content": "tell a joke"}[/ACTION]'
    provider = PrimedEngine([f"Sure! {block}"], supports_tools=False, supports_grammar=True)
    async with running_app(make_config(actions={"intent": True}), provider=provider) as app:
        events = await turn(app, "Good morning, how are you?")
        tasks = await app.db.fetchall("SELECT content FROM tasks")
    assert tasks == [] and not any(e.type == "tool_call" for e in events)
