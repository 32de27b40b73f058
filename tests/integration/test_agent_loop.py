"""The agent's turn and tool loop, on a real SQLite store with scripted model replies."""

from __future__ import annotations

import json

import anyio
import anyio.lowlevel
import pytest

from homeagent.agent.core import FINAL_ANSWER_NOTE
from homeagent.app import App
from homeagent.errors import PersonalityError
from homeagent.io import ask
from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from homeagent.tools.registry import ToolSpec

from .helpers import running_app, text_of, turn

pytestmark = pytest.mark.anyio


async def test_tool_call_result_is_fed_back_and_answer_streams(make_config):
    provider = ScriptedProvider(
        [
            ScriptedReply(tool_calls=[("current_time", {"timezone": "Asia/Shanghai"})]),
            ScriptedReply(text="现在是下午三点。It is 3 pm."),
        ]
    )
    async with running_app(make_config(), provider=provider) as app:
        events = await turn(app, "现在几点？")
    types = [e.type for e in events]
    assert types[0] == "turn_started" and types[-1] == "done"
    assert types.index("tool_call") < types.index("tool_result") < types.index("text_delta")
    result = next(e for e in events if e.type == "tool_result")
    assert result.ok and "Asia/Shanghai" in result.content
    assert text_of(events) == "现在是下午三点。It is 3 pm."
    second = provider.requests[1].messages
    tool_msgs = [m for m in second if m.role == "tool"]
    assert len(tool_msgs) == 1 and json.loads(tool_msgs[0].content)["timezone"] == "Asia/Shanghai"
    assert second[-2].role == "assistant" and second[-2].tool_calls[0].name == "current_time"
    assert events[-1].text == "现在是下午三点。It is 3 pm."


async def test_validation_error_reaches_the_model_and_turn_goes_on(make_config):
    provider = ScriptedProvider(
        [ScriptedReply(tool_calls=[("current_time", {"timezone": 5})]), ScriptedReply(text="Sorry.")]
    )
    async with running_app(make_config(), provider=provider) as app:
        events = await turn(app, "time?")
    result = next(e for e in events if e.type == "tool_result")
    assert not result.ok and "timezone" in result.content
    assert text_of(events) == "Sorry."
    assert "timezone" in provider.requests[1].messages[-1].content


async def test_tool_rounds_are_capped_then_a_final_answer_is_forced(make_config):
    loops = [ScriptedReply(tool_calls=[("current_time", {})]) for _ in range(5)]
    last = ScriptedReply(text="Final.", tool_calls=[("current_time", {})])
    provider = ScriptedProvider([*loops, last])
    async with running_app(make_config(), provider=provider) as app:
        events = await turn(app, "loop forever")
    assert len(provider.requests) == 6
    assert all(r.tools and r.tool_choice == "auto" for r in provider.requests[:5])
    final = provider.requests[5]
    assert final.tool_choice == "none" and final.messages[-1].content == FINAL_ANSWER_NOTE
    assert sum(e.type == "tool_call" for e in events) == 5  # the 6th round's call is ignored
    assert text_of(events) == "Final." and events[-1].type == "done"


async def test_failing_and_slow_tools_become_error_results(make_config):
    async def boom(ctx, args):
        raise RuntimeError("sensor offline")

    async def slow(ctx, args):
        await anyio.sleep(5)
        return "never"

    schema = {"type": "object", "properties": {}}
    tools = (
        ToolSpec("boom", "always fails", schema, boom),
        ToolSpec("slow", "too slow", schema, slow, timeout=0.2),
    )
    provider = ScriptedProvider(
        [ScriptedReply(tool_calls=[("boom", {}), ("slow", {})]), ScriptedReply(text="Both failed.")]
    )
    async with running_app(make_config(), provider=provider, extra_tools=tools) as app:
        events = await turn(app, "try the tools")
    results = [e for e in events if e.type == "tool_result"]
    assert [r.name for r in results] == ["boom", "slow"]
    assert not results[0].ok and "sensor offline" in results[0].content
    assert not results[1].ok and "0.2 s" in results[1].content
    assert text_of(events) == "Both failed."


