"""homeagent.tools.permissions: the policy, the gate with confirmers, the broker, and the
guarded execution with its audit record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from homeagent.actions.schema import MIGRATIONS as ACTION_MIGRATIONS
from homeagent.clock import FakeClock
from homeagent.errors import ConfigError
from homeagent.llm.base import ToolCall
from homeagent.store import MIGRATIONS, Database
from homeagent.tools.audit import AuditLog, redact_arguments
from homeagent.tools.permissions import (
    PermissionBroker,
    PermissionGate,
    PermissionPolicy,
    PermissionRequest,
    execute_guarded,
)
from homeagent.tools.registry import Permission, ToolContext, ToolRegistry, ToolSpec

pytestmark = pytest.mark.anyio
SCHEMA = {"type": "object", "properties": {"what": {"type": "string"}, "api_key": {"type": "string"}},
          "additionalProperties": False}
RAN: list[str] = []


async def _run(_ctx: ToolContext, args: dict[str, Any]) -> str:
    RAN.append(args.get("what", ""))
    return f"done {args.get('what', '')}"


def spec(name: str, permission: Any) -> ToolSpec:
    return ToolSpec(name, f"{name} / {name}", SCHEMA, _run, permission=permission)


READ, WRITE, DELETE, NET, SECRET = (spec("look", Permission.READ), spec("note", Permission.WRITE),
                                    spec("erase", Permission.DELETE), spec("search", Permission.NETWORK),
                                    spec("vault", Permission.SECRETS))
ODD = spec("odd", "admin")
CTX = ToolContext("run-1", "http", "phone-1", now=FakeClock().now)


def call(name: str, **args: Any) -> ToolCall:
    return ToolCall(f"c-{name}", name, json.dumps(args))


class Scripted:
    def __init__(self, *answers: str, delay: float = 0.0):
        self.answers = list(answers)
        self.asked: list[PermissionRequest] = []
        self.delay = delay

    async def confirm(self, request: PermissionRequest) -> Any:
        self.asked.append(request)
        await anyio.sleep(self.delay)
        return self.answers.pop(0)


def test_default_policy_and_unknown_classes() -> None:
    policy = PermissionPolicy()
    assert [policy.decide(s) for s in (READ, WRITE, DELETE, NET, SECRET)] == [
        "allow", "allow", "confirm", "allow", "confirm"]
    assert policy.decide(ODD) == "deny"


def test_tool_entries_override_their_class_and_config_is_checked() -> None:
    policy = PermissionPolicy.from_config({"write": "confirm", "network": "deny"}, {"note": "allow", "look": "deny"})
    assert policy.decide(WRITE) == "allow" and policy.decide(READ) == "deny" and policy.decide(NET) == "deny"
    with pytest.raises(ConfigError, match="permissions.classes.write"):
        PermissionPolicy.from_config({"write": "maybe"})
    with pytest.raises(ConfigError, match="permissions.classes.admin"):
        PermissionPolicy.from_config({"admin": "allow"})
    with pytest.raises(ConfigError, match="permissions.tools.note"):
        PermissionPolicy.from_config(tools={"note": "yes"})
    assert PermissionPolicy.from_config(tools=["erase=allow", " note = deny "]).tools == {"erase": "allow", "note": "deny"}
    with pytest.raises(ConfigError, match="name=allow"):
        PermissionPolicy.from_config(tools=["erase"])


async def test_allow_and_deny_need_no_confirmer() -> None:
    gate = PermissionGate(PermissionPolicy.from_config(tools={"note": "deny"}))
    assert (await gate.check(READ, call("look"), CTX)).allowed
    verdict = await gate.check(WRITE, call("note"), CTX)
    assert not verdict.allowed and "not permitted" in verdict.message
    verdict = await gate.check(ODD, call("odd"), CTX)
    assert not verdict.allowed and verdict.decision == "deny"


async def test_confirm_once_then_ask_again() -> None:
    gate = PermissionGate(PermissionPolicy())
    confirmer = Scripted("allow_once", "deny")
    assert (await gate.check(DELETE, call("erase", what="x", api_key="sk-secret123456"), CTX, confirmer=confirmer)).allowed
    request = confirmer.asked[0]
    assert request.tool == "erase" and request.permission == "delete" and request.run_id == "run-1"
    assert request.arguments == {"what": "x", "api_key": "[REDACTED]"}
    verdict = await gate.check(DELETE, call("erase"), CTX, confirmer=confirmer)
    assert not verdict.allowed and "declined" in verdict.message and len(confirmer.asked) == 2


async def test_allow_session_is_remembered_per_session_and_tool() -> None:
    gate = PermissionGate(PermissionPolicy())
    confirmer = Scripted("allow_session")
    assert (await gate.check(DELETE, call("erase"), CTX, confirmer=confirmer)).allowed
    verdict = await gate.check(DELETE, call("erase"), CTX, confirmer=Scripted())
    assert verdict.allowed and verdict.decision == "session_grant"
    other_device = ToolContext("run-2", "http", "phone-2", now=FakeClock().now)
    with pytest.raises(IndexError):  # a different session is asked again
        await gate.check(DELETE, call("erase"), other_device, confirmer=Scripted())
    with pytest.raises(IndexError):  # and so is another tool of the same class
        await gate.check(SECRET, call("vault"), CTX, confirmer=Scripted())
    gate.forget_session(PermissionGate.session_of(CTX))
    with pytest.raises(IndexError):
        await gate.check(DELETE, call("erase"), CTX, confirmer=Scripted())


async def test_no_answer_in_time_is_a_deny() -> None:
    gate = PermissionGate(PermissionPolicy(), timeout=0.05)
    verdict = await gate.check(DELETE, call("erase"), CTX, confirmer=Scripted("allow_once", delay=5))
    assert not verdict.allowed and verdict.decision == "timeout" and "did not confirm" in verdict.message


async def test_confirm_without_a_confirmer_is_explained() -> None:
    verdict = await PermissionGate(PermissionPolicy()).check(DELETE, call("erase"), CTX)
    assert not verdict.allowed and verdict.decision == "no_confirmer" and "cannot ask" in verdict.message


async def test_broker_resolves_pending_requests_by_id() -> None:
    broker = PermissionBroker()
    gate = PermissionGate(PermissionPolicy(), timeout=10)
    shown: list[PermissionRequest] = []
    asked = anyio.Event()
    results = []

    def notify(request: PermissionRequest) -> None:
        shown.append(request)
        asked.set()

    async def turn() -> None:
        results.append(await gate.check(DELETE, call("erase", what="旧照片"), CTX,
                                        confirmer=broker.confirmer_for("run-1", notify)))

    async with anyio.create_task_group() as tg:
        tg.start_soon(turn)
        with anyio.fail_after(5):
            await asked.wait()
        request = shown[0]
        assert broker.pending("run-1") == [request] and broker.pending("run-9") == []
        assert request.as_dict()["arguments"] == {"what": "旧照片"}
        assert not broker.resolve("perm_unknown", "allow_once")
        assert not broker.resolve(request.request_id, "allow_once", run_id="run-9")
        with pytest.raises(ValueError, match="decision"):
            broker.resolve(request.request_id, "sure")
        assert broker.resolve(request.request_id, "allow_once", run_id="run-1")
    assert results[0].allowed and results[0].decision == "allow_once"
    assert broker.pending() == []


async def test_broker_drops_requests_that_time_out() -> None:
    broker = PermissionBroker()
    gate = PermissionGate(PermissionPolicy(), timeout=0.05)
    verdict = await gate.check(DELETE, call("erase"), CTX, confirmer=broker.confirmer_for("run-1"))
    assert verdict.decision == "timeout" and broker.pending() == []


async def test_guarded_execution_is_audited(tmp_path: Path) -> None:
    registry = ToolRegistry()
    for s in (READ, DELETE):
        registry.register(s)
    gate = PermissionGate(PermissionPolicy())
    async with Database(tmp_path / "a.db", (*MIGRATIONS, *ACTION_MIGRATIONS)) as db:
        audit = AuditLog(db)
        RAN.clear()
        ok = await execute_guarded(registry, call("look", what="a", api_key="sk-abcdefghijk"), CTX, gate=gate, audit=audit)
        denied = await execute_guarded(registry, call("erase", what="b"), CTX, gate=gate, audit=audit,
                                       confirmer=Scripted("deny"))
        invalid = await execute_guarded(registry, call("erase", bogus=1), CTX, gate=gate, audit=audit,
                                        confirmer=Scripted())  # never asked: the arguments are wrong
        assert ok.ok and not denied.ok and not invalid.ok and RAN == ["a"]
        entries = list(reversed(await audit.recent()))
        assert [(e.name, e.decision, e.success) for e in entries] == [
            ("look", "allow", True), ("erase", "deny", False), ("erase", "allow", False)]
        assert entries[0].arguments == {"what": "a", "api_key": "[REDACTED]"}
        assert entries[0].channel == "http" and entries[0].turn_id == "run-1" and entries[0].result_summary == "done a"
        assert "bogus" in entries[2].result_summary
        with pytest.raises(Exception, match="append-only"):
            await db.execute("UPDATE tool_call_log SET name = 'x'")
        with pytest.raises(Exception, match="append-only"):
            await db.execute("DELETE FROM tool_call_log")
        assert len(await audit.recent(name="erase")) == 2


def test_redact_arguments_masks_secrets_in_keys_and_values() -> None:
    text = redact_arguments('{"token": "abc", "note": "Bearer abcdefgh1234", "n": 1}')
    assert json.loads(text) == {"token": "[REDACTED]", "note": "Bearer [REDACTED]", "n": 1}
    assert "sk-" not in redact_arguments("not json sk-abcdefghijkl")


async def test_an_answer_is_a_domain_result() -> None:
    from homeagent.tools.permissions import Answered, InvalidDecision, NoPendingRequest

    broker = PermissionBroker()
    request = PermissionRequest("perm_1", "run-1", "erase", "delete", {"what": "x"}, "http")
    answers: list[str] = []
    async with anyio.create_task_group() as tg:

        async def wait() -> None:
            answers.append(await broker.ask(request))

        tg.start_soon(wait)
        await anyio.wait_all_tasks_blocked()
        assert broker.answer("run-1", "perm_1", "maybe") == InvalidDecision("maybe")
        assert broker.answer("run-2", "perm_1", "deny") == NoPendingRequest("run-2", "perm_1")
        assert broker.answer("run-1", "perm_1", "allow_session") == Answered("run-1", "perm_1", "allow_session")
    assert answers == ["allow_session"]
    assert broker.answer("run-1", "perm_1", "deny") == NoPendingRequest("run-1", "perm_1")
