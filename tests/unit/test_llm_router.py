"""homeagent.llm.router: failover, continuation, notices, cooldowns, budget, and failover
between engines that call functions and engines behind the `[ACTION]` dialect."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace

import pytest

from homeagent.clock import FakeClock
from homeagent.llm.base import (
    ChatRequest,
    Message,
    Notice,
    ProviderEvent,
    ProviderStatus,
    StreamDone,
    StreamError,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolDef,
    Usage,
)
from homeagent.llm.dialect import speak_native
from homeagent.llm.dialect.prompt import INSTRUCTIONS
from homeagent.llm.privacy import Scrubber
from homeagent.llm.router import Route, Router
from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from homeagent.llm.usage import UsageMeter

pytestmark = pytest.mark.anyio


@dataclass
class Step:
    """What a FakeEngine does for one request: stream `text`, then fail or finish."""

    text: str = ""
    error: str | None = None  # a failure kind
    calls: tuple[tuple[str, str], ...] = ()
    usage: tuple[int, int] = (10, 5)


@dataclass
class FakeEngine:
    name: str
    model: str = "m"
    supports_tools: bool = True
    supports_grammar: bool = False
    available: bool = True
    steps: list[Step] = field(default_factory=list)
    requests: list[ChatRequest] = field(default_factory=list)
    default: Step = field(default_factory=lambda: Step("ok"))
    probes: list[str] = field(default_factory=list)
    probe_result: str = ""

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        step = self.steps.pop(0) if self.steps else self.default
        for ch in step.text:
            yield TextDelta(ch)
        if step.error:
            yield StreamError(f"{self.name} failed: {step.error}", retryable=True, kind=step.error)
            return
        for name, args in step.calls:
            yield ToolCallEvent(ToolCall(f"id_{name}", name, args))
        yield Usage(*step.usage)
        yield StreamDone("tool_calls" if step.calls else "stop")

    def status(self) -> ProviderStatus:
        return ProviderStatus(self.name, self.model, "ready")

    async def probe(self) -> str:
        self.probes.append("probe")
        return self.probe_result

    async def start(self) -> None: ...
    async def prime(self, stable_prefix: str, tools=()) -> None: ...
    async def warm(self, messages, tools=()): return None
    async def aclose(self) -> None: ...


def req(text: str = "hello", *, tools: bool = False) -> ChatRequest:
    defs = (ToolDef("add_task", "add a task", {"type": "object", "properties": {"title": {"type": "string"}}}),)
    return ChatRequest(
        messages=(Message("system", "You are HomeAgent.\n\nNow: today"), Message("user", text)),
        tools=defs if tools else (),
        stable_prefix_chars=len("You are HomeAgent."),
    )


async def run(router: Router, request: ChatRequest) -> list[ProviderEvent]:
    return [e async for e in router.stream(request)]


def text(events: list[ProviderEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def make(*engines: FakeEngine, clock: FakeClock | None = None, **kw) -> Router:
    """A router over the engines, each wrapped in the tool dialect as the factory does."""
    routes = [Route(e.name, speak_native(e), cloud=e.name.startswith("cloud"),
                    type="llama_cpp" if e.name == "local" else "openai_compatible")
              for e in engines]
    return Router(routes, clock=clock or FakeClock(), **kw)


# -- choosing ------------------------------------------------------------------------------


async def test_healthy_first_provider_serves_and_local_is_untouched():
    cloud, local = FakeEngine("cloud", default=Step("云端回答")), FakeEngine("local")
    router = make(cloud, local)
    events = await run(router, req("你好"))
    assert text(events) == "云端回答" and isinstance(events[-1], StreamDone)
    assert local.requests == [] and router.name == "cloud" and router.status().state == "ready"


async def test_provider_without_key_is_skipped_without_a_call_and_without_notice():
    cloud = FakeEngine("cloud", available=False)
    local = FakeEngine("local", supports_tools=False, default=Step("local answer"))
    router = make(cloud, local)
    assert router.name == "local" and router.supports_tools is False
    events = await run(router, req())
    assert text(events) == "local answer"  # no notice: a missing key is a choice, not a failure
    assert cloud.requests == []
    status = router.status()
    assert status.state == "ready"
    assert [p["state"] for p in status.extra["providers"]] == ["skipped", "ready"]


async def test_failure_before_first_token_runs_the_turn_locally_with_one_notice():
    cloud = FakeEngine("cloud", default=Step(error="upstream_unavailable"))
    local = FakeEngine("local", supports_tools=False, default=Step("local answer"))
    router = make(cloud, local)
    first = await run(router, req("What time is it?"))
    notices = [e for e in first if isinstance(e, TextDelta) and "unavailable" in e.text]
    assert len(notices) == 1 and "local model" in notices[0].text
    assert text(first).endswith("local answer") and isinstance(first[-1], StreamDone)
    # The cloud cools down: the next turn goes local at once, and is not told again.
    second = await run(router, req("And the date?"))
    assert text(second) == "local answer"
    assert len(cloud.requests) == 1


async def test_chinese_user_gets_a_chinese_notice_and_event_mode_emits_notice_events():
    cloud = FakeEngine("cloud", default=Step(error="timeout"))
    local = FakeEngine("local", default=Step("本地回答"))
    events = await run(make(cloud, local, notices="event"), req("你好，现在几点？"))
    notice = [e for e in events if isinstance(e, Notice)]
    assert len(notice) == 1 and "本地模型" in notice[0].text and notice[0].kind == "failover"
    assert text(events) == "本地回答"


async def test_mid_stream_failure_keeps_the_partial_answer_and_local_continues_it():
    cloud = FakeEngine("cloud", steps=[Step("The weather is", error="upstream_unavailable")])
    local = FakeEngine("local", supports_tools=False, default=Step(" sunny."))
    events = await run(make(cloud, local), req("How is the weather?"))
    out = text(events)
    assert out.startswith("The weather is") and out.endswith(" sunny.")
    assert "broke" in out  # told once, between the two parts
    cont = local.requests[0].messages
    assert cont[-2] == Message("assistant", "The weather is")
    assert cont[-1].role == "user" and "cut off" in cont[-1].content


async def test_mid_stream_failure_with_nothing_left_ends_the_answer_where_it_stopped():
    cloud = FakeEngine("cloud", steps=[Step("部分回答", error="upstream_unavailable")])
    router = make(cloud)
    events = await run(router, req("你好"))
    assert text(events) == "部分回答" and events[-1] == StreamDone("length")


async def test_everything_failing_is_a_stream_error_naming_the_reason():
    cloud = FakeEngine("cloud", default=Step(error="rate_limited"))
    local = FakeEngine("local", default=Step(error="engine_error"))
    events = await run(make(cloud, local), req())
    assert isinstance(events[-1], StreamError) and events[-1].kind == "engine_error"


# -- cooldowns and disabling -----------------------------------------------------------


async def test_cooldown_grows_1_5_25_60_minutes_and_the_provider_is_tried_again_after():
    clock = FakeClock()
    cloud = FakeEngine("cloud", default=Step(error="upstream_unavailable"))
    local = FakeEngine("local")
    router = make(cloud, local, clock=clock)
    expected = [60, 300, 1500, 3600, 3600]
    for minutes in expected:
        await run(router, req())
        route = router.routes[0]
        assert route.cooldown_until - clock.now().timestamp() == pytest.approx(minutes)
        assert router.name == "local"
        clock.advance(seconds=minutes - 1)
        await run(router, req())  # still cooling: local, no new cloud call
        calls = len(cloud.requests)
        clock.advance(seconds=1)
        assert router.name == "cloud"  # cooldown over: probed again by the next request
    assert calls == len(expected)
    cloud.default = Step("back")
    assert text(await run(router, req())) == "back"
    assert router.routes[0].failures == 0 and router.routes[0].cooldown_until == 0


async def test_probe_due_recovers_a_provider_without_spending_a_turn():
    clock = FakeClock()
    cloud = FakeEngine("cloud", steps=[Step(error="timeout")])
    router = make(cloud, FakeEngine("local"), clock=clock)
    await run(router, req())
    assert await router.probe_due() == []  # not due yet
    clock.advance(seconds=61)
    cloud.probe_result = "upstream_unavailable"
    assert await router.probe_due() == []
    assert router.routes[0].failures == 2  # the failed probe moved it to the 5-minute step
    clock.advance(seconds=301)
    cloud.probe_result = ""
    assert await router.probe_due() == ["cloud"]
    assert router.name == "cloud" and len(cloud.requests) == 1


@pytest.mark.parametrize("kind", ["auth_failed", "billing", "model_not_found"])
async def test_auth_and_billing_errors_disable_until_the_config_changes(kind):
    clock = FakeClock()
    cloud = FakeEngine("cloud", default=Step(error=kind))
    router = make(cloud, FakeEngine("local"), clock=clock)
    await run(router, req())
    clock.advance(hours=48)
    await run(router, req())
    assert len(cloud.requests) == 1
    provider = router.status().extra["providers"][0]
    assert provider["state"] == "disabled" and provider["error_kind"] == kind
    assert router.status().state == "degraded"


async def test_bad_request_moves_on_without_a_cooldown():
    cloud = FakeEngine("cloud", steps=[Step(error="bad_request")], default=Step("fine"))
    router = make(cloud, FakeEngine("local"))
    await run(router, req())
    assert router.routes[0].cooldown_until == 0 and router.name == "cloud"


# -- budget and metering -----------------------------------------------------------------


async def test_daily_cloud_budget_sends_turns_local_with_one_notice_per_day():
    clock = FakeClock()
    cloud = FakeEngine("cloud", default=Step("cloud", usage=(600, 500)))
    local = FakeEngine("local", default=Step("local"))
    meter = UsageMeter(clock=clock)
    router = make(cloud, local, clock=clock, meter=meter, daily_cloud_tokens=1000)
    assert text(await run(router, req())) == "cloud"
    assert meter.cloud_tokens_today() == 1100 and router.name == "local"
    over = await run(router, req("again"))
    assert "budget" in text(over) and text(over).endswith("local")
    assert text(await run(router, req("and again"))) == "local"  # told once
    assert router.status().extra["providers"][0]["state"] == "over_budget"
    clock.advance(days=1)
    assert router.name == "cloud" and text(await run(router, req())) == "cloud"
    rows = await meter.rows()
    assert {(r.provider, r.cloud) for r in rows} == {("cloud", True), ("local", False)}


async def test_failures_are_metered_too():
    meter = UsageMeter(clock=FakeClock())
    router = make(FakeEngine("cloud", default=Step(error="timeout")), FakeEngine("local"), meter=meter)
    await run(router, req())
    by = {r.provider: r for r in await meter.rows()}
    assert by["cloud"].failures == 1 and by["cloud"].total_tokens == 0
    assert by["local"].requests == 1 and by["local"].total_tokens == 15


# -- privacy -----------------------------------------------------------------------------


async def test_cloud_sees_placeholders_user_and_tools_see_real_values_local_sees_raw():
    phone = "13812345678"
    cloud = FakeEngine("cloud", steps=[Step("I will call [PHONE_1] for [NAME_1].",
                                            calls=(("add_task", '{"title": "call [PHONE_1]"}'),))])
    local = FakeEngine("local")
    router = make(cloud, local, scrubber=Scrubber(["王小明"]))
    events = await run(router, req(f"提醒我给王小明打电话 {phone}", tools=True))
    sent = json.dumps([m.content for m in cloud.requests[0].messages], ensure_ascii=False)
    assert phone not in sent and "王小明" not in sent and "[PHONE_1]" in sent
    assert text(events) == f"I will call {phone} for 王小明."
    call = next(e.call for e in events if isinstance(e, ToolCallEvent))
    assert json.loads(call.arguments) == {"title": f"call {phone}"}
    # A local engine gets the raw text.
    router2 = make(FakeEngine("cloud", default=Step(error="timeout")), local, scrubber=Scrubber(["王小明"]))
    await run(router2, req(f"王小明 {phone}"))
    assert phone in local.requests[-1].messages[-1].content


# -- tools: the flag and the bridge ---------------------------------------------------------


async def test_supports_tools_follows_the_provider_used_next():
    cloud = FakeEngine("cloud", default=Step(error="timeout"))
    local = FakeEngine("local", supports_tools=False)
    router = make(cloud, local)
    assert router.supports_tools is True
    await run(router, req())
    assert router.supports_tools is False


async def test_grammar_support_follows_the_provider_used_next_and_never_reaches_a_cloud():
    skipped = FakeEngine("cloud", available=False)
    local = FakeEngine("local", supports_tools=False, supports_grammar=True)
    assert make(skipped, local).supports_grammar is True  # `make run` without a key

    cloud = FakeEngine("cloud", supports_tools=False, default=Step(error="timeout"))
    local = FakeEngine("local", supports_tools=False, supports_grammar=True)
    router = make(cloud, local)
    assert router.supports_grammar is False
    required = replace(req("add a task: buy milk", tools=True), tool_choice="required")
    await run(router, required)
    # The cloud route never sees a grammar; the local one it failed over to does.
    assert cloud.requests[0].grammar is None
    assert local.requests[0].grammar is not None and '"[ACTION]"' in local.requests[0].grammar
    assert router.supports_grammar is True


async def test_native_request_failing_over_to_an_action_engine_is_translated_both_ways():
    cloud = FakeEngine("cloud", default=Step(error="upstream_unavailable"))
    action_reply = 'Adding it.\n[ACTION]\n{"name": "add_task", "title": "买牛奶"}\n[/ACTION]'
    local = FakeEngine("local", supports_tools=False, default=Step(action_reply))
    router = make(cloud, local, notices="off")
    events = await run(router, req("remember milk", tools=True))
    sent = local.requests[0]
    head = "You are HomeAgent.\n\n" + INSTRUCTIONS
    assert sent.tools == () and sent.messages[0].content.startswith(head)
    assert sent.stable_prefix_chars == len(head) and sent.messages[0].content[len(head):] == "\n\nNow: today"
    assert "[ACTION]" not in text(events) and text(events).strip() == "Adding it."
    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("add_task", {"title": "买牛奶"})]
    assert events[-1] == StreamDone("tool_calls")

    # The next round carries native history: it becomes [ACTION] blocks and [RESULTS].
    history = (
        *req("remember milk", tools=True).messages,
        Message("assistant", "Adding it.", tool_calls=(calls[0],)),
        Message("tool", "ok: task 7", tool_call_id=calls[0].id, name="add_task"),
    )
    await run(router, ChatRequest(messages=history, tools=req(tools=True).tools, stable_prefix_chars=18))
    second = local.requests[1].messages
    assert second[2].content == action_reply  # the model's own bytes: its cached state holds
    assert second[3].role == "user" and "[RESULTS]\n- add_task: ok: task 7" in second[3].content


async def test_the_offered_actions_are_rendered_from_the_request():
    local = FakeEngine("local", supports_tools=False)
    router = make(FakeEngine("cloud", available=False), local)
    await run(router, replace(req("add a task: buy milk", tools=True), tool_choice="required"))
    sent = local.requests[0].messages
    assert sent[0].content.startswith("You are HomeAgent.\n\n") and sent[0].content.endswith("\n\nNow: today")
    # This prompt has no turn section of its own: the offer comes right before the user.
    assert sent[1] == Message("system", "## Actions for this message\n- add_task(title?) — add a task")
    assert sent[2] == Message("user", "add a task: buy milk")


async def test_tools_unsupported_retries_the_same_provider_in_action_form():
    engine = FakeEngine("cloud_ollama", steps=[Step(error="tools_unsupported")], default=Step("plain"))

    async def flip():  # the real Ollama provider flips its own flag when refused
        engine.supports_tools = False

    original = engine.stream

    async def stream(request):
        async for e in original(request):
            if isinstance(e, StreamError):
                await flip()
            yield e

    engine.stream = stream  # type: ignore[method-assign]
    router = make(engine)
    events = await run(router, req(tools=True))
    assert text(events) == "plain" and len(engine.requests) == 2
    assert engine.requests[1].tools == ()


async def test_tool_calls_that_arrived_before_a_failure_are_kept():
    cloud = FakeEngine("cloud", steps=[Step(calls=(("add_task", "{}"),))])

    async def stream(request):  # calls, then the connection dies before [DONE]
        yield ToolCallEvent(ToolCall("c1", "add_task", "{}"))
        yield StreamError("dropped", kind="upstream_unavailable")

    cloud.stream = stream  # type: ignore[method-assign]
    events = await run(make(cloud, FakeEngine("local")), req(tools=True))
    assert [type(e).__name__ for e in events] == ["ToolCallEvent", "StreamDone"]


async def test_router_works_with_the_scripted_fake_and_switch_replaces_an_engine():
    router = make(FakeEngine("cloud", default=Step(error="timeout")), FakeEngine("local"), notices="off")
    await router.switch("local", ScriptedProvider([ScriptedReply("switched")], name="local2"))
    assert text(await run(router, req())) == "switched"
    with pytest.raises(KeyError):
        await router.switch("nope", ScriptedProvider())


async def test_background_work_through_the_quiet_view_never_spends_the_notice():
    cloud = FakeEngine("cloud", default=Step(error="timeout"))
    local = FakeEngine("local", default=Step("distilled"))
    router = make(cloud, local)
    quiet = router.quiet()
    assert quiet.name == "cloud" and quiet.supports_tools is True
    assert text([e async for e in quiet.stream(req("distil this"))]) == "distilled"
    assert router.name == "local"  # the failure counted: the cloud cools down
    # The user's next turn is the first one they see on the local engine: they are told.
    assert "unavailable" in text(await run(router, req("hello")))


@dataclass
class WarmEngine(FakeEngine):
    warmed: list = field(default_factory=list)

    async def warm(self, messages, tools=()):
        self.warmed.append(messages)
        return len(messages)


async def test_warm_goes_to_the_engine_that_serves_next_only():
    cloud = FakeEngine("cloud", default=Step(error="timeout"))
    local = WarmEngine("local", supports_tools=False)
    router = make(cloud, local)
    messages = [Message("system", "You are HomeAgent.")]
    assert await router.warm(messages) is None and local.warmed == []  # the cloud serves next
    await run(router, req())  # the cloud fails and cools down: the local engine is next
    assert await router.warm(messages) == 1 and local.warmed == [messages]
