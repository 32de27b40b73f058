"""homeagent.llm.testing and echo: lossless word splitting and deterministic fake providers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import pytest

from homeagent.llm.base import (
    ChatRequest,
    Message,
    Provider,
    ProviderEvent,
    StreamDone,
    StreamError,
    TextDelta,
    ToolCallEvent,
    Usage,
)
from homeagent.llm.echo import EchoProvider
from homeagent.llm.testing import FunctionProvider, ScriptedProvider, ScriptedReply, split_words

SAMPLES = [
    "你好世界",
    "Hello, world! How are you?",
    "今天天气不错，let's go outside 散步 at 5pm。",
    "   \n\t  ",
    "",
    "😀 emoji 👍🏽 and 👨‍👩‍👧 family 你好😀",
    "tabs\tand\nnew lines\n\n",
    "  leading and trailing  ",
    "한국어와 日本語のテキスト",
    "ｆｕｌｌｗｉｄｔｈ　ｓｐａｃｅ",
    "a",
]


def request(*messages: tuple[str, str]) -> ChatRequest:
    return ChatRequest(messages=tuple(Message(role, text) for role, text in messages))  # type: ignore[arg-type]


async def collect(stream: AsyncIterator[ProviderEvent]) -> list[ProviderEvent]:
    return [event async for event in stream]


def text_of(events: list[ProviderEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


# -- split_words ------------------------------------------------------------------------


@pytest.mark.parametrize("text", SAMPLES)
def test_split_words_is_lossless(text: str) -> None:
    pieces = split_words(text)
    assert "".join(pieces) == text
    assert all(pieces), "no empty pieces"


def test_split_words_cjk_characters_stand_alone() -> None:
    assert split_words("你好世界") == ["你", "好", "世", "界"]


def test_split_words_latin_words_keep_trailing_space() -> None:
    assert split_words("hello big  world") == ["hello ", "big  ", "world"]


def test_split_words_mixed() -> None:
    assert split_words("hi你好 there") == ["hi", "你", "好", " ", "there"]


def test_split_words_whitespace_only_is_one_piece() -> None:
    assert split_words(" \n\t ") == [" \n\t "]


def test_split_words_streams_more_than_one_piece_for_sentences() -> None:
    assert len(split_words(SAMPLES[2])) > 10


# -- EchoProvider -----------------------------------------------------------------------


def test_echo_is_a_provider() -> None:
    provider = EchoProvider()
    assert isinstance(provider, Provider)
    assert provider.supports_tools is False
    assert provider.status().state == "ready"


@pytest.mark.anyio
@pytest.mark.parametrize("text", SAMPLES)
async def test_echo_streams_back_exactly_the_last_user_message(text: str) -> None:
    provider = EchoProvider()
    events = await collect(provider.stream(request(
        ("system", "You are HomeAgent. 很长的系统提示。"),
        ("user", "an earlier question"),
        ("assistant", "an earlier answer"),
        ("user", text),
    )))
    assert text_of(events) == text
    assert isinstance(events[-1], StreamDone) and events[-1].finish_reason == "stop"
    assert isinstance(events[-2], Usage)
    assert events[-2].completion_tokens == len(split_words(text))
    assert all(isinstance(e, TextDelta) for e in events[:-2])
    assert sum(isinstance(e, StreamDone) for e in events) == 1


@pytest.mark.anyio
async def test_echo_ignores_trailing_non_user_messages() -> None:
    events = await collect(EchoProvider().stream(request(
        ("user", "现在几点？"), ("tool", '{"time": "09:00"}'),
    )))
    assert text_of(events) == "现在几点？"


@pytest.mark.anyio
async def test_echo_without_user_message_replies_empty() -> None:
    events = await collect(EchoProvider().stream(request(("system", "only system"))))
    assert text_of(events) == ""
    assert [type(e) for e in events] == [Usage, StreamDone]


@pytest.mark.anyio
async def test_echo_early_close() -> None:
    stream = EchoProvider().stream(request(("user", "one two three four")))
    first = await stream.__anext__()
    assert first == TextDelta("one ")
    await stream.aclose()  # type: ignore[attr-defined]
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()


@pytest.mark.anyio
async def test_echo_stream_can_be_cancelled() -> None:
    provider = EchoProvider()
    received: list[str] = []
    with anyio.CancelScope() as scope:
        async for event in provider.stream(request(("user", " ".join(["word"] * 1000)))):
            if isinstance(event, TextDelta):
                received.append(event.text)
                if len(received) == 3:
                    scope.cancel()
    assert scope.cancelled_caught
    assert len(received) == 3


# -- ScriptedProvider -------------------------------------------------------------------


@pytest.mark.anyio
async def test_scripted_replays_in_order_and_records_requests() -> None:
    provider = ScriptedProvider(["第一个回答", ScriptedReply(text="second reply")])
    assert provider.pending == 2
    first_req = request(("user", "q1"))
    second_req = request(("user", "q2"))
    first = await collect(provider.stream(first_req))
    second = await collect(provider.stream(second_req))
    assert text_of(first) == "第一个回答"
    assert text_of(second) == "second reply"
    assert provider.requests == [first_req, second_req]
    assert provider.pending == 0
    assert isinstance(first[-1], StreamDone) and first[-1].finish_reason == "stop"


@pytest.mark.anyio
async def test_scripted_push_adds_to_the_queue() -> None:
    provider = ScriptedProvider()
    provider.push("a", "b")
    provider.push(ScriptedReply(text="c"))
    texts = [text_of(await collect(provider.stream(request(("user", "x"))))) for _ in range(3)]
    assert texts == ["a", "b", "c"]
    assert "0 replies queued" in provider.status().detail


@pytest.mark.anyio
async def test_scripted_emits_tool_calls() -> None:
    provider = ScriptedProvider([
        ScriptedReply(
            text="让我看看。",
            tool_calls=[("current_time", {"timezone": "Asia/Shanghai"}),
                        ("add_note", '{"text": "买牛奶"}')],
        )
    ])
    events = await collect(provider.stream(request(("user", "几点了"))))
    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [c.name for c in calls] == ["current_time", "add_note"]
    assert json.loads(calls[0].arguments) == {"timezone": "Asia/Shanghai"}
    assert calls[1].arguments == '{"text": "买牛奶"}'
    assert calls[0].id != calls[1].id
    assert text_of(events) == "让我看看。"
    # Text first, then tool calls, then usage, then done.
    kinds = [type(e) for e in events]
    assert kinds.index(ToolCallEvent) > max(i for i, k in enumerate(kinds) if k is TextDelta)
    assert kinds[-2:] == [Usage, StreamDone]
    assert events[-1].finish_reason == "tool_calls"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_scripted_empty_queue_is_a_stream_error() -> None:
    provider = ScriptedProvider()
    req = request(("user", "anyone?"))
    events = await collect(provider.stream(req))
    assert len(events) == 1
    assert isinstance(events[0], StreamError)
    assert events[0].kind == "scripted_empty"
    assert "no reply queued" in events[0].message
    assert provider.requests == [req]


@pytest.mark.anyio
async def test_scripted_error_reply() -> None:
    provider = ScriptedProvider([ScriptedReply(error="model exploded"), "after"])
    events = await collect(provider.stream(request(("user", "x"))))
    assert [type(e) for e in events] == [StreamError]
    assert events[0].message == "model exploded"  # type: ignore[union-attr]
    assert text_of(await collect(provider.stream(request(("user", "y"))))) == "after"


@pytest.mark.anyio
async def test_scripted_early_close_consumes_only_that_reply() -> None:
    provider = ScriptedProvider(["one two three four", "next"])
    stream = provider.stream(request(("user", "x")))
    first = await stream.__anext__()
    assert first == TextDelta("one ")
    await stream.aclose()  # type: ignore[attr-defined]
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()
    assert text_of(await collect(provider.stream(request(("user", "y"))))) == "next"
    assert len(provider.requests) == 2


@pytest.mark.anyio
async def test_scripted_usage_counts() -> None:
    provider = ScriptedProvider(["a b c"])
    events = await collect(provider.stream(request(("system", "s1 s2"), ("user", "u1 u2 u3"))))
    usage = next(e for e in events if isinstance(e, Usage))
    assert (usage.prompt_tokens, usage.completion_tokens) == (5, 3)
    assert usage.total_tokens == 8


@pytest.mark.anyio
async def test_function_provider_computes_reply_from_request() -> None:
    provider = FunctionProvider(lambda req: "你说：" + req.messages[-1].content)
    events = await collect(provider.stream(request(("user", "早上好"))))
    assert text_of(events) == "你说：早上好"
    assert len(provider.requests) == 1
    assert isinstance(provider, Provider)
