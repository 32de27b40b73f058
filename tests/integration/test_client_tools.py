"""Client-side tools over the OpenAI endpoint: the client's tools join the turn, a call to
one ends the response and the turn waits, the client's result resumes the same turn.
Driven by the official openai client against a real server; the scripted provider plays
the model."""

from __future__ import annotations

import json

import anyio
import openai
import pytest

from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from homeagent.tools.registry import ToolSpec

from .helpers import running_app

pytestmark = pytest.mark.anyio

HA_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "HassTurnOn",
            "description": "Turns on/opens a device or entity",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "area": {"type": "string"}},
                "required": [],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "HassTurnOff",
            "description": "Turns off/closes a device or entity",
            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    },
]


def client(app) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{app.health.port}/v1", api_key="x", max_retries=0)


def clock_tool(calls: list[str]) -> ToolSpec:
    async def clock(ctx, args):
        calls.append("clock")
        return "it is 10:00"

    return ToolSpec("house_clock", "what time it is", {"type": "object", "properties": {}}, clock)


async def _runs(app, *, settled: bool = True) -> list:
    """The stored runs; with `settled`, once there is one and none is still shown running
    (the run writer commits in the background, slowly on a loaded machine)."""
    for _ in range(600):
        await app.runs.flush()
        runs = await app.runs.list()
        if not settled or (runs and all(r.status != "running" for r in runs)):
            break
        await anyio.sleep(0.05)
    return runs


async def test_client_tool_call_ends_response_and_result_resumes_same_turn(make_config):
    own: list[str] = []
    provider = ScriptedProvider([
        # Round 1: one of HomeAgent's own tools and two client tools at once.
        ScriptedReply(tool_calls=[
            ("house_clock", {}),
            ("HassTurnOn", {"name": "kitchen light"}),
            ("HassTurnOff", {"name": "fan"}),
        ]),
        "Done: the kitchen light is on and the fan is off.",
    ])
    async with running_app(make_config(), provider=provider, http=True, extra_tools=(clock_tool(own),)) as app:
        async with client(app) as oa:
            history = [{"role": "user", "content": "turn on the kitchen light and off the fan"}]
            first = await oa.chat.completions.create(model="homeagent", messages=history, tools=HA_TOOLS)
            choice = first.choices[0]
            assert choice.finish_reason == "tool_calls"
            calls = choice.message.tool_calls
            # Both client calls of the round come back together; HomeAgent's own tool ran
            # server-side and is not shown to the client.
            assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
                ("HassTurnOn", {"name": "kitchen light"}), ("HassTurnOff", {"name": "fan"}),
            ]
            assert own == ["clock"]
            assert len({c.id for c in calls}) == 2
            # The first request offered HomeAgent's own tools and the client's.
            offered = {t.name for t in provider.requests[0].tools}
            assert {"house_clock", "HassTurnOn", "HassTurnOff"} <= offered

            history += [
                choice.message.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": calls[0].id, "content": '{"success": true, "light": "on"}'},
                {"role": "tool", "tool_call_id": calls[1].id, "content": '{"success": true}'},
            ]
            second = await oa.chat.completions.create(model="homeagent", messages=history, tools=HA_TOOLS)
            assert second.choices[0].finish_reason == "stop"
            assert second.choices[0].message.content == "Done: the kitchen light is on and the fan is off."
            # The model read the client's results in the same turn, after its own tool's.
            tool_messages = [m for m in provider.requests[1].messages if m.role == "tool"]
            assert [m.content for m in tool_messages] == ["it is 10:00", '{"success": true, "light": "on"}', '{"success": true}']

            # The same result again is stale now: a 400 naming the id.
            with pytest.raises(openai.BadRequestError) as err:
                await oa.chat.completions.create(model="homeagent", messages=history, tools=HA_TOOLS)
            assert calls[0].id in str(err.value)

        runs = await _runs(app)
        assert len(runs) == 1 and runs[0].status == "completed"
        events = await app.runs.events(runs[0].id)
        types = [e.type for e in events]
        assert types.count("tool_call") == 3 and types.count("tool_result") == 3
        results = {e.payload["name"]: e.payload["content"] for e in events if e.type == "tool_result"}
        assert results["HassTurnOn"] == '{"success": true, "light": "on"}'
        # One exchange in memory, the whole answer.
        recent = await app.conversation.recent(5)
        assert [m.content for m in recent] == [
            "turn on the kitchen light and off the fan", "Done: the kitchen light is on and the fan is off.",
        ]


