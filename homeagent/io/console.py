"""The console (`homeagent chat --local`) as a channel: a terminal in the agent's process.

The answer streams to stdout. A tool that needs the user's confirmation arrives as a
`PermissionRequested` event; the console asks on the terminal, y (this once), a (always,
this session) or n (no), and gives the answer to the permission broker, which the turn
is waiting on. Messages the agent starts itself are printed between turns.

    console = ConsoleChannel(app.inbox, app.broker)
    async for line in console.lines():
        failure = await console.say(line)
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from typing import Protocol, TextIO

import anyio

from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.io.events import AnswerDelta, PermissionRequested, TurnDone, TurnFailed
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle
from homeagent.io.turn import open_turn
from homeagent.members import visible_to

CONSOLE_CAPABILITIES = Capabilities(streams=True, confirms=True, receives_unasked=True)

_ALWAYS = frozenset({"a", "always", "总是", "始终"})
_YES = frozenset({"y", "yes", "是", "好", "允许", "ok"})


class PermissionAnswers(Protocol):
    """Where the answer to a permission request goes (the permission broker)."""

    def resolve(self, request_id: str, answer: str, *, run_id: str | None = None) -> bool: ...


def answer_of(reply: str) -> str:
    """What the user typed, as a permission answer: anything but yes or always is no."""
    word = reply.strip().casefold()
    if word in _ALWAYS:
        return "allow_session"
    if word in _YES:
        return "allow_once"
    return "deny"


def describe(request: PermissionRequested) -> str:
    return f"{request.tool} ({request.permission}) {json.dumps(dict(request.arguments), ensure_ascii=False)}"


class ConsoleChannel:
    name = "console"
    capabilities = CONSOLE_CAPABILITIES

    def __init__(
        self,
        inbox: Inbox,
        answers: PermissionAnswers,
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        prompts: TextIO | None = None,
        device_id: str = "local",
        member: str = "",
    ) -> None:
        self._inbox = inbox
        self._answers = answers
        self._in = stdin or sys.stdin
        self._out = stdout or sys.stdout
        self._prompts = prompts or sys.stderr  # questions stay out of the answer's stream
        self.device_id = device_id
        self.member = member  # whose terminal it is ("" = the household's)

    async def deliver(self, message: OutboundMessage) -> bool:
        if not visible_to(message.member, self.member):
            return False  # another member's reminder never shows on this terminal
        self._out.write(f"{message.text}\n")
        self._out.flush()
        return True

    async def lines(self) -> AsyncIterator[str]:
        """The user's messages, one a line, until the end of input."""
        while True:
            line = await anyio.to_thread.run_sync(self._in.readline)
            if not line:
                return
            yield line.rstrip("\n")

    async def say(self, text: str) -> str | None:
        """One turn: the answer on stdout; returns the failure message if the turn failed."""
        interrupt = Interrupt(
            text=text, channel=self.name, reply=ReplyHandle(), device_id=self.device_id,
            capabilities=self.capabilities,
        )
        async with open_turn(self._inbox, interrupt) as turn:
            async for event in turn:
                if isinstance(event, AnswerDelta):
                    self._out.write(event.text)
                    self._out.flush()
                elif isinstance(event, PermissionRequested):
                    await self._confirm(event, turn.turn_id)
                elif isinstance(event, TurnDone):
                    self._out.write("\n")
                    self._out.flush()
                elif isinstance(event, TurnFailed):
                    return event.message
        return None

    async def _confirm(self, request: PermissionRequested, turn_id: str) -> None:
        def ask() -> str:
            self._prompts.write(f"\nAllow {describe(request)}? 允许吗？ [y]es / [a]lways / [n]o: ")
            self._prompts.flush()
            return self._in.readline()

        reply = await anyio.to_thread.run_sync(ask, abandon_on_cancel=True)
        # False when the request expired meanwhile: the turn has gone on without it.
        self._answers.resolve(request.request_id, answer_of(reply), run_id=turn_id)
