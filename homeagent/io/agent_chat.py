"""`/api/chat` as a channel: one turn streamed as the agent's own events.

The asker (the app, `homeagent chat`) reads every event, so it can show a
`PermissionRequested` and answer it through the permission broker while the turn waits;
it hears only the answers to its own requests. A client may label its requests with a
channel of its own (`"cli"`, a device kind): the label is recorded with the exchange and
the device, and what the turn may do still comes from this adapter's capabilities.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle
from homeagent.io.registry import DeviceRegistry
from homeagent.io.turn import ChannelTurn, open_turn

AGENT_CHAT_CAPABILITIES = Capabilities(streams=True, confirms=True, receives_unasked=False)


class AgentChatChannel:
    name = "http"
    capabilities = AGENT_CHAT_CAPABILITIES

    def __init__(self, inbox: Inbox, devices: DeviceRegistry) -> None:
        self._inbox = inbox
        self._devices = devices

    async def deliver(self, message: OutboundMessage) -> bool:
        return False  # a request's stream ends with its turn; nothing is listening after

    @asynccontextmanager
    async def turn(
        self,
        text: str,
        *,
        device_id: str,
        label: str = "",
        context: str = "",
        cancel_running: bool = False,
        member: str = "",
    ) -> AsyncIterator[ChannelTurn]:
        """One turn; leaving before its end (the client went away) cancels it."""
        label = label or self.name
        await self._devices.touch(label, device_id)
        interrupt = Interrupt(
            text=text, channel=label, reply=ReplyHandle(), device_id=device_id, member=member,
            context=context, cancel_running=cancel_running, capabilities=self.capabilities,
        )
        async with open_turn(self._inbox, interrupt) as turn:
            yield turn
