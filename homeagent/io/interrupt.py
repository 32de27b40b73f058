"""Interrupts, reply handles and the agent's inbox.

An adapter never calls the agent. It builds an `Interrupt` (text, channel, device, a
`ReplyHandle`) and submits it to the `Inbox`; the agent consumes the inbox one turn at a
time in arrival order and streams the turn's events into that interrupt's reply handle,
so each answer reaches exactly the channel and request that asked for it.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from homeagent.chat import ToolCall, ToolDef
from homeagent.io.channel import STREAM_ONLY, Capabilities
from homeagent.io.events import AgentEvent


def new_turn_id() -> str:
    return "turn_" + uuid.uuid4().hex[:20]


class ReplyHandle:
    """The way back to the asker: an event stream plus a cancel request.

    The agent `emit`s events; the channel reads `events`. When the asker goes away it
    calls `cancel()`, and the agent stops the turn if it is still running.
    """

    def __init__(self, *, detached: bool = False) -> None:
        # A detached handle drops events: its asker follows the run's record instead.
        self.detached = detached
        send, receive = anyio.create_memory_object_stream[AgentEvent](math.inf)
        self._send: MemoryObjectSendStream[AgentEvent] = send
        self.events: MemoryObjectReceiveStream[AgentEvent] = receive
        self.cancel_requested = anyio.Event()

    async def emit(self, event: AgentEvent) -> bool:
        """Deliver an event; False when the asker has gone away."""
        if self.detached:
            await anyio.lowlevel.checkpoint()
            return True
        try:
            self._send.send_nowait(event)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return False
        await anyio.lowlevel.checkpoint()
        return True

    def close(self) -> None:
        self._send.close()

    def cancel(self) -> None:
        self.cancel_requested.set()


class ClientTools(Protocol):
    """Tools the asking client runs itself (Home Assistant's intents): they join the
    turn's tools, and a round's calls to them go back to the client through the channel;
    `call` returns, in call order, each call's (ok, result text) once the client has
    sent its results (the turn waits meanwhile)."""

    @property
    def definitions(self) -> tuple[ToolDef, ...]: ...

    async def call(self, calls: Sequence[ToolCall]) -> list[tuple[bool, str]]: ...


@dataclass(frozen=True)
class Interrupt:
    text: str
    channel: str
    reply: ReplyHandle = field(compare=False, repr=False)
    device_id: str = ""
    # The household member speaking, from the request's token ("" when unknown).
    member: str = ""
    turn_id: str = field(default_factory=new_turn_id)
    # Extra system context for this turn only (an OpenAI client's system message).
    context: str = ""
    # A newer interrupt from a channel that asks for it cancels the turn in progress.
    cancel_running: bool = False
    created_at: float = field(default_factory=time.time)
    # What the asking channel can do (stream, confirm, receive unasked messages).
    capabilities: Capabilities = STREAM_ONLY
    # Tools the client runs itself, offered beside the agent's own for this turn.
    client_tools: ClientTools | None = field(default=None, compare=False, repr=False)


class Inbox:
    """The agent's input queue: an anyio memory-object stream of interrupts."""

    def __init__(self, max_pending: int = 1024) -> None:
        self._send, self.receive = anyio.create_memory_object_stream[Interrupt](max_pending)

    async def submit(self, interrupt: Interrupt) -> None:
        await self._send.send(interrupt)

    def close(self) -> None:
        self._send.close()

    @property
    def pending(self) -> int:
        return self._send.statistics().current_buffer_used


async def ask(
    inbox: Inbox,
    text: str,
    *,
    channel: str,
    device_id: str = "",
    context: str = "",
    cancel_running: bool = False,
    member: str = "",
    turn_id: str | None = None,
    capabilities: Capabilities = STREAM_ONLY,
) -> Interrupt:
    """Submit a new interrupt; read its answer from `interrupt.reply.events`."""
    interrupt = Interrupt(
        text=text,
        channel=channel,
        reply=ReplyHandle(),
        device_id=device_id,
        context=context,
        cancel_running=cancel_running,
        member=member,
        capabilities=capabilities,
        turn_id=turn_id or new_turn_id(),
    )
    await inbox.submit(interrupt)
    return interrupt
