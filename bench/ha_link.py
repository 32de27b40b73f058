#!/usr/bin/env python3
"""The link to a real Home Assistant: how long it takes to start, and how fast the cache follows.

Starts Home Assistant 2025.4.4 from the cached venv (`make ha-venv`; built first if
missing) with the test house of tests/ha/harness.py, onboards it, and runs a HomeAgent
App (scripted provider, HTTP on) linked to it. Figures, medians over --runs:

    ha start      `hass` spawned -> core state RUNNING (first start, then a restart)
    link connect  HomeLink.run started -> connected (states, registries, expose list read)
    cache follow  REST service call to Home Assistant sent -> HomeAgent's cache shows the
                  new state (by the state_changed event over the WebSocket; the event
                  usually arrives before the REST call has returned)
    tool turn     a turn whose scripted model calls home_toggle -> turn finished (the
                  tool waits for Home Assistant's state_changed before it reports)
    reconnect     Home Assistant restarted -> link connected again (reconnect_max 1 s)

Nothing here asserts a time; it only reports.

    .venv/bin/python bench/ha_link.py --runs 20
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from homeagent.app import App  # noqa: E402
from homeagent.config import load_config  # noqa: E402
from homeagent.home import HomeLink  # noqa: E402
from homeagent.llm.testing import ScriptedProvider, ScriptedReply  # noqa: E402
from tests.conftest import write_config  # noqa: E402
from tests.ha.harness import HomeAssistantProcess, ensure_venv  # noqa: E402
from tests.integration.helpers import turn  # noqa: E402


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms (min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f})"


async def connected(link: HomeLink) -> None:
    with anyio.fail_after(120):
        while not link.connected:
            await link.wait_changed()


async def bench(runs: int, tmp: Path) -> None:
    began = time.monotonic()
    ensure_venv()
    print(f"ha venv ready          {time.monotonic() - began:.1f} s (cached when < a few s)")
    ha = HomeAssistantProcess(tmp / "ha")
    first = ha.start()
    await ha.onboard()
    await ha.furnish()
    print(f"ha start (first)       {first:.1f} s")
    config = load_config(write_config(tmp, home_assistant={
        "url": ha.url, "token": ha.token, "reconnect_min": "0.2s", "reconnect_max": "1s"},
        daemon={"check_interval": 0, "heartbeat_interval": 0}, knowledge={"watch": False}), env={})  # fmt: skip
    provider = ScriptedProvider()
    try:
        async with App(config, provider=provider) as app, anyio.create_task_group() as tg:
            assert app.home is not None
            link = app.home
            t0 = time.monotonic()
            ready = anyio.Event()
            tg.start_soon(lambda: app.run(on_ready=ready.set))
            await ready.wait()
            await connected(link)
            print(f"link connect           {(time.monotonic() - t0) * 1000:.1f} ms")

            follow: list[float] = []
            for i in range(runs):
                want = "on" if i % 2 == 0 else "off"
                t = time.monotonic()
                await ha.rest("POST", f"/api/services/light/turn_{want}", {"entity_id": "light.bedroom_lamp"})
                with anyio.fail_after(10):
                    while link.house().get("light.bedroom_lamp").state != want:  # type: ignore[union-attr]
                        await link.wait_changed()
                follow.append(time.monotonic() - t)
            print(f"cache follow           {ms(follow)}")

            turns: list[float] = []
            for _ in range(runs):
                provider.push(ScriptedReply(tool_calls=[("home_toggle", {"name": "coffee maker"})]), "ok")
                t = time.monotonic()
                await turn(app, "toggle the coffee maker")
                turns.append(time.monotonic() - t)
            print(f"tool turn              {ms(turns)}")

            t = time.monotonic()
            await anyio.to_thread.run_sync(ha.stop)
            with anyio.fail_after(30):
                while link.connected:
                    await link.wait_changed()
            print(f"ha stop -> link down   {(time.monotonic() - t) * 1000:.1f} ms (stop included)")
            t = time.monotonic()
            async with anyio.create_task_group() as inner:
                inner.start_soon(anyio.to_thread.run_sync, ha.start)
                await connected(link)
                back = time.monotonic() - t
            print(f"ha start (restart)     {time.monotonic() - t:.1f} s to RUNNING")
            print(f"link back after spawn  {back:.1f} s")
            tg.cancel_scope.cancel()
    finally:
        ha.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(bench(args.runs, Path(tmp)))


if __name__ == "__main__":
    main()