async def test_calls_of_one_round_run_concurrently_and_keep_call_order(make_config):
    log: list[str] = []

    def make(name: str, delay: float):
        async def run(ctx, args):
            log.append(f"start {name}")
            await anyio.sleep(delay)
            log.append(f"end {name}")
            return name

        return ToolSpec(name, name, {"type": "object"}, run)

    tools = (make("first", 0.3), make("second", 0.05))
    provider = ScriptedProvider(
        [ScriptedReply(tool_calls=[("first", {}), ("second", {})]), ScriptedReply(text="ok")]
    )
    async with running_app(make_config(), provider=provider, extra_tools=tools) as app:
        events = await turn(app, "both")
    assert log[:2] == ["start first", "start second"]  # both started before either ended
    assert log.index("end second") < log.index("end first")
    assert [e.content for e in events if e.type == "tool_result"] == ["first", "second"]


async def test_action_blocks_run_and_never_reach_the_user(make_config):
    provider = ScriptedProvider(
        [
            ScriptedReply(text='Let me check. [ACTION]\n{"name": "current_time"}\n[/ACTION]'),
            ScriptedReply(text="It is morning."),
        ],
        supports_tools=False,
    )
    async with running_app(make_config(), provider=provider) as app:
        events = await turn(app, "what time is it")
    visible = text_of(events)
    assert "[ACTION" not in visible and "current_time" not in visible
    assert visible == "Let me check. It is morning."
    assert any(e.type == "tool_result" and e.ok for e in events)
    stable = provider.requests[0].messages[0].content
    per_turn = provider.requests[0].messages[-2].content
    assert "[ACTION]" in stable  # how to call: part of the cached prefix
    assert "## Actions for this message" in per_turn and "- current_time(" in per_turn
    assert provider.requests[0].tools == ()
    assert "[RESULTS]" in provider.requests[1].messages[-1].content


@pytest.mark.parametrize("echo", [
    "[RESULTS]\n- current_time: whatever\n[/RESULTS]\nNow answer me using these results.",
    '\n[RESULTS]{"success", "Done"]',
    "  ",
])
async def test_a_reply_that_only_echoes_the_results_gives_the_results_as_the_answer(make_config, echo):
    provider = ScriptedProvider(
        [ScriptedReply(text='[ACTION]\n{"name": "current_time"}\n[/ACTION]'), ScriptedReply(text=echo)],
        supports_tools=False,
    )
    async with running_app(make_config(), provider=provider) as app:
        events = await turn(app, "what time is it")
        stored = await app.conversation.recent(1)
    result = next(e for e in events if e.type == "tool_result")
    assert result.ok and text_of(events).strip() == result.content.strip()
    assert "[RESULTS" not in text_of(events) and events[-1].text.strip() == result.content.strip()
    assert stored[-1].content == result.content.strip()  # the record holds what was shown


async def test_a_real_answer_after_actions_is_kept_as_it_is(make_config):
    provider = ScriptedProvider(
        [ScriptedReply(text='[ACTION]\n{"name": "current_time"}\n[/ACTION]'), ScriptedReply(text="好的，现在是早上。")],
        supports_tools=False,
    )
    async with running_app(make_config(), provider=provider) as app:
        events = await turn(app, "几点了")
    assert text_of(events) == "好的，现在是早上。"


async def test_small_talk_gets_no_actions_section(make_config):
    provider = ScriptedProvider(["Once upon a time…"], supports_tools=False, supports_grammar=True)
    async with running_app(make_config(), provider=provider) as app:
        await turn(app, "Tell me a short story about a cat.")
    request = provider.requests[0]
    per_turn = request.messages[-2].content
    assert per_turn.startswith("Current date and time (") and "## Actions" not in per_turn
    assert request.grammar is None


@pytest.mark.parametrize(("grammar", "offered"), [(True, 1), (False, 3)])
async def test_a_local_engine_is_offered_top_k_local_actions(make_config, grammar, offered):
    provider = ScriptedProvider(["好的。"], supports_tools=False, supports_grammar=grammar)
    config = make_config(actions={"top_k": 3, "top_k_local": 1, "force_threshold": 0.99})
    async with running_app(config, provider=provider) as app:
        await turn(app, "帮我记一个任务，明天下午交电费")
    per_turn = provider.requests[0].messages[-2].content
    section = per_turn[per_turn.index("## Actions for this message"):]
    lines = [line for line in section.splitlines() if line.startswith("- ")]
    assert len(lines) == offered and lines[0].startswith("- create_task("), section


