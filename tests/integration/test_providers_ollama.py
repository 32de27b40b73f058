"""The Ollama provider against an Ollama-protocol fake on loopback: JSON-lines streaming,
tools, /api/tags discovery, /api/show capabilities, and the failure classes."""

from __future__ import annotations

import json

import anyio
import pytest

from homeagent.llm.base import (
    ChatRequest,
    Message,
    StreamDone,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolDef,
    Usage,
)
from homeagent.llm.dialect import speak_native
from homeagent.llm.fake_upstream import FakeUpstream, Fault
from homeagent.llm.http import HttpOptions
from homeagent.llm.ollama import OllamaProvider
from homeagent.llm.router import Route, Router
from tests.conftest import free_port

pytestmark = pytest.mark.anyio
TOOLS = (ToolDef("add_task", "add a task", {"type": "object", "properties": {"title": {"type": "string"}}}),)


def ollama(url: str, **kw) -> OllamaProvider:
    return OllamaProvider(name="box", base_url=url, model="qwen2.5:7b", cloud=False,
                          options=HttpOptions(connect_timeout=2, read_timeout=5, max_retries=kw.pop("retries", 0)), **kw)


async def collect(p: OllamaProvider, req: ChatRequest) -> list:
    with anyio.fail_after(30):
        events = [e async for e in p.stream(req)]
    return events


def req(text: str = "你好 Ollama", tools: bool = False, history: tuple[Message, ...] = ()) -> ChatRequest:
    return ChatRequest(messages=(Message("system", "sys"), *history, Message("user", text)),
                       tools=TOOLS if tools else (), temperature=0.2, max_tokens=32, stop=("</s>",))


async def test_streams_text_and_usage_and_sends_ollama_options():
    async with FakeUpstream("ollama") as up:
        p = ollama(up.url, thinking="off", keep_alive="10m")
        events = await collect(p, req())
        await p.aclose()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "你好 Ollama"
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.prompt_tokens == 9 and events[-1] == StreamDone("stop")
    body = up.chat_requests[0].body
    assert body["options"] == {"temperature": 0.2, "num_predict": 32, "stop": ["</s>"]}
    assert body["think"] is False and body["keep_alive"] == "10m" and body["stream"] is True
    assert not up.chat_requests[0].authorized


async def test_tool_calls_and_tool_history_in_ollama_form():
    async with FakeUpstream("ollama") as up:
        up.push(Fault(text="", tool_calls=(("add_task", '{"title": "买菜"}'),)))
        p = ollama(up.url)
        await p.start()
        assert p.supports_tools and p.capabilities == ("completion", "tools")
        history = (
            Message("assistant", "", tool_calls=(ToolCall("c1", "add_task", '{"title": "old"}'),)),
            Message("tool", "ok", tool_call_id="c1", name="add_task"),
        )
        events = await collect(p, req("again", tools=True, history=history))
        await p.aclose()
    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("add_task", {"title": "买菜"})]
    sent = up.chat_requests[0].body
    assert sent["tools"][0]["function"]["name"] == "add_task"
    assert sent["messages"][1]["tool_calls"][0]["function"]["arguments"] == {"title": "old"}  # an object, not text
    assert sent["messages"][2] == {"role": "tool", "content": "ok", "tool_name": "add_task"}


async def test_model_without_tools_is_detected_at_start():
    async with FakeUpstream("ollama", capabilities=("completion",)) as up:
        p = ollama(up.url)
        await p.start()
        assert p.supports_tools is False
        await p.aclose()


async def test_tools_refused_later_switch_the_router_to_the_action_protocol():
    async with FakeUpstream("ollama", capabilities=("completion",)) as up:
        up.push(Fault(text='OK\n[ACTION]\n{"name": "add_task", "title": "milk"}\n[/ACTION]'))
        p = ollama(up.url)  # not started: it still believes in tools
        router = Router([Route("box", speak_native(p), cloud=False, type="ollama")])  # as the factory builds it
        with anyio.fail_after(30):
            events = [e async for e in router.stream(req("remember milk", tools=True))]
        await p.aclose()
    assert p.supports_tools is False and router.supports_tools is False
    assert len(up.chat_requests) == 2 and "tools" not in up.chat_requests[1].body
    assert "[ACTION]" not in "".join(e.text for e in events if isinstance(e, TextDelta))
    assert [e.call.name for e in events if isinstance(e, ToolCallEvent)] == ["add_task"]


async def test_model_discovery_via_api_tags():
    async with FakeUpstream("ollama", models=("qwen2.5:7b", "llama3.2:1b")) as up:
        p = ollama(up.url)
        assert await p.list_models() == ["llama3.2:1b", "qwen2.5:7b"]
        assert await p.probe() == ""
        await p.aclose()


@pytest.mark.parametrize(("fault", "kind"), [
    (Fault("status", status=404), "model_not_found"),
    (Fault("status", status=500), "upstream_unavailable"),
    (Fault("drop", drop_after=2, piece=2), "upstream_unavailable"),
    (Fault("broken_json", drop_after=1), "malformed_response"),
    (Fault("no_done"), "upstream_unavailable"),
])
async def test_failure_classes(fault: Fault, kind: str):
    async with FakeUpstream("ollama") as up:
        up.push(fault)
        p = ollama(up.url)
        events = await collect(p, req())
        await p.aclose()
    assert events[-1].kind == kind and p.status().extra["error_kind"] == kind


async def test_unreachable_ollama_is_classified_and_start_is_not_fatal():
    p = ollama(f"http://127.0.0.1:{free_port()}")
    await p.start()  # capabilities unknown, no exception
    events = await collect(p, req())
    await p.aclose()
    assert events[-1].kind == "upstream_unavailable"
