"""Helpers for in-process integration tests: an App with its agent running."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

import anyio

from homeagent.app import App
from homeagent.io import ask
from homeagent.io.events import AgentEvent
from homeagent.tools.registry import Permission, ToolSpec


@asynccontextmanager
async def running_app(config: Any, *, http: bool = False, **kwargs: Any):
    async with App(config, **kwargs) as app, anyio.create_task_group() as tg:
        if http:
            ready = anyio.Event()
            tg.start_soon(lambda: app.run(on_ready=ready.set))
            await ready.wait()
        else:
            tg.start_soon(app.agent.run, app.inbox)
        try:
            yield app
        finally:
            tg.cancel_scope.cancel()


async def turn(app: App, text: str, **kwargs: Any) -> list[AgentEvent]:
    interrupt = await ask(app.inbox, text, channel=kwargs.pop("channel", "test"), **kwargs)
    with anyio.fail_after(30):
        return [event async for event in interrupt.reply.events]


def text_of(events: list[AgentEvent]) -> str:
    return "".join(e.text for e in events if e.type == "text_delta")  # type: ignore[union-attr]


def wipe_tool(calls: list[str]) -> ToolSpec:
    """A delete-class tool (the policy's default for it is confirm) that records its calls."""

    async def wipe(ctx, args):
        calls.append(args["what"])
        return f"wiped {args['what']}"

    schema = {"type": "object", "properties": {"what": {"type": "string"}}, "required": ["what"]}
    return ToolSpec("wipe_list", "delete a whole list", schema, wipe, permission=Permission.DELETE)
