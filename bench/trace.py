"""Cost of recording runs: per-turn overhead and the replay time of a 1,000-event run.

    .venv/bin/python bench/trace.py [--turns 300]

Turns run through the real agent, store and run recorder with the scripted provider (so
the model costs nothing and the recording is what is measured), alternating recording
on and off to share the machine's noise. Replay reads a finished 1,000-event run back
from SQLite, and streams it over the real HTTP API as SSE.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from homeagent.app import App  # noqa: E402
from homeagent.config import load_config  # noqa: E402
from homeagent.io import ask  # noqa: E402
from homeagent.llm.testing import ScriptedProvider, ScriptedReply  # noqa: E402
from homeagent.log import configure_logging  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def config(tmp: Path):
    path = tmp / "bench.yaml"
    path.write_text(
        f"daemon: {{data_dir: '{tmp / 'data'}', listen_addr: '127.0.0.1:0'}}\n"
        f"agent: {{personality_file: '{REPO / 'personal.md'}'}}\n"
        "log: {level: warning, format: json}\n",
        encoding="utf-8",
    )
    return load_config(path, env={})


async def one_turn(app: App) -> float:
    started = time.perf_counter()
    interrupt = await ask(app.inbox, "what time is it? 现在几点？", channel="bench")
    async for _ in interrupt.reply.events:
        pass
    return (time.perf_counter() - started) * 1000


async def measure_turns(turns: int) -> dict[str, float]:
    reply = ScriptedReply(text="It is a quarter past three in the afternoon. 现在是下午三点一刻。")
    tool_round = ScriptedReply(tool_calls=[("current_time", {})])
    provider = ScriptedProvider()
    with tempfile.TemporaryDirectory() as tmp:
        async with App(config(Path(tmp)), provider=provider) as app, anyio.create_task_group() as tg:
            tg.start_soon(app.runs.run_writer)
            tg.start_soon(app.agent.run, app.inbox)
            hub = app.runs
            on, off = [], []
            for i in range(turns * 2 + 20):
                record = i % 2 == 0
                app.agent.runs = hub if record else None
                provider.push(tool_round, reply)
                ms = await one_turn(app)
                if i >= 20:  # warm-up
                    (on if record else off).append(ms)
            tg.cancel_scope.cancel()
    return {
        "median_on": statistics.median(on),
        "median_off": statistics.median(off),
        "mean_on": statistics.fmean(on),
        "mean_off": statistics.fmean(off),
    }


async def measure_replay(events: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        async with App(config(Path(tmp)), provider=ScriptedProvider()) as app:
            ready = anyio.Event()
            async with anyio.create_task_group() as tg:
                tg.start_soon(lambda: app.run(on_ready=ready.set))
                await ready.wait()
                hub = app.runs
                run_id = "turn_bench_replay"
                hub.begin(run_id, channel="bench", device_id="", member="", text="replay",
                          provider="scripted", model="scripted", snapshot={})
                for i in range(events - 1):
                    hub.note(run_id, "tool_result", {"call_id": f"c{i}", "name": "current_time", "ok": True,
                                                     "content": f"result {i} 结果", "duration_ms": 0.1})
                from homeagent.io.events import TurnDone

                hub.event(run_id, TurnDone(run_id, "done", "stop", 1, 1, "scripted"))
                await hub.flush()
                assert (await hub.get(run_id)).last_sequence == events
                started = time.perf_counter()
                stored = await hub.events(run_id, 0, 100_000)
                read_ms = (time.perf_counter() - started) * 1000
                assert len(stored) == events
                url = f"http://127.0.0.1:{app.health.port}/api/agent/runs/{run_id}/events"
                started = time.perf_counter()
                frames = 0
                async with aiohttp.ClientSession() as s, s.get(url) as resp:
                    async for line in resp.content:
                        frames += line.startswith(b"id: ")
                sse_ms = (time.perf_counter() - started) * 1000
                assert frames == events
                tg.cancel_scope.cancel()
    return {"read_ms": read_ms, "sse_ms": sse_ms}


async def main(turns: int) -> None:
    configure_logging("warning", "json")
    t = await measure_turns(turns)
    r = await measure_replay(1000)
    print(f"turns per mode: {turns} (scripted provider, one tool round + an answer per turn)")
    print(f"turn latency, recording on : median {t['median_on']:.2f} ms, mean {t['mean_on']:.2f} ms")
    print(f"turn latency, recording off: median {t['median_off']:.2f} ms, mean {t['mean_off']:.2f} ms")
    print(f"recording overhead per turn: median {t['median_on'] - t['median_off']:+.2f} ms, "
          f"mean {t['mean_on'] - t['mean_off']:+.2f} ms (target < 2 ms)")
    print(f"replay of a 1,000-event run: {r['read_ms']:.1f} ms from SQLite, {r['sse_ms']:.1f} ms as SSE over HTTP")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    anyio.run(main, parser.parse_args().turns)