@pytest.mark.parametrize("results_answer", [True, False])
async def test_a_local_engine_answers_an_action_with_its_results(make_config, results_answer):
    provider = ScriptedProvider(
        [ScriptedReply(text='[ACTION]\n{"name": "current_time"}\n[/ACTION]'), "It is morning."],
        supports_tools=False, supports_grammar=True,
    )
    config = make_config(actions={"results_answer_local": results_answer})
    async with running_app(config, provider=provider) as app:
        events = await turn(app, "what time is it")
    result = next(e for e in events if e.type == "tool_result")
    if results_answer:  # one model call; the action's own words are the answer
        assert len(provider.requests) == 1 and text_of(events).strip() == result.content.strip()
    else:
        assert len(provider.requests) == 2 and text_of(events) == "It is morning."


async def test_cancel_stops_the_turn_and_writes_nothing(make_config):
    long_text = " ".join(f"word{i}" for i in range(400))
    provider = ScriptedProvider([ScriptedReply(text=long_text, delay=0.02), "next answer"])
    async with running_app(make_config(), provider=provider) as app:
        interrupt = await ask(app.inbox, "talk a lot", channel="test")
        seen = []
        with anyio.fail_after(5):
            async for event in interrupt.reply.events:
                seen.append(event)
                if event.type == "text_delta" and len(seen) == 3:
                    interrupt.reply.cancel()
        assert seen[-1].type == "done" and seen[-1].finish_reason == "cancelled"
        assert len([e for e in seen if e.type == "text_delta"]) < 50
        assert await app.conversation.count() == 0
        events = await turn(app, "again")  # the agent keeps serving
        assert text_of(events) == "next answer"
        assert app.agent.stats.turns_cancelled == 1


async def test_newer_interrupt_can_supersede_the_running_turn(make_config):
    long_text = " ".join(f"w{i}" for i in range(300))
    provider = ScriptedProvider([ScriptedReply(text=long_text, delay=0.02), "new answer"])
    async with running_app(make_config(), provider=provider) as app:
        first = await ask(app.inbox, "long one", channel="voice")
        async for event in first.reply.events:
            if event.type == "text_delta":
                break
        second = await ask(app.inbox, "stop, new question", channel="voice", cancel_running=True)
        with anyio.fail_after(5):
            rest = [e async for e in first.reply.events]
            answer = [e async for e in second.reply.events]
    assert rest[-1].type == "done" and rest[-1].finish_reason == "cancelled"
    assert text_of(answer) == "new answer"


async def test_turns_are_serialized_in_arrival_order(make_config):
    active = 0
    overlap = False
    order: list[str] = []

    async def probe(ctx, args):
        nonlocal active, overlap
        active += 1
        overlap = overlap or active > 1
        order.append(ctx.turn_id)
        await anyio.sleep(0.05)
        active -= 1
        return "ok"

    tool = ToolSpec("probe", "probe", {"type": "object"}, probe)
    replies = []
    for i in range(4):
        replies += [ScriptedReply(tool_calls=[("probe", {})]), f"answer {i}"]
    provider = ScriptedProvider(replies)
    async with running_app(make_config(), provider=provider, extra_tools=(tool,)) as app:
        interrupts = [await ask(app.inbox, f"q{i}", channel="test") for i in range(4)]
        answers = []
        with anyio.fail_after(10):
            for it in interrupts:
                answers.append(text_of([e async for e in it.reply.events]))
    assert not overlap
    assert order == [it.turn_id for it in interrupts]
    assert answers == [f"answer {i}" for i in range(4)]


async def test_provider_error_fails_the_turn_not_the_agent(make_config):
    provider = ScriptedProvider([ScriptedReply(error="upstream exploded"), "recovered"])
    async with running_app(make_config(), provider=provider) as app:
        failed = await turn(app, "first")
        ok = await turn(app, "second")
    assert failed[-1].type == "error" and "upstream exploded" in failed[-1].message
    assert text_of(ok) == "recovered"


