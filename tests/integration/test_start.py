"""`App.run()` with the prime deferred (as `homeagent serve` does): HTTP answers while the
engine warms, and a turn that arrives meanwhile waits for the prime, then is answered."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import aiohttp
import anyio
import openai
import pytest

from homeagent.intent.training import LazyTemplates
from homeagent.llm.base import ToolDef
from homeagent.llm.testing import ScriptedProvider

from .helpers import running_app, text_of, turn

pytestmark = pytest.mark.anyio


@dataclass
class SlowPrime(ScriptedProvider):
    """A scripted engine whose prime lasts until the test releases it."""

    release: anyio.Event | None = None
    primed: bool = False

    async def prime(self, stable_prefix: str, tools: Sequence[ToolDef] = ()) -> None:
        assert self.release is not None and stable_prefix
        await self.release.wait()
        self.primed = True


async def _health(base: str) -> dict:
    async with aiohttp.ClientSession() as s, s.get(base + "/healthz") as r:
        assert r.status == 200
        return await r.json()


async def _trained(app) -> None:
    # trained in a worker thread behind HTTP: 30-40 s on a quiet box, over 100 s on one shared
    # with other heavy work (12,200 phrasings)
    for _ in range(4800):
        if app.intent is not None and app.intent.model.ready:
            return
        await anyio.sleep(0.05)
    raise AssertionError("the intent layer never trained")


async def test_healthz_says_warming_and_a_turn_waits_for_the_prime(make_config):
    provider = SlowPrime(replies=["answered after the prime"], release=anyio.Event())
    async with running_app(make_config(), provider=provider, http=True, prime_on_open=False) as app:
        base = f"http://127.0.0.1:{app.health.port}"
        health = await _health(base)
        assert health["status"] == "ok" and health["engine"] == "warming"
        assert not app.engine_ready.is_set()

        replies: list[str] = []
        async with openai.AsyncOpenAI(base_url=base + "/v1", api_key="unused", max_retries=0) as oa:

            async def chat() -> None:
                reply = await oa.chat.completions.create(
                    model="homeagent", messages=[{"role": "user", "content": "你好 hello"}]
                )
                replies.append(reply.choices[0].message.content or "")

            async with anyio.create_task_group() as tg:
                tg.start_soon(chat)
                for _ in range(1000):  # the turn reaches the inbox (polled over HTTP, as a client sees it)
                    if (await _health(base))["agent"]["pending"] >= 1:
                        break
                    await anyio.sleep(0.01)
                else:
                    raise AssertionError("the chat never reached the inbox")
                # Queued, not failed, and the engine not asked before its prime.
                assert provider.requests == [] and not replies
                provider.release.set()
        assert replies == ["answered after the prime"] and provider.primed
        assert (await _health(base))["engine"] == "ready" and app.engine_ready.is_set()


async def test_a_failed_prime_leaves_a_daemon_that_answers(make_config):
    @dataclass
    class BrokenPrime(ScriptedProvider):
        async def prime(self, stable_prefix: str, tools: Sequence[ToolDef] = ()) -> None:
            raise RuntimeError("state file unreadable")

    provider = BrokenPrime(replies=["still here"])
    async with running_app(make_config(), provider=provider, http=True, prime_on_open=False) as app:
        base = f"http://127.0.0.1:{app.health.port}"
        with anyio.fail_after(10):
            await app.engine_ready.wait()
        assert (await _health(base))["engine"] == "ready"
        async with openai.AsyncOpenAI(base_url=base + "/v1", api_key="unused", max_retries=0) as oa:
            reply = await oa.chat.completions.create(model="homeagent", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "still here"


async def test_the_intent_layer_trains_behind_http_and_a_restart_loads_its_saved_model(make_config):
    from homeagent.intent import layer as intent_layer

    config = make_config(actions={"intent": True})
    intent_layer._MODELS.clear()  # this process's copies: the test is about the file
    provider = SlowPrime(replies=[], release=anyio.Event())
    async with running_app(config, provider=provider, http=True, prime_on_open=False) as app:
        assert app.intent is not None
        # Opened and serving HTTP without the layer trained: it trains behind HTTP.
        base = f"http://127.0.0.1:{app.health.port}"
        assert (await _health(base))["status"] == "ok"
        provider.release.set()
        await _trained(app)
        assert app.intent.model_source == "trained"
        # A command that waited for the layer is answered by it, not by the model.
        events = await turn(app, "提醒我明天下午3点交电费")
        assert provider.requests == [] and "交电费" in text_of(events)
    assert (config.data_dir / "intent-model.npz").is_file()

    intent_layer._MODELS.clear()
    provider = SlowPrime(replies=[], release=anyio.Event())
    provider.release.set()
    async with running_app(config, provider=provider, http=True, prime_on_open=False) as app:
        await _trained(app)
        assert app.intent.model_source == "file"
        templates = app.intent.templates
        assert isinstance(templates, LazyTemplates) and templates.built() == []  # nothing built to load a model
        events = await turn(app, "add milk and eggs to the shopping list")
        assert provider.requests == []
        assert "add_shopping_item" in templates.built() and len(templates.built()) < 10
        items = [r["name"] for r in await app.db.fetchall("SELECT name FROM shopping_items ORDER BY id")]
    assert sorted(items) == ["eggs", "milk"]  # one call each, run side by side


async def test_the_intent_warm_up_waits_while_a_turn_is_served(make_config):
    async with running_app(make_config(actions={"intent": True}), provider=ScriptedProvider([])) as app:
        assert app.intent is not None
        answers = iter([True] * 5)
        calls: list[bool] = []

        def busy() -> bool:  # a turn is in progress for the first five looks
            calls.append(next(answers, False))
            return calls[-1]

        await anyio.to_thread.run_sync(lambda: app.intent.warm_up(busy=busy))
    # It looked before each step, waited out the busy looks, then finished every step.
    assert calls[:5] == [True] * 5 and len(calls) > 6 and not any(calls[5:])


async def test_the_intent_warm_up_is_done_before_the_daemon_says_ready(make_config):
    """Python work in a worker thread holds the interpreter against the event loop: a
    warm-up left running after `engine: ready` made the first turn wait 130-570 ms
    before its HTTP handler even ran. It runs beside the prime, before ready."""
    import threading
    import time

    from homeagent.intent import layer as intent_layer

    config = make_config(actions={"intent": True})
    finished = threading.Event()
    original = intent_layer.IntentLayer.warm_up

    def slow(self, busy=lambda: False) -> None:  # a warm-up that takes a noticeable while
        original(self, busy)
        time.sleep(0.3)
        finished.set()

    provider = SlowPrime(replies=[], release=anyio.Event())
    provider.release.set()
    intent_layer.IntentLayer.warm_up = slow
    try:
        async with running_app(config, provider=provider, http=True, prime_on_open=False) as app:
            with anyio.fail_after(120):
                await app.engine_ready.wait()
            assert finished.is_set()
            assert (await _health(f"http://127.0.0.1:{app.health.port}"))["engine"] == "ready"
    finally:
        intent_layer.IntentLayer.warm_up = original


async def test_a_stop_while_the_intent_layer_trains_does_not_wait_for_the_training():
    import threading

    from homeagent.clock import SystemClock
    from homeagent.intent import IntentLayer
    from homeagent.tools.registry import ToolRegistry

    release = threading.Event()

    class SlowLayer(IntentLayer):
        def train_sync(self, *args, **kwargs) -> None:  # a training that takes "forever"
            release.wait(30)

    layer = SlowLayer(ToolRegistry(), clock=SystemClock())
    try:
        with anyio.fail_after(5):  # not the 30 s the training would take
            with anyio.move_on_after(0.2) as scope:
                await layer.train()
        assert scope.cancelled_caught and not layer.model.ready
    finally:
        release.set()
