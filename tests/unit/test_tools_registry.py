"""homeagent.tools.registry and builtin: registration, validation, failure-proof execution."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import anyio
import pytest

from homeagent.clock import FakeClock
from homeagent.errors import ToolError, ToolValidationError
from homeagent.llm.base import ToolCall
from homeagent.tools import Permission, ToolContext, ToolRegistry, ToolSpec
from homeagent.tools.builtin import CURRENT_TIME, builtin_tools

OBJ: dict[str, Any] = {"type": "object"}

NOTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1},
        "priority": {"type": "integer", "minimum": 1, "maximum": 5},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["text"],
    "additionalProperties": False,
}


async def echo_args(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"got": args, "turn": ctx.turn_id}


def spec(name: str = "add_note", schema: dict[str, Any] | None = None, executor=echo_args,
         **kw: Any) -> ToolSpec:
    return ToolSpec(name, f"{name} tool", schema if schema is not None else NOTE_SCHEMA,
                    executor, **kw)


def ctx(clock: FakeClock | None = None) -> ToolContext:
    clock = clock or FakeClock()
    return ToolContext(turn_id="t1", channel="test", now=clock.now)


def call(name: str, arguments: Any, call_id: str = "c1") -> ToolCall:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return ToolCall(call_id, name, text)


# -- registration -----------------------------------------------------------------------


def test_register_and_unregister() -> None:
    registry = ToolRegistry()
    unregister = registry.register(spec())
    assert "add_note" in registry
    assert len(registry) == 1
    assert registry.get("add_note") is not None
    assert [d.name for d in registry.definitions()] == ["add_note"]
    assert registry.definitions()[0].to_openai()["function"]["parameters"] == NOTE_SCHEMA
    unregister()
    assert "add_note" not in registry
    assert len(registry) == 0
    assert registry.get("add_note") is None
    unregister()  # idempotent
    # The name is free again.
    registry.register(spec())
    assert "add_note" in registry


def test_stale_unregister_does_not_remove_a_newer_tool() -> None:
    registry = ToolRegistry()
    old_unregister = registry.register(spec())
    old_unregister()
    newer = spec()
    registry.register(newer)
    old_unregister()
    assert registry.get("add_note") is newer


def test_duplicate_name_raises() -> None:
    registry = ToolRegistry()
    registry.register(spec())
    with pytest.raises(ValueError, match="already registered"):
        registry.register(spec())
    assert len(registry) == 1


@pytest.mark.parametrize("name", ["", "AddNote", "1tool", "add-note", "add note", "工具", "a" * 65])
def test_invalid_names_raise(name: str) -> None:
    registry = ToolRegistry()
    with pytest.raises(ValueError, match="tool name"):
        registry.register(spec(name))
    assert len(registry) == 0


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "objekt"},
        {"type": "object", "properties": {"x": {"type": 5}}},
        {"type": "object", "required": "text"},
        {"type": "string"},
        {},
    ],
)
def test_invalid_schema_raises(schema: dict[str, Any]) -> None:
    registry = ToolRegistry()
    with pytest.raises(ValueError, match="add_note"):
        registry.register(spec(schema=schema))
    assert "add_note" not in registry


def test_iteration_yields_specs_in_registration_order() -> None:
    registry = ToolRegistry()
    for name in ("b_tool", "a_tool", "c_tool"):
        registry.register(spec(name, OBJ))
    assert [s.name for s in registry] == ["b_tool", "a_tool", "c_tool"]


# -- validation -------------------------------------------------------------------------


def test_validate_accepts_good_arguments() -> None:
    registry = ToolRegistry()
    registry.register(spec())
    args = {"text": "买牛奶", "priority": 2}
    assert registry.validate("add_note", args) == args


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "'text' is a required property"),
        ({"text": 5}, "text: 5 is not of type 'string'"),
        ({"text": ""}, "text:"),
        ({"text": "x", "priority": 9}, "priority: 9 is greater than the maximum"),
        ({"text": "x", "priority": "high"}, "priority:"),
        ({"text": "x", "tags": ["a", 3]}, "tags.1: 3 is not of type 'string'"),
        ({"text": "x", "colour": "red"}, "'colour' was unexpected"),
    ],
)
def test_validate_messages_name_the_field(arguments: dict[str, Any], fragment: str) -> None:
    registry = ToolRegistry()
    registry.register(spec())
    with pytest.raises(ToolValidationError) as info:
        registry.validate("add_note", arguments)
    message = str(info.value)
    assert message.startswith("invalid arguments for add_note:")
    assert fragment in message


def test_validate_reports_every_problem() -> None:
    registry = ToolRegistry()
    registry.register(spec())
    with pytest.raises(ToolValidationError) as info:
        registry.validate("add_note", {"text": 1, "priority": 0})
    assert "text:" in str(info.value) and "priority:" in str(info.value)


@pytest.mark.parametrize("arguments", [[], "text", 3, None])
def test_validate_requires_an_object(arguments: Any) -> None:
    registry = ToolRegistry()
    registry.register(spec())
    with pytest.raises(ToolValidationError, match="must be a JSON object"):
        registry.validate("add_note", arguments)


def test_validate_unknown_tool_lists_available_tools() -> None:
    registry = ToolRegistry()
    registry.register(spec())
    with pytest.raises(ToolValidationError, match="unknown tool 'add_nte'.*add_note"):
        registry.validate("add_nte", {})


# -- execution --------------------------------------------------------------------------


@pytest.mark.anyio
async def test_execute_success_returns_json_content() -> None:
    registry = ToolRegistry()
    registry.register(spec())
    result = await registry.execute(call("add_note", {"text": "买牛奶，鸡蛋"}, "c9"), ctx())
    assert result.ok
    assert (result.call_id, result.name) == ("c9", "add_note")
    assert json.loads(result.content) == {"got": {"text": "买牛奶，鸡蛋"}, "turn": "t1"}
    assert "买牛奶，鸡蛋" in result.content  # not \u-escaped: the model reads it as text
    assert result.data == {"got": {"text": "买牛奶，鸡蛋"}, "turn": "t1"}
    assert result.duration_ms >= 0


@pytest.mark.anyio
async def test_execute_string_result_is_passed_verbatim() -> None:
    async def hello(_ctx: ToolContext, args: dict[str, Any]) -> str:
        return f"你好，{args['who']}！"

    registry = ToolRegistry()
    registry.register(spec("greet", {"type": "object", "properties": {"who": {"type": "string"}}},
                           hello))
    result = await registry.execute(call("greet", {"who": "小明"}), ctx())
    assert result.ok and result.content == "你好，小明！"


@pytest.mark.anyio
async def test_empty_arguments_mean_an_empty_object() -> None:
    registry = ToolRegistry()
    registry.register(spec("ping", OBJ))
    result = await registry.execute(ToolCall("c1", "ping", "  "), ctx())
    assert result.ok
    assert json.loads(result.content)["got"] == {}


@pytest.mark.anyio
async def test_invalid_json_arguments() -> None:
    ran = []

    async def never(_ctx: ToolContext, _args: dict[str, Any]) -> str:
        ran.append(1)
        return "ran"

    registry = ToolRegistry()
    registry.register(spec(executor=never))
    result = await registry.execute(call("add_note", '{"text": "unterminated'), ctx())
    assert not result.ok
    assert result.content.startswith("error:")
    assert "not valid JSON" in result.content
    assert ran == []


@pytest.mark.anyio
async def test_schema_violation_never_reaches_executor() -> None:
    ran = []

    async def never(_ctx: ToolContext, _args: dict[str, Any]) -> str:
        ran.append(1)
        return "ran"

    registry = ToolRegistry()
    registry.register(spec(executor=never))
    result = await registry.execute(call("add_note", {"priority": 3}), ctx())
    assert not result.ok
    assert "'text' is a required property" in result.content
    assert ran == []


@pytest.mark.anyio
async def test_unknown_tool() -> None:
    registry = ToolRegistry()
    registry.register(spec())
    result = await registry.execute(call("launch_rocket", {}), ctx())
    assert not result.ok
    assert "unknown tool 'launch_rocket'" in result.content
    assert "add_note" in result.content
    assert result.name == "launch_rocket"


@pytest.mark.anyio
async def test_tool_error_message_is_shown() -> None:
    async def refuses(_ctx: ToolContext, _args: dict[str, Any]) -> str:
        raise ToolError("the shopping list is locked; try again later")

    registry = ToolRegistry()
    registry.register(spec(executor=refuses))
    result = await registry.execute(call("add_note", {"text": "x"}), ctx())
    assert not result.ok
    assert result.content == "error: the shopping list is locked; try again later"


@pytest.mark.anyio
async def test_crashing_tool_becomes_an_error_result() -> None:
    async def crashes(_ctx: ToolContext, _args: dict[str, Any]) -> str:
        raise RuntimeError("database exploded")

    registry = ToolRegistry()
    registry.register(spec(executor=crashes))
    result = await registry.execute(call("add_note", {"text": "x"}), ctx())
    assert not result.ok
    assert "add_note failed" in result.content
    assert "RuntimeError" in result.content and "database exploded" in result.content


@pytest.mark.anyio
async def test_slow_tool_times_out() -> None:
    async def slow(_ctx: ToolContext, _args: dict[str, Any]) -> str:
        await anyio.sleep(30)
        return "too late"

    registry = ToolRegistry(default_timeout=30)
    registry.register(spec(executor=slow, timeout=0.05))
    with anyio.fail_after(20):  # a hang fails the test instead of stalling the suite
        result = await registry.execute(call("add_note", {"text": "x"}), ctx())
    assert not result.ok
    assert "did not finish within 0.05 s" in result.content


@pytest.mark.anyio
async def test_registry_default_timeout_applies() -> None:
    async def slow(_ctx: ToolContext, _args: dict[str, Any]) -> str:
        await anyio.sleep(30)
        return "too late"

    registry = ToolRegistry(default_timeout=0.05)
    registry.register(spec(executor=slow))
    with anyio.fail_after(20):
        result = await registry.execute(call("add_note", {"text": "x"}), ctx())
    assert not result.ok and "within 0.05 s" in result.content


@pytest.mark.anyio
async def test_timeout_error_raised_by_the_tool_is_not_reported_as_our_timeout() -> None:
    async def upstream_timeout(_ctx: ToolContext, _args: dict[str, Any]) -> str:
        raise TimeoutError("weather service timed out")

    registry = ToolRegistry(default_timeout=30)
    registry.register(spec(executor=upstream_timeout))
    result = await registry.execute(call("add_note", {"text": "x"}), ctx())
    assert not result.ok
    assert "weather service timed out" in result.content
    assert "did not finish within" not in result.content


@pytest.mark.anyio
async def test_unserializable_result_becomes_an_error() -> None:
    async def odd(_ctx: ToolContext, _args: dict[str, Any]) -> dict[Any, Any]:
        return {("tuple", "key"): 1}

    registry = ToolRegistry()
    registry.register(spec(executor=odd))
    result = await registry.execute(call("add_note", {"text": "x"}), ctx())
    assert not result.ok
    assert "not JSON" in result.content


@pytest.mark.anyio
async def test_non_json_values_are_stringified() -> None:
    when = datetime(2026, 1, 1, 9, 0, tzinfo=ZoneInfo("UTC"))

    async def dated(_ctx: ToolContext, _args: dict[str, Any]) -> dict[str, Any]:
        return {"when": when}

    registry = ToolRegistry()
    registry.register(spec(executor=dated))
    result = await registry.execute(call("add_note", {"text": "x"}), ctx())
    assert result.ok
    assert json.loads(result.content) == {"when": str(when)}


@pytest.mark.anyio
async def test_failures_in_parallel_calls_stay_separate() -> None:
    async def fine(_ctx: ToolContext, args: dict[str, Any]) -> str:
        await anyio.lowlevel.checkpoint()
        return f"ok {args['text']}"

    async def crashes(_ctx: ToolContext, _args: dict[str, Any]) -> str:
        raise RuntimeError("nope")

    registry = ToolRegistry()
    registry.register(spec("fine", NOTE_SCHEMA, fine))
    registry.register(spec("crashes", NOTE_SCHEMA, crashes))
    results: dict[str, Any] = {}

    async def run(c: ToolCall) -> None:
        results[c.id] = await registry.execute(c, ctx())

    async with anyio.create_task_group() as tg:
        for i in range(10):
            tg.start_soon(run, call("fine" if i % 2 else "crashes", {"text": str(i)}, f"c{i}"))
    assert [results[f"c{i}"].ok for i in range(10)] == [i % 2 == 1 for i in range(10)]
    assert results["c3"].content == "ok 3"


@pytest.mark.anyio
async def test_chinese_arguments_round_trip() -> None:
    registry = ToolRegistry()
    registry.register(spec())
    text = "提醒我明天早上８点给妈妈打电话：“生日快乐！”🎂"
    result = await registry.execute(call("add_note", {"text": text, "tags": ["家庭", "提醒"]}), ctx())
    assert result.ok
    assert result.data["got"] == {"text": text, "tags": ["家庭", "提醒"]}
    assert text in result.content


# -- builtin: current_time --------------------------------------------------------------


def test_builtin_tools_register_cleanly() -> None:
    registry = ToolRegistry()
    for tool in builtin_tools():
        registry.register(tool)
    assert "current_time" in registry
    assert CURRENT_TIME.permission is Permission.READ


@pytest.mark.anyio
async def test_current_time_uses_the_context_clock() -> None:
    registry = ToolRegistry()
    registry.register(CURRENT_TIME)
    clock = FakeClock(datetime(2026, 3, 4, 15, 30, 12, tzinfo=ZoneInfo("Asia/Shanghai")))
    result = await registry.execute(call("current_time", {}), ctx(clock))
    assert result.ok
    assert result.data == {
        "iso": "2026-03-04T15:30:12+08:00",
        "date": "2026-03-04",
        "time": "15:30",
        "weekday": "Wednesday",
        "weekday_zh": "星期三",
        "timezone": "Asia/Shanghai",
    }
    assert "星期三" in result.content


@pytest.mark.anyio
async def test_current_time_in_another_timezone() -> None:
    registry = ToolRegistry()
    registry.register(CURRENT_TIME)
    clock = FakeClock(datetime(2026, 3, 1, 2, 0, tzinfo=ZoneInfo("Asia/Shanghai")))
    result = await registry.execute(call("current_time", {"timezone": "Europe/London"}), ctx(clock))
    assert result.ok
    # 02:00 Sunday in Shanghai is 18:00 Saturday in London.
    assert result.data["date"] == "2026-02-28"
    assert result.data["time"] == "18:00"
    assert result.data["weekday"] == "Saturday"
    assert result.data["weekday_zh"] == "星期六"
    assert result.data["timezone"] == "Europe/London"


@pytest.mark.anyio
async def test_current_time_follows_the_clock() -> None:
    registry = ToolRegistry()
    registry.register(CURRENT_TIME)
    clock = FakeClock()
    first = await registry.execute(call("current_time", {}), ctx(clock))
    clock.advance(days=1, hours=2)
    second = await registry.execute(call("current_time", {}), ctx(clock))
    assert (first.data["date"], first.data["time"]) == ("2026-01-01", "09:00")
    assert (second.data["date"], second.data["time"]) == ("2026-01-02", "11:00")


@pytest.mark.anyio
@pytest.mark.parametrize("tz", ["Mars/Phobos", "Asia/", "../../etc/passwd", "Asia"])
async def test_current_time_bad_timezone(tz: str) -> None:
    registry = ToolRegistry()
    registry.register(CURRENT_TIME)
    result = await registry.execute(call("current_time", {"timezone": tz}), ctx())
    assert not result.ok
    assert f"unknown timezone {tz!r}" in result.content
    assert "IANA" in result.content


@pytest.mark.anyio
async def test_current_time_rejects_extra_and_mistyped_arguments() -> None:
    registry = ToolRegistry()
    registry.register(CURRENT_TIME)
    extra = await registry.execute(call("current_time", {"city": "北京"}), ctx())
    assert not extra.ok and "'city' was unexpected" in extra.content
    typed = await registry.execute(call("current_time", {"timezone": 8}), ctx())
    assert not typed.ok and "timezone:" in typed.content
