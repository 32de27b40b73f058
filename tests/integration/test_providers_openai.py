"""The OpenAI-compatible provider against a fault-injecting upstream on loopback.

Every error class, the retry policy, split tool-call deltas, non-streaming, and that the
key never shows up in an error, a status or a log line.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import anyio
import pytest

from homeagent.llm.base import (
    ChatRequest,
    Message,
    StreamDone,
    StreamError,
    TextDelta,
    ToolCallEvent,
    ToolDef,
    Usage,
)
from homeagent.llm.credentials import Secret
from homeagent.llm.failures import Backoff
from homeagent.llm.fake_upstream import FakeUpstream, Fault
from homeagent.llm.http import HttpOptions
from homeagent.llm.openai_compat import OpenAICompatProvider
from homeagent.log import configure_logging
from tests.conftest import free_port

pytestmark = pytest.mark.anyio
KEY = "plainkey0123456789zz"


@pytest.fixture
def logs() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    stream = io.StringIO()
    configure_logging("debug", "json", stream)
    yield stream
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture
async def upstream() -> FakeUpstream:
    async with FakeUpstream() as up:
        yield up


def provider(up_url: str, *, key: str = KEY, retries: int = 3, read_timeout: float = 10, **kw) -> OpenAICompatProvider:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:  # the backoff, recorded instead of waited
        slept.append(seconds)
        await anyio.lowlevel.checkpoint()

    p = OpenAICompatProvider(
        name="cloud", base_url=up_url, model="fake-model", api_key=Secret(key),
        options=HttpOptions(connect_timeout=2, read_timeout=read_timeout, max_retries=retries,
                            backoff=Backoff(base=0.5)),
        sleep=sleep, **kw,
    )
    p.slept = slept  # type: ignore[attr-defined]
    return p


def request(text: str = "你好 hello", tools: bool = False) -> ChatRequest:
    defs = (ToolDef("add_task", "add a task", {"type": "object", "properties": {"title": {"type": "string"}}}),)
    return ChatRequest(messages=(Message("system", "sys"), Message("user", text)), tools=defs if tools else (),
                       temperature=0.3, max_tokens=64)


async def collect(p: OpenAICompatProvider, req: ChatRequest | None = None) -> list:
    with anyio.fail_after(30):
        events = [e async for e in p.stream(req or request())]
    await p.aclose()
    return events


def text(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


async def test_streamed_answer_usage_and_request_body(upstream: FakeUpstream):
    upstream.push(Fault(text="你好！Hello there.", reasoning="let me think", piece=3))
    p = provider(upstream.base_url, thinking="off", max_tokens=500)
    events = await collect(p, request(tools=True))
    assert text(events) == "你好！Hello there."  # the reasoning is not shown
    assert isinstance(events[-2], Usage) and events[-2].cached_tokens == 3
    assert events[-1] == StreamDone("stop")
    sent = upstream.chat_requests[0]
    assert sent.authorized and sent.body["stream"] is True and sent.body["max_tokens"] == 500
    assert sent.body["thinking"] == {"type": "disabled"} and sent.body["temperature"] == 0.3
    assert sent.body["tools"][0]["function"]["name"] == "add_task"
    assert p.status().state == "ready"


async def test_split_tool_call_deltas_are_assembled(upstream: FakeUpstream):
    calls = (("add_task", json.dumps({"title": "买牛奶 and eggs", "due": "2026-01-02"}, ensure_ascii=False)),
             ("current_time", "{}"))
    upstream.push(Fault(text="", tool_calls=calls, piece=2))
    events = await collect(provider(upstream.base_url), request(tools=True))
    got = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.name, json.loads(c.arguments)) for c in got] == [
        ("add_task", {"title": "买牛奶 and eggs", "due": "2026-01-02"}), ("current_time", {})]
    assert all(c.id for c in got) and events[-1] == StreamDone("tool_calls")


async def test_non_streaming_gives_the_same_events(upstream: FakeUpstream):
    upstream.push(Fault(text="whole answer 完整", tool_calls=(("add_task", '{"title": "x"}'),)))
    events = await collect(provider(upstream.base_url, streaming=False))
    assert text(events) == "whole answer 完整"
    assert [e.call.name for e in events if isinstance(e, ToolCallEvent)] == ["add_task"]
    assert upstream.chat_requests[0].body["stream"] is False and isinstance(events[-1], StreamDone)


@pytest.mark.parametrize(("status", "kind"), [(401, "auth_failed"), (403, "auth_failed"), (402, "billing"),
                                               (404, "model_not_found"), (400, "bad_request")])
async def test_errors_that_are_not_retried(upstream: FakeUpstream, status: int, kind: str, logs: io.StringIO):
    upstream.push(Fault("status", status=status, body=json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}"}})))
    p = provider(upstream.base_url)
    events = await collect(p)
    error = events[-1]
    assert isinstance(error, StreamError) and error.kind == kind and not error.retryable
    assert len(upstream.chat_requests) == 1 and p.slept == []
    assert KEY not in error.message and f"HTTP {status}" in error.message
    status_now = p.status()
    assert status_now.state == "error" and status_now.extra["error_kind"] == kind and KEY not in status_now.detail
    lines = [json.loads(line) for line in logs.getvalue().splitlines()]
    failed = [line for line in lines if line["event"] == "llm.provider.failed"]
    assert failed and failed[0]["error_kind"] == kind
    assert KEY not in logs.getvalue()


async def test_rate_limit_is_retried_after_retry_after_then_succeeds(upstream: FakeUpstream):
    upstream.push(Fault("status", status=429, headers={"Retry-After": "2"}), Fault(text="ok now"))
    p = provider(upstream.base_url)
    events = await collect(p)
    assert text(events) == "ok now" and p.slept == [2.0] and len(upstream.chat_requests) == 2


async def test_long_retry_after_is_not_waited_for(upstream: FakeUpstream):
    upstream.push(Fault("status", status=429, headers={"Retry-After": "300"}))
    p = provider(upstream.base_url)
    events = await collect(p)
    assert events[-1].kind == "rate_limited" and p.slept == [] and len(upstream.chat_requests) == 1


async def test_server_errors_are_retried_with_backoff_at_most_three_times(upstream: FakeUpstream):
    upstream.default = Fault("status", status=500)
    p = provider(upstream.base_url)
    events = await collect(p)
    assert events[-1].kind == "upstream_unavailable" and events[-1].retryable
    assert len(upstream.chat_requests) == 4 and p.slept == [0.5, 1.0, 2.0] and p.retries == 3
    upstream.default = Fault()
    upstream.push(Fault("status", status=503), Fault("status", status=502))
    p2 = provider(upstream.base_url)
    assert text(await collect(p2)) == "你好 hello" and p2.slept == [0.5, 1.0]


async def test_a_hanging_upstream_times_out_without_a_retry(upstream: FakeUpstream):
    upstream.push(Fault("hang"))
    p = provider(upstream.base_url, read_timeout=0.5)
    events = await collect(p)
    assert events[-1].kind == "timeout" and len(upstream.chat_requests) == 1 and p.slept == []


async def test_connection_refused_is_unavailable_after_retries():
    p = provider(f"http://127.0.0.1:{free_port()}/v1")
    events = await collect(p)
    assert events[-1].kind == "upstream_unavailable" and "cannot connect" in events[-1].message
    assert p.slept == [0.5, 1.0, 2.0]


async def test_stream_dropped_mid_answer_keeps_the_text_and_is_not_retried(upstream: FakeUpstream):
    upstream.push(Fault("drop", text="one two three four five six", piece=4, drop_after=4))
    p = provider(upstream.base_url)
    events = await collect(p)
    assert text(events) == "one two "  # what arrived before the cut
    assert events[-1].kind == "upstream_unavailable" and len(upstream.chat_requests) == 1


@pytest.mark.parametrize(("fault", "needle"), [
    (Fault("broken_json", drop_after=3), "not JSON"),
    (Fault("html"), "text/html"),
])
async def test_malformed_responses(upstream: FakeUpstream, fault: Fault, needle: str):
    upstream.push(fault)
    events = await collect(provider(upstream.base_url))
    assert events[-1].kind == "malformed_response" and needle in events[-1].message
    assert len(upstream.chat_requests) == 1


async def test_a_stream_closed_without_done_is_a_failure_not_a_short_answer(upstream: FakeUpstream):
    upstream.push(Fault("no_done", text="abc"))
    events = await collect(provider(upstream.base_url, retries=0))
    assert isinstance(events[-1], StreamError) and events[-1].kind == "upstream_unavailable"


async def test_missing_key_means_no_network_call(upstream: FakeUpstream):
    p = provider(upstream.base_url, key="")
    events = await collect(p)
    assert events[-1].kind == "missing_credential" and upstream.requests == []
    assert p.status().state == "skipped" and await p.probe() == "missing_credential"


async def test_model_discovery_and_probe(upstream: FakeUpstream):
    upstream.models = ("deepseek-v4-flash", "deepseek-v4-pro")
    p = provider(upstream.base_url)
    assert await p.list_models() == ["deepseek-v4-flash", "deepseek-v4-pro"]
    assert await p.probe() == ""
    await p.aclose()
    dead = provider(f"http://127.0.0.1:{free_port()}/v1")
    assert await dead.probe() == "upstream_unavailable"
    await dead.aclose()


async def test_wrong_key_against_a_checking_upstream():
    async with FakeUpstream(api_key="the-right-key") as up:
        events = await collect(provider(up.base_url, key="the-wrong-key"))
        assert events[-1].kind == "auth_failed" and "the-wrong-key" not in events[-1].message
        good = await collect(provider(up.base_url, key="the-right-key"))
        assert isinstance(good[-1], StreamDone)


async def test_closing_the_stream_early_stops_the_request(upstream: FakeUpstream):
    upstream.push(Fault(text="x" * 400, piece=1, delay=0.01))
    p = provider(upstream.base_url)
    got = []
    with anyio.fail_after(20):
        async with __import__("contextlib").aclosing(p.stream(request())) as events:
            async for event in events:
                got.append(event)
                if len(got) == 3:
                    break
    await p.aclose()
    assert len(got) == 3


async def test_doctor_probe_reaches_the_upstream(upstream: FakeUpstream, tmp_path):
    from homeagent.config import load_config
    from homeagent.llm.checks import provider_checks

    path = tmp_path / "c.yaml"
    path.write_text(
        f"daemon: {{data_dir: {tmp_path}}}\nllm:\n  providers:\n"
        f"    up: {{type: openai_compatible, base_url: '{upstream.base_url}', model: m, api_key: k-1234, location: cloud}}\n"
        f"    dead: {{type: openai_compatible, base_url: 'http://127.0.0.1:{free_port()}/v1', model: m, location: local}}\n"
        "  chain: [up, dead]\n")
    cfg = load_config(path, env={})
    checks = await anyio.to_thread.run_sync(lambda: provider_checks(cfg, probe=True, timeout=10, env={}))
    assert [(c.name, c.ok) for c in checks] == [("provider up", True), ("provider dead", False)]
    assert "answers" in checks[0].detail and "upstream_unavailable" in checks[1].detail
    assert any(r.path == "/v1/models" for r in upstream.requests)
