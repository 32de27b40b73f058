"""Client-side tools: a turn that hands some of its tool calls to the client and waits.

Home Assistant (over the OpenAI endpoint or the Ollama route) sends its own tools with a
request and runs them itself. Such a turn spans several HTTP requests:

1. a request with `tools` starts the turn; the agent offers those tools beside its own;
2. when the model calls a client tool, the response ends with that call (several calls
   of one round together) and the turn waits in `ClientTurn.call`;
3. the client runs the tools and sends a new request whose last messages carry the
   results; `ClientToolBroker` finds the waiting turn by its call ids (OpenAI) or by the
   calls themselves (Ollama's protocol has no ids) and the SAME turn resumes: one run
   record, its memory and context intact, its trace showing both halves.

The agent's own tools run inside the turn and the client never sees them. A result for
an unknown or stale call is a 400 naming it. A client that does not come back within the
timeout ends its turn cleanly (cancelled, nothing half-written), and its calls go stale.
A new request from the same client that is not a tool result supersedes its waiting
turn. What a client tool returns is data for the model, never instructions to it.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from homeagent.chat import ToolCall, ToolDef
from homeagent.errors import RequestError
from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.io.events import AgentEvent, ToolCallStarted, TurnDone, TurnFailed
from homeagent.io.ha_intents import compact_context, enrich, is_home_assistant, readable_result
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle
from homeagent.io.registry import DeviceRegistry
from homeagent.log import get_logger

log = get_logger("homeagent.io.client_tools")

# The most of one client tool result the model reads (characters).
MAX_RESULT_CHARS = 16_000


@dataclass(frozen=True)
class PendingCall:
    """A client tool call as the client sees it: our own id, its name, object arguments."""

    id: str
    name: str
    arguments: dict[str, Any]

    def fingerprint(self) -> tuple[str, str]:
        return self.name, _canonical(self.arguments)


@dataclass(frozen=True)
class Paused:
    """The turn waits for the client: answer the request with these calls."""

    calls: tuple[PendingCall, ...]


def _canonical(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _arguments(call: ToolCall) -> dict[str, Any]:
    try:
        parsed = call.parsed_arguments()
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


class ClientTurn:
    """One turn whose client runs some of its tools; it may span several requests."""

    def __init__(
        self, broker: ClientToolBroker, owner: str, definitions: tuple[ToolDef, ...], timeout: float,
        shape: Callable[[str, str, str], str] | None = None,
    ) -> None:
        # How the client's results read to the model: (tool name, result, user text) → text.
        self._shape = shape
        self._broker = broker
        self.owner = owner
        self._definitions = definitions
        self.names = frozenset(d.name for d in definitions)
        self._timeout = timeout
        self.interrupt: Interrupt | None = None
        self.pending: tuple[PendingCall, ...] = ()
        self.finished = False
        self._handled: set[str] = set()  # the agent's ids of calls already handed out
        self._requested = anyio.Event()
        self._answered = anyio.Event()
        self._results: dict[str, tuple[bool, str]] = {}
        self.rounds = 0

    # -- the agent's side (homeagent.io.interrupt.ClientTools) -------------------------

    @property
    def definitions(self) -> tuple[ToolDef, ...]:
        return self._definitions

    async def call(self, calls: Sequence[ToolCall]) -> list[tuple[bool, str]]:
        self._handled.update(c.id for c in calls)
        self.pending = tuple(
            PendingCall("call_" + uuid.uuid4().hex[:24], c.name, _arguments(c)) for c in calls
        )
        self._answered = anyio.Event()
        self._results = {}
        self.rounds += 1
        self._broker._park(self)
        self._requested.set()
        with anyio.move_on_after(self._timeout) as waited:
            await self._answered.wait()
        if waited.cancelled_caught:
            log.warning("client_tools.timeout", timeout_s=self._timeout, calls=len(self.pending))
            self._broker._unpark(self)
            if self.interrupt is not None:
                self.interrupt.reply.cancel()  # the turn ends as cancelled, cleanly
                self.interrupt.reply.events.close()  # nobody reads it any more
            self.pending = ()
            return [(False, "error: the client did not send this tool's result in time")] * len(calls)
        outcomes = [self._results[p.id] for p in self.pending]
        if self._shape is not None and self.interrupt is not None:
            text = self.interrupt.text
            outcomes = [(ok, self._shape(p.name, out, text)) for p, (ok, out) in zip(self.pending, outcomes, strict=True)]
        self.pending = ()
        return outcomes

    # -- the channel's side ------------------------------------------------------------

    def resume(self, results: dict[str, tuple[bool, str]]) -> None:
        """The client's results for every pending call, by our call id."""
        self._broker._unpark(self)
        self._results = {k: (ok, text[:MAX_RESULT_CHARS]) for k, (ok, text) in results.items()}
        self._answered.set()

    async def events(self) -> AsyncIterator[AgentEvent | Paused]:
        """The turn's events until it ends (`TurnDone`/`TurnFailed`) or waits (`Paused`)."""
        assert self.interrupt is not None
        receive = self.interrupt.reply.events
        while True:
            try:
                event = await receive.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                return
            if isinstance(event, TurnDone | TurnFailed):
                self.finished = True
            yield event
            if isinstance(event, ToolCallStarted) and event.name in self.names and event.call_id not in self._handled:
                # Every call of the round is announced before any runs: once the agent
                # hands the client its calls, the round is complete.
                await self._requested.wait()
                self._requested = anyio.Event()
                yield Paused(self.pending)
                return
            if self.finished:
                return

    def abandon(self) -> None:
        """The asker went away (or the turn ended): stop the turn if it still runs."""
        self._broker._unpark(self)
        if self.interrupt is not None:
            self.interrupt.reply.events.close()
            if not self.finished:
                self.interrupt.reply.cancel()