async def test_streaming_client_tool_call_and_resume(make_config):
    provider = ScriptedProvider([
        ScriptedReply(text="Sure. ", tool_calls=[("HassTurnOn", {"name": "kitchen light"})]),
        "It is on.",
    ])
    async with running_app(make_config(), provider=provider, http=True) as app, client(app) as oa:
        history = [{"role": "user", "content": "把厨房的灯打开"}]
        stream = await oa.chat.completions.create(model="homeagent", messages=history, tools=HA_TOOLS, stream=True)
        text, finish, calls = "", None, []
        async for chunk in stream:
            delta = chunk.choices[0].delta
            text += delta.content or ""
            calls += delta.tool_calls or []
            finish = chunk.choices[0].finish_reason or finish
        assert (text, finish) == ("Sure. ", "tool_calls")
        assert [(c.id.startswith("call_"), c.function.name, json.loads(c.function.arguments)) for c in calls] == [
            (True, "HassTurnOn", {"name": "kitchen light"})
        ]
        history += [
            {"role": "assistant", "content": text, "tool_calls": [
                {"id": calls[0].id, "type": "function",
                 "function": {"name": "HassTurnOn", "arguments": calls[0].function.arguments}}]},
            {"role": "tool", "tool_call_id": calls[0].id, "content": "ok"},
        ]
        stream = await oa.chat.completions.create(model="homeagent", messages=history, tools=HA_TOOLS, stream=True)
        parts = [c.choices[0].delta.content or "" async for c in stream if c.choices]
        assert "".join(parts) == "It is on."


async def test_unknown_call_id_is_a_400_naming_it(make_config):
    async with running_app(make_config(), provider=ScriptedProvider([]), http=True) as app, client(app) as oa:
        with pytest.raises(openai.BadRequestError) as err:
            await oa.chat.completions.create(model="homeagent", tools=HA_TOOLS, messages=[
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_nope", "type": "function", "function": {"name": "HassTurnOn", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_nope", "content": "ok"},
            ])
        assert "call_nope" in str(err.value)


async def test_bad_client_tools_are_a_400_naming_the_entry(make_config):
    async with running_app(make_config(), provider=ScriptedProvider([]), http=True, extra_tools=(clock_tool([]),)) as app:
        async with client(app) as oa:
            for tools, words in (
                ([{"type": "function", "function": {"name": "house_clock"}}], "tools[0].function.name"),
                ([{"type": "function", "function": {"name": "bad name!"}}], "tools[0].function.name"),
                ([HA_TOOLS[0], {"type": "function", "function": {"name": "HassTurnOn"}}], "appears twice"),
                ([{"type": "function", "function": {"name": "X", "parameters": {"type": "array"}}}], "parameters"),
            ):
                with pytest.raises(openai.BadRequestError) as err:
                    await oa.chat.completions.create(
                        model="homeagent", tools=tools, messages=[{"role": "user", "content": "hi"}]
                    )
                assert words in str(err.value)


async def test_a_client_that_never_comes_back_times_the_turn_out(make_config):
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("HassTurnOn", {"name": "kitchen light"})]),
        "hello again",
    ])
    config = make_config(api={"client_tool_timeout": "300ms"})
    async with running_app(config, provider=provider, http=True) as app, client(app) as oa:
        history = [{"role": "user", "content": "turn on the kitchen light"}]
        first = await oa.chat.completions.create(model="homeagent", messages=history, tools=HA_TOOLS)
        call = first.choices[0].message.tool_calls[0]
        with anyio.fail_after(10):
            for _ in range(200):
                if (await _runs(app))[0].status != "running":
                    break
                await anyio.sleep(0.05)
        assert (await _runs(app))[0].status == "cancelled"
        # The late result is stale, and the agent serves the next turn.
        with pytest.raises(openai.BadRequestError) as err:
            await oa.chat.completions.create(model="homeagent", tools=HA_TOOLS, messages=[
                *history, first.choices[0].message.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": call.id, "content": "ok"},
            ])
        assert call.id in str(err.value)
        reply = await oa.chat.completions.create(model="homeagent", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "hello again"
