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

from homeagent.io.channel import Capabilities
from homeagent.io.client_tools import ClientToolChannel
from homeagent.io.turn import ChannelTurn, open_turn

OPENAI_CAPABILITIES = Capabilities(streams=True, confirms=False, receives_unasked=False)


class OpenAIChannel(ClientToolChannel):
    name = "openai"
    capabilities = OPENAI_CAPABILITIES

    @asynccontextmanager
    async def turn(
        self, text: str, *, device_id: str, context: str = "", member: str = ""
    ) -> AsyncIterator[ChannelTurn]:
        """One completion; leaving before its end (the client went away) cancels it."""
        await self._devices.touch(self.name, device_id)
        interrupt = self._interrupt(text, device_id=device_id, context=context, member=member)
        async with open_turn(self._inbox, interrupt) as turn:
            yield turn
