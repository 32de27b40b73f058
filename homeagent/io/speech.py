"""Spoken requests over HTTP (`POST /api/voice`) as a channel.

A WAV in, a WAV answer out: the asker hears the answer whole, cannot answer a permission
request in the middle of it, and hears nothing it did not ask for. The route
(homeagent/api/voice.py) does the speech; this adapter turns the transcript into the
turn's interrupt, like every other channel.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle
from homeagent.io.registry import DeviceRegistry
from homeagent.io.turn import ChannelTurn, open_turn

SPEECH_CAPABILITIES = Capabilities(streams=False, confirms=False, receives_unasked=False)


class SpeechChannel:
    name = "voice"
    capabilities = SPEECH_CAPABILITIES

    def __init__(self, inbox: Inbox, devices: DeviceRegistry) -> None:
        self._inbox = inbox
        self._devices = devices

    async def deliver(self, message: OutboundMessage) -> bool:
        return False  # an HTTP request hears only its own answer

    @asynccontextmanager
    async def turn(self, text: str, *, device_id: str, member: str = "") -> AsyncIterator[ChannelTurn]:
        await self._devices.touch(self.name, device_id)
        interrupt = Interrupt(
            text=text, channel=self.name, reply=ReplyHandle(), device_id=device_id, member=member,
            capabilities=self.capabilities,
        )
        async with open_turn(self._inbox, interrupt) as turn:
            yield turn