async def test_conversation_survives_restart_and_personality_leads_the_prompt(make_config, tmp_path):
    config = make_config()
    first = ScriptedProvider(["我记住了，你喜欢绿茶。"])
    async with running_app(config, provider=first) as app:
        await turn(app, "我喜欢绿茶")
    second = ScriptedProvider(["绿茶"])
    async with running_app(config, provider=second) as app:
        await turn(app, "我喜欢什么？")
    messages = second.requests[0].messages
    assert messages[0].role == "system"
    assert messages[0].content.startswith(app.personality.text)
    # Stable prefix, the working context, the per-turn system section, the question.
    assert [(m.role, m.content) for m in messages[1:3]] == [
        ("user", "我喜欢绿茶"),
        ("assistant", "我记住了，你喜欢绿茶。"),
    ]
    assert messages[3].role == "system" and "Current date and time" in messages[3].content
    assert (messages[4].role, messages[4].content) == ("user", "我喜欢什么？")


async def test_client_context_is_for_one_turn_only(make_config):
    provider = ScriptedProvider(["one", "two"])
    async with running_app(make_config(), provider=provider) as app:
        await turn(app, "first", context="The user is in the kitchen.")
        await turn(app, "second")
    def system_text(request) -> str:
        return "\n".join(m.content for m in request.messages if m.role == "system")

    assert "The user is in the kitchen." in system_text(provider.requests[0])
    assert "kitchen" not in system_text(provider.requests[1])


@pytest.mark.parametrize("content", [None, "", "   \n"])
async def test_missing_or_empty_personality_is_a_startup_error(tmp_path, make_config, content):
    path = tmp_path / "personal.md"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    config = make_config(agent={"personality_file": str(path)})
    with pytest.raises(PersonalityError, match="personal"):
        async with App(config, provider=ScriptedProvider()):
            pass


async def test_the_start_is_prepared_once_before_the_first_turn(make_config):
    """App.warm prepares what a first turn starts with; the agent's minute loop must not
    prepare the same state again (a second pass the first turn would race with)."""
    from dataclasses import dataclass, field

    from homeagent.llm.testing import FunctionProvider

    @dataclass
    class LocalLike(FunctionProvider):
        warmed: list = field(default_factory=list)
        warms_before_first_request: int | None = None

        async def warm(self, messages, tools=()):
            self.warmed.append(list(messages))
            return len(messages)

        async def stream(self, request):
            if self.warms_before_first_request is None:
                self.warms_before_first_request = len(self.warmed)
            async for event in super().stream(request):
                yield event

    provider = LocalLike(lambda request: "Hello!", supports_tools=False)
    async with running_app(make_config(), provider=provider) as app:
        for _ in range(20):  # let the agent loop's tasks start and run their first steps
            await anyio.lowlevel.checkpoint()
        await turn(app, "Hi")
        assert app.agent.stats.next_turns_prepared >= 1
    assert provider.warms_before_first_request == 1, provider.warmed


async def test_a_start_whose_minute_turned_while_it_warmed_is_prepared_again(make_config):
    """App.warm prepares the clock line early (beside the intent layer's training, which
    can take half a minute); if the minute turned before the daemon is ready, the new
    minute is prepared then, so the first turn evaluates only its own words."""
    from dataclasses import dataclass, field

    from homeagent.clock import FakeClock
    from homeagent.llm.testing import FunctionProvider

    @dataclass
    class LocalLike(FunctionProvider):
        warmed: list = field(default_factory=list)

        async def warm(self, messages, tools=()):
            self.warmed.append(messages[-1].content)  # the clock line
            if len(self.warmed) == 1:
                clock.advance(seconds=61)  # the rest of the start outlasts this minute
            return len(messages)

    clock = FakeClock()
    provider = LocalLike(lambda request: "Hello!", supports_tools=False)
    async with App(make_config(), provider=provider, clock=clock) as app:  # opening warms
        assert [line[-5:] for line in provider.warmed] == ["09:00", "09:01"]
        assert await app.agent.prepare_if_stale() is False  # the same minute: nothing to do
    assert len(provider.warmed) == 2
