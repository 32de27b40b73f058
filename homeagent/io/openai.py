"""The OpenAI-compatible endpoint (`/v1/chat/completions`) as a channel.

An OpenAI client streams the answer but has no way to answer a permission request in the
middle of a completion, and it hears only answers to its own requests: so a
confirm-class tool is refused on this channel, and `deliver` reaches no one. The HTTP
route (homeagent/api/openai_compat.py) parses the request and writes the wire format;
this adapter turns the request into the turn's interrupt.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from homeagent.chat import ToolDef
from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.io.client_tools import ClientToolBroker, ClientTurn
from homeagent.io.ha_intents import compact_context, enrich, is_home_assistant, readable_result
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle
from homeagent.io.registry import DeviceRegistry
from homeagent.io.turn import ChannelTurn, open_turn

OPENAI_CAPABILITIES = Capabilities(streams=True, confirms=False, receives_unasked=False)


class OpenAIChannel:
    name = "openai"
    capabilities = OPENAI_CAPABILITIES

    def __init__(self, inbox: Inbox, devices: DeviceRegistry, *, client_tool_timeout: float = 30.0) -> None:
        self._inbox = inbox
        self._devices = devices
        # Turns that wait for a client's tool results (homeagent/io/client_tools.py).
        self.client_tools = ClientToolBroker(client_tool_timeout)

    async def deliver(self, message: OutboundMessage) -> bool:
        return False  # a client of this API only hears the answers to its own requests

    @asynccontextmanager
    async def turn(
        self, text: str, *, device_id: str, context: str = "", member: str = ""
    ) -> AsyncIterator[ChannelTurn]:
        """One completion; leaving before its end (the client went away) cancels it."""
        await self._devices.touch(self.name, device_id)
        interrupt = Interrupt(
            text=text, channel=self.name, reply=ReplyHandle(), device_id=device_id, member=member,
            context=context, capabilities=self.capabilities,
        )
        async with open_turn(self._inbox, interrupt) as turn:
            yield turn

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
        template = Interrupt(
            text=text, channel=self.name, reply=ReplyHandle(), device_id=device_id, member=member,
            context=context, capabilities=self.capabilities,
        )
        # Home Assistant's intents learn the values its device overview offers.
        return await self.client_tools.open(self._inbox, template, tools, readable_result if home_assistant else None)
