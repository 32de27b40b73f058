"""The tool registry: one object built by the composition root.

A `ToolSpec` has a name, a description, a JSON Schema for its arguments, a permission
class and an async executor taking a `ToolContext` and the validated arguments. The
registry validates arguments before any executor runs and turns every failure (bad JSON,
schema violation, exception, timeout, unknown tool) into a `ToolResult` the model can
read, so a failing tool never ends the turn.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

import anyio

from homeagent.chat import ToolCall, ToolDef
from homeagent.errors import ToolError, ToolValidationError
from homeagent.log import get_logger

if TYPE_CHECKING:
    import jsonschema

log = get_logger("homeagent.tools")

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class Permission(StrEnum):
    READ = "read"
    WRITE = "write"
    DELETE = "delete"
    NETWORK = "network"
    SECRETS = "secrets"


@dataclass(frozen=True)
class ToolContext:
    """What an executor may know about the turn that called it."""

    turn_id: str
    channel: str
    device_id: str = ""
    now: Callable[[], datetime] = datetime.now
    # The household member speaking ("" when unknown). Private domains (notes marked
    # private, diary, health) are filtered by it.
    member: str = ""
    # The language the user spoke ("zh", "en"; "" unknown): results follow it when the
    # arguments carry no words of their own.
    language: str = ""


DisplayKind = Literal["data_series", "confirm_action", "risk_alert", "list", "text"]


@dataclass(frozen=True)
class DisplayHint:
    """How a user interface may show a tool result (a chart, a list, a warning)."""

    kind: DisplayKind
    title: str = ""
    data: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "title": self.title, "data": self.data}


@dataclass(frozen=True)
class ToolOutput:
    """An executor's rich result: what the model reads, plus an optional display hint."""

    content: str | dict[str, Any] | list[Any]
    display: DisplayHint | None = None


Executor = Callable[[ToolContext, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: Mapping[str, Any]
    executor: Executor
    permission: Permission = Permission.READ
    timeout: float | None = None  # None: the registry's default
    # Each example reads `user words → tool_name {"argument": "value"}`; they feed the
    # prompt's example dialogues and the relevant-tool index.
    examples: tuple[str, ...] = ()
    category: str = ""  # groups tools for people (`homeagent tools list`) and prompts
    # How many leading `examples` the system prompt shows as example dialogues.
    featured_examples: int = 0

    def to_def(self) -> ToolDef:
        return ToolDef(self.name, self.description, self.parameters, self.examples, self.featured_examples)


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    name: str
    ok: bool
    content: str  # what the model reads
    duration_ms: float = 0.0
    data: Any = field(default=None, compare=False)
    display: DisplayHint | None = None


class ToolRegistry:
    def __init__(self, default_timeout: float = 10.0):
        self.default_timeout = default_timeout
        self._tools: dict[str, ToolSpec] = {}
        self._validators: dict[str, jsonschema.protocols.Validator] = {}

    def register(self, spec: ToolSpec, *, shipped: bool = False) -> Callable[[], None]:
        """Add a tool; returns a callable that removes it again.

        A schema from outside (plugins, adapters, skills, tests) is checked against JSON
        Schema 2020-12 here. `shipped=True` is for HomeAgent's own tools, whose schemas
        the test suite checks once (tests/unit/test_tool_schemas.py): the check costs
        ~4 ms a schema, a third of a second of every start for the ~85 shipped tools."""
        if not _NAME_RE.match(spec.name):
            raise ValueError(f"tool name {spec.name!r} must match {_NAME_RE.pattern}")
        if spec.name in self._tools:
            raise ValueError(f"tool {spec.name!r} is already registered")
        schema = dict(spec.parameters)
        if not shipped:
            import jsonschema

            try:
                jsonschema.Draft202012Validator.check_schema(schema)
            except jsonschema.SchemaError as err:
                raise ValueError(
                    f"tool {spec.name!r} has an invalid parameters schema: {err.message}"
                ) from err
        if schema.get("type") != "object":
            # Arguments are always a JSON object; function-calling APIs require this too.
            raise ValueError(f"tool {spec.name!r}: the parameters schema must have type object")
        self._tools[spec.name] = spec

        def unregister() -> None:
            # Only remove this very spec, not a later tool registered under the same name.
            if self._tools.get(spec.name) is spec:
                del self._tools[spec.name]
                self._validators.pop(spec.name, None)

        return unregister

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def definitions(self) -> tuple[ToolDef, ...]:
        return tuple(spec.to_def() for spec in self._tools.values())

    def _validator(self, name: str) -> jsonschema.protocols.Validator:
        """A tool's argument validator, built at its first call: jsonschema (a tenth of a
        second to import) stays off the daemon's start."""
        validator = self._validators.get(name)
        if validator is None:
            import jsonschema

            validator = self._validators[name] = jsonschema.Draft202012Validator(dict(self._tools[name].parameters))
        return validator

    def validate(self, name: str, arguments: Any) -> dict[str, Any]:
        """Return the arguments if they fit the tool's schema, else raise with every problem."""
        if name not in self._tools:
            known = ", ".join(sorted(self._tools)) or "none"
            raise ToolValidationError(f"unknown tool {name!r}; available tools: {known}")
        if not isinstance(arguments, dict):
            raise ToolValidationError(
                f"arguments for {name} must be a JSON object, got {type(arguments).__name__}"
            )
        errors = sorted(self._validator(name).iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e.path) or '(arguments)'}: {e.message}" for e in errors
            )
            raise ToolValidationError(f"invalid arguments for {name}: {problems}")
        return arguments

    async def execute(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Validate and run one call; every failure becomes a readable error result."""
        started = time.monotonic()

        def done(ok: bool, content: str, data: Any = None, display: DisplayHint | None = None) -> ToolResult:
            duration = round((time.monotonic() - started) * 1000, 2)
            log.info(
                "tool.call.finished",
                tool=call.name,
                ok=ok,
                duration_ms=duration,
                turn_id=ctx.turn_id,
            )
            return ToolResult(call.id, call.name, ok, content, duration, data, display)

        try:
            raw = call.parsed_arguments()
        except json.JSONDecodeError as err:
            return done(False, f"error: arguments for {call.name} are not valid JSON ({err.msg})")
        try:
            args = self.validate(call.name, raw)
        except ToolValidationError as err:
            return done(False, f"error: {err}")
        spec = self._tools[call.name]
        timeout = spec.timeout if spec.timeout is not None else self.default_timeout
        try:
            # move_on_after, not fail_after: a TimeoutError raised by the tool itself
            # (an HTTP client timing out) is that tool's failure, not ours.
            with anyio.move_on_after(timeout) as scope:
                value = await spec.executor(ctx, args)
            if scope.cancelled_caught:
                return done(False, f"error: {call.name} did not finish within {timeout:g} s")
        except ToolError as err:
            return done(False, f"error: {err}")
        except Exception as err:  # noqa: BLE001 - a tool's failure is reported to the model
            log.warning("tool.call.crashed", tool=call.name, error=repr(err), turn_id=ctx.turn_id)
            return done(False, f"error: {call.name} failed: {type(err).__name__}: {err}")
        display = None
        if isinstance(value, ToolOutput):
            display, value = value.display, value.content
        if isinstance(value, str):
            return done(True, value, value, display)
        try:
            content = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError) as err:
            log.warning("tool.result.unserializable", tool=call.name, error=repr(err))
            return done(False, f"error: {call.name} returned a result that is not JSON: {err}")
        return done(True, content, value, display)
