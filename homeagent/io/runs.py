"""Runs (`/api/agent/runs`) as a channel: a turn created now and followed later.

A run's asker does not hold the turn's event stream: it follows the run's record
(resumable SSE, polling), where a `PermissionRequested` shows up like every other event
and is answered through the permission broker. So the reply handle is detached, and the
run is registered with the run hub before the interrupt reaches the inbox, so it can be
read and cancelled at once; its row is committed before `start` returns, so an
acknowledged run survives a crash (as `interrupted`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle
from homeagent.io.registry import DeviceRegistry


class RunBook(Protocol):
    """Where runs are recorded (the agent's run hub); io names only what it calls."""

    async def open(self, run_id: str, *, channel: str, device_id: str, member: str, text: str,
                   cancel: Callable[[], None] | None = None) -> None: ...


RUNS_CAPABILITIES = Capabilities(streams=True, confirms=True, receives_unasked=False)


class RunsChannel:
    name = "api"
    capabilities = RUNS_CAPABILITIES

    def __init__(self, inbox: Inbox, devices: DeviceRegistry, runs: RunBook) -> None:
        self._inbox = inbox
        self._devices = devices
        self._runs = runs

    async def deliver(self, message: OutboundMessage) -> bool:
        return False  # a run is an answer to a request; there is no run to put it in

    async def start(
        self,
        text: str,
        *,
        device_id: str,
        label: str = "",
        context: str = "",
        cancel_running: bool = False,
        member: str = "",
    ) -> str:
        """Queue a run; returns its id (also the turn's id)."""
        label = label or self.name
        reply = ReplyHandle(detached=True)
        interrupt = Interrupt(
            text=text, channel=label, reply=reply, device_id=device_id, member=member,
            context=context, cancel_running=cancel_running, capabilities=self.capabilities,
        )
        # The run's row is committed before the id is handed out: a 202 is durable.
        await self._runs.open(interrupt.turn_id, channel=label, device_id=device_id, member=member, text=text,
                          cancel=reply.cancel)
        await self._devices.touch(label, device_id)
        await self._inbox.submit(interrupt)
        return interrupt.turn_id
