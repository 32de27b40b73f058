"""An OpenAI client that goes away mid-stream cancels its turn: the agent stops spending
compute (and running tools) for an answer nobody reads.

A real aiohttp server on a free port, a real HTTP client that reads the first piece of
the answer and closes the connection. The scripted model streams two pieces and then
calls a tool that would run for minutes: only the channel's cancel stops it, because
after the second piece the turn emits no more text for the agent to find undeliverable.
"""

from __future__ import annotations

import json

import aiohttp
import anyio
import pytest

from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from homeagent.tools.registry import ToolSpec

from .helpers import running_app

pytestmark = pytest.mark.anyio

# Time for the server to see the closed connection before the second piece is written.
PIECE_DELAY = 0.5


def slow_tool(seen: dict[str, bool]) -> ToolSpec:
    async def wait_for_the_kettle(ctx, args):
        seen["started"] = True
        try:
            await anyio.sleep(300)
        except anyio.get_cancelled_exc_class():
            seen["cancelled"] = True
            raise
        seen["finished"] = True
        return "the kettle boiled"

    return ToolSpec(
        "wait_for_the_kettle", "wait until the kettle boils", {"type": "object", "properties": {}},
        wait_for_the_kettle, timeout=600,
    )


async def read_first_piece(response: aiohttp.ClientResponse) -> str:
    """Read SSE lines until the first chunk that carries answer text."""
    async for raw in response.content:
        line = raw.decode().strip()
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line.removeprefix("data: "))
        content = chunk["choices"][0]["delta"].get("content") if chunk.get("choices") else None
        if content:
            return content
    raise AssertionError("the stream ended before any answer text")


async def test_client_disconnect_mid_stream_cancels_the_turn(make_config):
    seen: dict[str, bool] = {}
    provider = ScriptedProvider([
        ScriptedReply(text="甲乙", delay=PIECE_DELAY, tool_calls=[("wait_for_the_kettle", {})]),
        "水开了。",
    ])
    async with running_app(make_config(), provider=provider, extra_tools=(slow_tool(seen),), http=True) as app:
        base = f"http://127.0.0.1:{app.health.port}"
        url = base + "/v1/chat/completions"
        body = {"model": "homeagent", "stream": True, "messages": [{"role": "user", "content": "水开了叫我"}]}
        with anyio.fail_after(30):
            async with aiohttp.ClientSession() as session:
                response = await session.post(url, json=body)
                assert response.status == 200
                assert await read_first_piece(response) == "甲"
                response.close()  # the client goes away mid-answer

        # The turn is on record as a run: follow its events to their end, then read it.
        async with aiohttp.ClientSession() as session:
            async with session.get(base + "/api/agent/runs") as r:
                (run,) = (await r.json())["runs"]
            try:
                with anyio.fail_after(20):
                    async with session.get(f"{base}/api/agent/runs/{run['id']}/events") as r:
                        async for _ in r.content:
                            pass  # the stream ends when the run does
            except TimeoutError:
                raise AssertionError(
                    f"the turn went on after its client disconnected (tool {seen}, {app.agent.stats})"
                ) from None
            async with session.get(f"{base}/api/agent/runs/{run['id']}") as r:
                run = await r.json()

        assert run["status"] == "cancelled", run
        stats = app.agent.stats
        assert stats.turns_cancelled == 1 and stats.turns_completed == 0, stats
        assert "finished" not in seen, "the tool of a cancelled turn must not run to its end"
        assert len(provider.requests) == 1, "no model call after the client left"