@dataclass
class ClientToolBroker:
    """The turns of one channel that wait for their clients' tool results."""

    timeout: float = 30.0
    _waiting: dict[str, ClientTurn] = field(default_factory=dict)  # our call id → turn

    def new_turn(
        self, owner: str, definitions: tuple[ToolDef, ...], shape: Callable[[str, str, str], str] | None = None
    ) -> ClientTurn:
        for turn in {id(t): t for t in self._waiting.values() if t.owner == owner}.values():
            log.info("client_tools.superseded", calls=len(turn.pending))
            turn.abandon()
        return ClientTurn(self, owner, definitions, self.timeout, shape)

    async def open(
        self, inbox: Inbox, interrupt: Interrupt, definitions: tuple[ToolDef, ...],
        shape: Callable[[str, str, str], str] | None = None,
    ) -> ClientTurn:
        """Start a turn whose client runs `definitions`; `interrupt.client_tools` is set
        to it (the interrupt given is a template: its other fields are kept). `shape`
        makes the client's results readable for the model."""
        turn = self.new_turn(f"{interrupt.member}|{interrupt.device_id}", definitions, shape)
        turn.interrupt = dataclasses.replace(interrupt, client_tools=turn)
        await inbox.submit(turn.interrupt)
        return turn

    def waiting_for(self, owner: str) -> list[ClientTurn]:
        return list({id(t): t for t in self._waiting.values() if t.owner == owner}.values())

    def by_ids(self, results: dict[str, tuple[bool, str]]) -> ClientTurn:
        """The waiting turn these results (by call id) answer; a 400 naming what is wrong."""
        turns = {id(t): t for i in results if (t := self._waiting.get(i)) is not None}
        unknown = [i for i in results if i not in self._waiting]
        if unknown:
            raise RequestError(
                f"tool_call_id {unknown[0]!r} matches no tool call that is waiting for its result "
                "(unknown, already answered, or timed out)",
                param="messages",
            )
        if len(turns) != 1:
            raise RequestError("tool results answer calls of different turns; send one turn's results", param="messages")
        turn = next(iter(turns.values()))
        missing = [p.id for p in turn.pending if p.id not in results]
        if missing:
            raise RequestError(f"no tool result for tool_call_id {missing[0]!r}; send every call's result", param="messages")
        return turn

    def by_calls(self, owner: str, calls: Sequence[tuple[str, Any]]) -> ClientTurn:
        """The waiting turn of `owner` whose pending calls are `calls` (name, arguments)."""
        wanted = sorted((name, _canonical(args)) for name, args in calls)
        for turn in self.waiting_for(owner):
            if sorted(p.fingerprint() for p in turn.pending) == wanted:
                return turn
        names = ", ".join(f"{name}({_canonical(args)})" for name, args in calls) or "(none)"
        raise RequestError(
            f"tool results for {names} match no tool call that is waiting for its result "
            "(unknown, already answered, or timed out)",
            param="messages",
        )

    def _park(self, turn: ClientTurn) -> None:
        for call in turn.pending:
            self._waiting[call.id] = turn

    def _unpark(self, turn: ClientTurn) -> None:
        for key in [k for k, t in self._waiting.items() if t is turn]:
            del self._waiting[key]


class ClientToolChannel:
    """What the OpenAI endpoint and the Ollama route share: a client that hears only the
    answers to its own requests and may send tools of its own, whose calls it runs."""

    name = ""
    capabilities = Capabilities(streams=True, confirms=False, receives_unasked=False)

    def __init__(self, inbox: Inbox, devices: DeviceRegistry, *, client_tool_timeout: float = 30.0) -> None:
        self._inbox = inbox
        self._devices = devices
        # Turns that wait for a client's tool results (ClientToolBroker above).
        self.client_tools = ClientToolBroker(client_tool_timeout)

    async def deliver(self, message: OutboundMessage) -> bool:
        return False  # a client of this API only hears the answers to its own requests

    def _interrupt(self, text: str, *, device_id: str, context: str, member: str) -> Interrupt:
        return Interrupt(
            text=text, channel=self.name, reply=ReplyHandle(), device_id=device_id, member=member,
            context=context, capabilities=self.capabilities,
        )

    async def client_turn(
        self, text: str, tools: tuple[ToolDef, ...], *, device_id: str, context: str = "", member: str = ""
    ) -> ClientTurn:
        """A turn that offers the client's `tools` beside the agent's own; when the model
        calls one, the turn waits for the client's result (see ClientToolBroker)."""
        await self._devices.touch(self.name, device_id)
        tools = enrich(tools, text, context)
        home_assistant = is_home_assistant(tools)
        if home_assistant:
            context = compact_context(context)
        template = self._interrupt(text, device_id=device_id, context=context, member=member)
        # Home Assistant's intents learn the values its device overview offers.
        return await self.client_tools.open(self._inbox, template, tools, readable_result if home_assistant else None)
