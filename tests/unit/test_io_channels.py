"""homeagent.io: the channel adapters build their own interrupts with their own
capabilities, channels register once and unregister, a turn left early is cancelled,
and the console answers a permission request from what is typed on its terminal."""

from __future__ import annotations

import io
import os
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from homeagent.io import Capabilities, Channel, DeviceRegistry, Inbox, Interrupt, ReplyHandle
from homeagent.io.agent_chat import AgentChatChannel
from homeagent.io.console import ConsoleChannel
from homeagent.io.events import AnswerDelta, PermissionRequested, TurnDone
from homeagent.io.openai import OpenAIChannel
from homeagent.io.runs import RunsChannel
from homeagent.io.turn import open_turn
from homeagent.schema import all_migrations
from homeagent.store import Database
from homeagent.tools.permissions import PermissionBroker, PermissionRequest

pytestmark = pytest.mark.anyio


@pytest.fixture
async def devices(tmp_path: Path) -> AsyncIterator[DeviceRegistry]:
    async with Database(tmp_path / "h.db", all_migrations()) as db:
        yield DeviceRegistry(db)


class Named:
    def __init__(self, name: str) -> None:
        self.name = name
        self.capabilities = Capabilities()

    async def deliver(self, message: object) -> bool:
        return False


async def test_a_channel_name_registers_once_and_unregisters(devices: DeviceRegistry) -> None:
    first, second = Named("console"), Named("console")
    unregister = devices.register_channel(first)
    with pytest.raises(ValueError, match="'console' is already registered"):
        devices.register_channel(second)
    assert devices.channel("console") is first and devices.channels() == [first]
    unregister()
    assert devices.channel("console") is None and devices.channels() == []
    unregister_second = devices.register_channel(second)
    unregister()  # a stale unregister leaves the channel now under that name alone
    assert devices.channel("console") is second
    unregister_second()
    assert devices.channels() == []


class Book:
    def __init__(self) -> None:
        self.created: list[tuple[str, str]] = []

    async def open(self, run_id: str, *, channel: str, device_id: str, member: str, text: str, cancel=None) -> None:
        self.created.append((run_id, channel))


async def test_each_adapter_builds_interrupts_with_its_own_capabilities(devices: DeviceRegistry) -> None:
    inbox = Inbox()
    book = Book()
    openai, chat = OpenAIChannel(inbox, devices), AgentChatChannel(inbox, devices)
    runs, console = RunsChannel(inbox, devices, book), ConsoleChannel(inbox, PermissionBroker())
    for channel in (openai, chat, runs, console):
        assert isinstance(channel, Channel)
    async with openai.turn("hi", device_id="phone"):
        pass
    async with chat.turn("hi", device_id="phone", label="cli"):
        pass
    run_id = await runs.start("hi", device_id="phone")
    with anyio.fail_after(5):
        got = [await inbox.receive.receive() for _ in range(3)]
    assert [(i.channel, i.capabilities.confirms, i.capabilities.streams) for i in got] == [
        ("openai", False, True), ("cli", True, True), ("api", True, True)]
    assert got[2].turn_id == run_id and got[2].reply.detached and book.created == [(run_id, "api")]
    assert console.capabilities.confirms and console.capabilities.receives_unasked
    assert not openai.capabilities.receives_unasked
    assert {d.channel for d in await devices.list()} == {"openai", "cli", "api"}


async def test_a_turn_left_before_its_end_is_cancelled() -> None:
    inbox = Inbox()
    left = Interrupt("a", "test", reply=ReplyHandle())
    async with open_turn(inbox, left):
        pass
    assert left.reply.cancel_requested.is_set()

    done = Interrupt("b", "test", reply=ReplyHandle())
    async with open_turn(inbox, done) as turn:
        await done.reply.emit(TurnDone(done.turn_id, "ok", "stop", 1, 1, "m"))
        assert [e.type async for e in _take(turn, 1)] == ["done"]
    assert not done.reply.cancel_requested.is_set()


async def _take(turn, n: int):
    async for event in turn:
        yield event
        n -= 1
        if n == 0:
            return


async def fake_agent(inbox: Inbox, broker: PermissionBroker, answers: list[str]) -> None:
    """Serves one turn as the agent does for a channel that confirms: the request goes to
    the broker, the channel hears PermissionRequested, and the turn waits for the answer."""
    interrupt = await inbox.receive.receive()
    reply = interrupt.reply
    request = PermissionRequest("perm_1", interrupt.turn_id, "erase", "delete", {"what": "x"}, interrupt.channel)

    async def notify(req: PermissionRequest) -> None:
        await reply.emit(PermissionRequested(req.request_id, req.tool, req.permission, dict(req.arguments)))

    with anyio.fail_after(5):
        answers.append(await broker.ask(request, notify))
    await reply.emit(AnswerDelta(f"answered {answers[-1]}"))
    await reply.emit(TurnDone(interrupt.turn_id, "", "stop", 1, 1, "m"))
    reply.close()


@pytest.mark.parametrize(("typed", "answer"), [("y\n", "allow_once"), ("a\n", "allow_session"), ("n\n", "deny"),
                                               ("\n", "deny"), ("是\n", "allow_once"), ("", "deny")])
async def test_the_console_answers_a_permission_request_from_its_terminal(typed: str, answer: str) -> None:
    inbox, broker = Inbox(), PermissionBroker()
    read_fd, write_fd = os.pipe()
    os.write(write_fd, typed.encode())
    os.close(write_fd)  # what was typed, then the end of input
    out, prompts = io.StringIO(), io.StringIO()
    answers: list[str] = []
    with os.fdopen(read_fd, encoding="utf-8") as terminal:
        console = ConsoleChannel(inbox, broker, stdin=terminal, stdout=out, prompts=prompts)
        async with anyio.create_task_group() as tg:
            tg.start_soon(fake_agent, inbox, broker, answers)
            with anyio.fail_after(10):
                failure = await console.say("清空")
    assert failure is None and answers == [answer] and broker.pending() == []
    assert out.getvalue() == f"answered {answer}\n"
    assert 'Allow erase (delete) {"what": "x"}?' in prompts.getvalue()
    assert "[y]es / [a]lways / [n]o" in prompts.getvalue()
