"""The permission policy for tool calls, and how a "confirm" decision is asked and answered.

Each tool has a permission class (read, write, delete, network, secrets). The policy maps
classes, and single tool names, to allow / confirm / deny; an action's own entry wins
over its class, and a class the policy does not name is denied (seed 002 "Permission").

`PermissionGate.check` is what the tool loop calls before running a call. For "confirm"
it asks the turn's `Confirmer` (the broker, which the asking channel answers: the app
over HTTP, the console on its terminal) and waits at most `timeout` seconds; a timeout is a deny. "allow_session" is remembered for
that session (by default the channel and device) and that tool. Every outcome comes with
a message the model can read and explain to the user.

    broker = PermissionBroker()                   # one per daemon; the HTTP route resolves it
    gate = PermissionGate(PermissionPolicy.from_config(cfg), timeout=60)
    verdict = await gate.check(spec, call, ctx, confirmer=broker.confirmer_for(run_id, emit))
    result = broker.answer(run_id, request_id, decision)   # Answered | InvalidDecision | NoPendingRequest

An answer's outcome is a domain result, not an HTTP status: the api maps it to one.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

import anyio

from homeagent.chat import ToolCall
from homeagent.errors import ConfigError
from homeagent.log import get_logger, redact
from homeagent.tools.registry import (
    DisplayHint,
    Permission,
    ToolContext,
    ToolRegistry,
    ToolResult,
    ToolSpec,
)

log = get_logger("homeagent.tools.permissions")

Decision = Literal["allow", "confirm", "deny"]
Answer = Literal["allow_once", "allow_session", "deny"]
DECISIONS: tuple[Decision, ...] = ("allow", "confirm", "deny")
ANSWERS: tuple[Answer, ...] = ("allow_once", "allow_session", "deny")

# What a home needs by default: reading and recording are what the household asks for;
# deleting asks first; the network (web search) is allowed once a backend is configured;
# secrets always ask.
DEFAULT_CLASSES: Mapping[str, Decision] = {
    "read": "allow", "write": "allow", "delete": "confirm", "network": "allow", "secrets": "confirm",
}


@dataclass(frozen=True)
class PermissionPolicy:
    classes: Mapping[str, Decision] = field(default_factory=lambda: dict(DEFAULT_CLASSES))
    tools: Mapping[str, Decision] = field(default_factory=dict)

    @classmethod
    def from_config(
        cls, classes: Mapping[str, str] | None = None, tools: Mapping[str, str] | Iterable[str] | None = None
    ) -> PermissionPolicy:
        """Build from config: `classes` maps a class to allow/confirm/deny; `tools` maps a
        tool name to one, as a mapping or as "name=decision" strings. Anything else is a
        ConfigError naming the key."""
        if tools is not None and not isinstance(tools, Mapping):
            pairs = {}
            for rule in tools:
                name, sep, value = str(rule).partition("=")
                if not sep or not name.strip():
                    raise ConfigError(f"permissions.tools: expected name=allow|confirm|deny, got {rule!r}")
                pairs[name.strip()] = value.strip()
            tools = pairs
        merged: dict[str, Decision] = dict(DEFAULT_CLASSES)
        known = {p.value for p in Permission}
        for key in classes or {}:
            if key not in known:
                raise ConfigError(
                    f"permissions.classes.{key}: unknown permission class; use {', '.join(sorted(known))}"
                )
        for section, values in (("classes", classes or {}), ("tools", tools or {})):
            for key, value in values.items():
                if value not in DECISIONS:
                    raise ConfigError(
                        f"permissions.{section}.{key}: expected allow, confirm or deny, got {value!r}"
                    )
        merged.update(classes or {})  # type: ignore[arg-type]
        return cls(classes=merged, tools=dict(tools or {}))  # type: ignore[arg-type]

    def decide(self, spec: ToolSpec) -> Decision:
        if spec.name in self.tools:
            return self.tools[spec.name]
        # `weather__*`: every tool of one plugin; the longest matching prefix wins.
        prefixes = [k for k in self.tools if k.endswith("*") and spec.name.startswith(k[:-1])]
        if prefixes:
            return self.tools[max(prefixes, key=len)]
        permission = str(getattr(spec.permission, "value", spec.permission))
        if permission not in {p.value for p in Permission}:
            return "deny"  # an unknown class is never trusted
        return self.classes.get(permission, "deny")


@dataclass(frozen=True)
class PermissionRequest:
    """What the user is asked: shown over SSE (`permission_required`) or on the console."""

    request_id: str
    run_id: str
    tool: str
    permission: str
    arguments: Mapping[str, Any]  # secrets already masked
    channel: str
    device_id: str = ""
    member: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"request_id": self.request_id, "run_id": self.run_id, "tool": self.tool,
                "permission": self.permission, "arguments": dict(self.arguments),
                "channel": self.channel, "device_id": self.device_id}

    def describe(self) -> str:
        args = json.dumps(dict(self.arguments), ensure_ascii=False)
        return f"{self.tool} ({self.permission}) {args}"


class Confirmer(Protocol):
    async def confirm(self, request: PermissionRequest) -> Answer: ...


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    decision: str  # allow | allow_once | allow_session | session_grant | deny | timeout | no_confirmer
    message: str = ""  # for the model when not allowed


class PermissionGate:
    def __init__(self, policy: PermissionPolicy, *, timeout: float = 60.0):
        self.policy = policy
        self.timeout = timeout
        self._grants: set[tuple[str, str]] = set()

    @staticmethod
    def session_of(ctx: ToolContext) -> str:
        return f"{ctx.channel}:{ctx.device_id}:{getattr(ctx, 'member', '')}"

    def forget_session(self, session: str) -> None:
        self._grants = {g for g in self._grants if g[0] != session}

    async def check(
        self,
        spec: ToolSpec,
        call: ToolCall,
        ctx: ToolContext,
        *,
        confirmer: Confirmer | None = None,
        session: str | None = None,
        untrusted_source: str = "",
    ) -> Verdict:
        """`untrusted_source` names the tool whose output the call appears to come from
        (homeagent/tools/untrusted.py): such a call is never allowed without asking."""
        decision = self.policy.decide(spec)
        if decision == "allow" and not untrusted_source:
            return Verdict(True, "allow")
        if decision == "deny":
            log.info("tool.permission.denied", tool=spec.name, permission=str(spec.permission))
            return Verdict(False, "deny", f"error: {spec.name} is not permitted here ({spec.permission} "
                           "actions are denied by the household's permission policy). Tell the user it is not allowed.")
        session = session or self.session_of(ctx)
        if (session, spec.name) in self._grants and not untrusted_source:
            return Verdict(True, "session_grant")
        if confirmer is None and untrusted_source:
            log.warning("tool.permission.untrusted_refused", tool=spec.name, source=untrusted_source)
            return Verdict(False, "refused_untrusted", f"error: {spec.name} was not run: the request for it came "
                           f"from the output of {untrusted_source} (data, not the user's words), and this channel "
                           "cannot ask the user to confirm. Tell the user what was refused.")
        if confirmer is None:
            return Verdict(False, "no_confirmer", f"error: {spec.name} needs the user's confirmation, and "
                           f"this channel ({ctx.channel}) cannot ask for it. Tell the user to confirm from the app or the console.")
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except json.JSONDecodeError:
            args = {"raw": call.arguments}
        request = PermissionRequest(
            request_id=f"perm_{secrets.token_hex(8)}", run_id=ctx.turn_id, tool=spec.name,
            permission=str(getattr(spec.permission, "value", spec.permission)),
            arguments=redact(args) if isinstance(args, dict) else {"value": args},
            channel=ctx.channel, device_id=ctx.device_id, member=getattr(ctx, "member", ""),
        )
        answer: Answer | None = None
        with anyio.move_on_after(self.timeout):
            answer = await confirmer.confirm(request)
        log.info("tool.permission.answered", tool=spec.name, answer=answer or "timeout", request_id=request.request_id)
        if answer is None:
            return Verdict(False, "timeout", f"error: {spec.name} was not run: the user did not confirm "
                           f"within {self.timeout:g} s. Tell the user and offer to try again.")
        if answer == "deny":
            return Verdict(False, "deny", f"error: the user declined {spec.name}; it was not run. Acknowledge it.")
        if answer == "allow_session":
            self._grants.add((session, spec.name))
        return Verdict(True, answer)


@dataclass(frozen=True)
class Answered:
    """The answer reached the waiting turn."""

    run_id: str
    request_id: str
    decision: Answer


@dataclass(frozen=True)
class InvalidDecision:
    """The answer is not one of `ANSWERS`; nothing was resolved."""

    given: object

    @property
    def message(self) -> str:
        return f"decision: expected one of {', '.join(ANSWERS)}, got {self.given!r}"


@dataclass(frozen=True)
class NoPendingRequest:
    """No such request waits on that run: answered already, timed out or never asked."""

    run_id: str
    request_id: str

    @property
    def message(self) -> str:
        return (f"no pending permission request {self.request_id!r} for run {self.run_id!r} "
                "(it was answered, timed out or never existed)")


AnswerResult = Answered | InvalidDecision | NoPendingRequest


class PermissionBroker:
    """Pending confirmation requests by id; the HTTP route resolves them.

    `confirmer_for(run_id, notify)` gives the Confirmer of one run: it registers the
    request, calls `notify(request)` (the run's SSE `permission_required` event) and waits
    for `resolve(request_id, answer)`. A request that is cancelled or times out is dropped.
    """

    def __init__(self) -> None:
        self._pending: dict[str, tuple[PermissionRequest, anyio.Event, list[Answer]]] = {}
        self._answerers: list[Callable[[str], bool]] = []

    def add_answerer(self, present: Callable[[str], bool]) -> Callable[[], None]:
        """A place other than the asking channel where a request can be answered (the
        browser dashboard's pending list); `present(member)` says whether someone who may
        answer that member's requests is there now. Returns a callable that removes it."""
        self._answerers.append(present)
        return lambda: self._answerers.remove(present) if present in self._answerers else None

    def answerable_elsewhere(self, member: str) -> bool:
        """Whether a request of `member` can be answered away from the asking channel."""
        return any(present(member) for present in self._answerers)

    def pending(self, run_id: str | None = None) -> list[PermissionRequest]:
        return [r for r, _, _ in self._pending.values() if run_id is None or r.run_id == run_id]

    def resolve(self, request_id: str, answer: str, *, run_id: str | None = None) -> bool:
        """Answer a pending request; False when there is no such request (or it expired)."""
        if answer not in ANSWERS:
            raise ValueError(f"decision: expected one of {', '.join(ANSWERS)}, got {answer!r}")
        entry = self._pending.get(request_id)
        if entry is None or (run_id is not None and entry[0].run_id != run_id):
            return False
        entry[2].append(answer)
        entry[1].set()
        return True

    def answer(self, run_id: str, request_id: str, decision: object) -> AnswerResult:
        """A user's answer to one of a run's pending requests, as a result to report."""
        if decision not in ANSWERS:
            return InvalidDecision(decision)
        answer = decision
        if not self.resolve(request_id, answer, run_id=run_id):
            return NoPendingRequest(run_id, request_id)
        return Answered(run_id, request_id, answer)

    async def ask(self, request: PermissionRequest, notify: Callable[[PermissionRequest], Awaitable[None] | None] | None = None) -> Answer:
        done = anyio.Event()
        box: list[Answer] = []
        self._pending[request.request_id] = (request, done, box)
        try:
            if notify is not None:
                result = notify(request)
                if result is not None:
                    await result
            await done.wait()
            return box[0]
        finally:
            self._pending.pop(request.request_id, None)

    def confirmer_for(
        self, run_id: str, notify: Callable[[PermissionRequest], Awaitable[None] | None] | None = None
    ) -> Confirmer:
        broker = self

        class _RunConfirmer:
            async def confirm(self, request: PermissionRequest) -> Answer:
                return await broker.ask(request, notify)

        del run_id  # the request carries it
        return _RunConfirmer()


async def execute_guarded(
    registry: ToolRegistry,
    call: ToolCall,
    ctx: ToolContext,
    *,
    gate: PermissionGate | None = None,
    audit: Any = None,
    confirmer: Confirmer | None = None,
    untrusted_source: str = "",
) -> ToolResult:
    """Validate, check the policy (asking if needed), run, and audit one call.

    The agent's tool loop can call this in place of `registry.execute(call, ctx)`.
    Invalid arguments are reported without asking the user anything.
    """
    spec = registry.get(call.name)
    decision = "allow"
    result: ToolResult | None = None
    if spec is not None and gate is not None:
        try:
            registry.validate(call.name, call.parsed_arguments())
            valid = True
        except Exception:  # noqa: BLE001 - registry.execute reports the problem itself
            valid = False
        if valid:
            verdict = await gate.check(spec, call, ctx, confirmer=confirmer, untrusted_source=untrusted_source)
            decision = verdict.decision
            if not verdict.allowed:
                result = ToolResult(call.id, call.name, False, verdict.message)
    if spec is not None and gate is None and untrusted_source:
        decision = "refused_untrusted"
        result = ToolResult(call.id, call.name, False, f"error: {call.name} was not run: it came from the "
                            f"output of {untrusted_source}, and nobody can confirm it here.")
    if result is None:
        result = await registry.execute(call, ctx)
    elif spec is not None and decision == "no_confirmer":
        # A risky action the asker could not confirm: a user interface may offer it again
        # as a confirm button (seed 004 §6, "ActionConfirm").
        result = replace(result, display=DisplayHint("confirm_action", spec.name, {
            "tool": spec.name, "permission": str(getattr(spec.permission, "value", spec.permission)),
            "arguments": redact(call.parsed_arguments()) if _is_object(call.arguments) else {},
        }))
    elif spec is not None and decision in ("deny", "timeout"):
        # Refused by the policy or left unanswered: shown highlighted, not as a plain line.
        result = replace(result, display=DisplayHint("risk_alert", spec.name, {
            "level": "warning", "message": result.content.removeprefix("error: "),
        }))
    if audit is not None:
        await audit.record(call, result, ctx, decision=decision)
    return result


def _is_object(arguments: str) -> bool:
    try:
        return isinstance(json.loads(arguments or "{}"), dict)
    except json.JSONDecodeError:
        return False
