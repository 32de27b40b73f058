"""One turn as its channel sees it: submit the interrupt, read its events, and cancel the
turn when the asker leaves before the end.

    async with open_turn(inbox, interrupt) as turn:
        async for event in turn:
            ...                      # leaving early (a client gone, an error) cancels it

Every streaming adapter (the OpenAI endpoint, `/api/chat`, the console) reads its turn
this way, so "the asker went away, stop spending compute" lives in one place.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from homeagent.io.events import AgentEvent, TurnDone, TurnFailed
from homeagent.io.interrupt import Inbox, Interrupt


class ChannelTurn:
    """The events of one submitted turn; `finished` once its final event has arrived."""

    def __init__(self, interrupt: Interrupt) -> None:
        self.interrupt = interrupt
        self.finished = False

    @property
    def turn_id(self) -> str:
        return self.interrupt.turn_id

    def __aiter__(self) -> ChannelTurn:
        return self

    async def __anext__(self) -> AgentEvent:
        try:
            event = await self.interrupt.reply.events.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None
        if isinstance(event, TurnDone | TurnFailed):
            self.finished = True
        return event


@asynccontextmanager
async def open_turn(inbox: Inbox, interrupt: Interrupt) -> AsyncIterator[ChannelTurn]:
    """Submit `interrupt` and yield its events; on leaving before the turn's final event
    the turn is cancelled, and its event stream is closed either way."""
    await inbox.submit(interrupt)
    turn = ChannelTurn(interrupt)
    try:
        yield turn
    finally:
        interrupt.reply.events.close()
        if not turn.finished:
            interrupt.reply.cancel()
