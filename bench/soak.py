#!/usr/bin/env python3
"""Years of uptime in minutes: many sequential turns on the echo provider, watched.

One App (the real composition root: database, memory tiers, knowledge, run recorder)
on a temp data dir, the echo provider as the model, so every figure is HomeAgent's own
cost. N sequential turns with varied Chinese and English text go through the agent's
inbox; per window of turns it prints p50/p95 turn latency, RSS and open files, then
compares the first and last windows. Nothing is asserted.

    .venv/bin/python bench/soak.py                   # 10,000 turns, windows of 1,000
    .venv/bin/python bench/soak.py --turns 2000 --window 200 --json
    .venv/bin/python bench/soak.py --turns 2000 --profile   # where the last window spends time

After the turns, a fresh process opens an App on the soaked data dir and another on an
empty one and reports their RSS: what the soaked data holds in memory at any start (the
documents' in-memory lexical index grows with the documents), so a growth of the soak's
RSS beyond that difference would be a leak.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from homeagent.app import App  # noqa: E402
from homeagent.config import load_config  # noqa: E402
from homeagent.io import ask  # noqa: E402
from homeagent.llm.echo import EchoProvider  # noqa: E402
from homeagent.log import configure_logging  # noqa: E402

SAYINGS = (
    "明天早上八点提醒我给妈妈打电话", "What should I cook tonight with tomatoes and eggs?",
    "我今天跑了五公里，感觉不错", "The kitchen light flickers again", "周末我们去公园野餐吧",
    "Remind me where I put the spare keys", "孩子的数学作业有点难", "How is the weather looking for Saturday?",
)


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def parts(app: App, text: str) -> dict[str, float]:
    """What each per-turn piece costs now (median of 5): the prompt's context sources,
    the history, the recent conversation. A piece that grows with age shows here."""
    pieces = {getattr(src, "__name__", f"source{i}"): (lambda s=src: s(text, ""))
              for i, src in enumerate(app.agent.context_sources)}
    pieces["history"] = lambda: app.memory.history("")
    pieces["recent"] = lambda: app.conversation.recent(6)
    out: dict[str, float] = {}
    for name, call in pieces.items():
        spent = []
        for _ in range(5):
            started = time.perf_counter()
            await call()
            spent.append((time.perf_counter() - started) * 1000)
        out[name] = round(statistics.median(spent), 2)
    return out


async def soak(turns: int, window: int, profile: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="soak-") as raw:
        tmp = Path(raw)
        import shutil

        shutil.copytree(ROOT / "knowledge", tmp / "knowledge")
        config_path = tmp / "homeagent.yaml"
        config_path.write_text(json.dumps({
            "daemon": {"data_dir": str(tmp / "data"), "heartbeat_interval": 0, "check_interval": 0},
            "agent": {"personality_file": str(ROOT / "personal.md")},
            "knowledge": {"dir": str(tmp / "knowledge"), "watch": False},
            "llm": {"provider": "echo"},
        }), encoding="utf-8")
        config = load_config(config_path, env={})
        windows: list[dict] = []
        profiler = None
        async with App(config, provider=EchoProvider()) as app, anyio.create_task_group() as tg:
            tg.start_soon(app.runs.run_writer)
            tg.start_soon(app.agent.run, app.inbox)
            times: list[float] = []
            for i in range(turns):
                if profile and i == turns - window:
                    import cProfile

                    profiler = cProfile.Profile()
                    profiler.enable()
                text = f"{SAYINGS[i % len(SAYINGS)]} #{i}"
                started = time.perf_counter()
                interrupt = await ask(app.inbox, text, channel="soak", device_id="bench")
                async for _ in interrupt.reply.events:
                    pass
                times.append((time.perf_counter() - started) * 1000)
                if len(times) == window:
                    windows.append({"turns": i + 1, "p50_ms": round(statistics.median(times), 2),
                                    "p95_ms": round(pct(times, 0.95), 2), "rss_mb": round(rss_mb(), 1),
                                    "open_files": open_files(), "parts_ms": await parts(app, text)})
                    print(json.dumps(windows[-1]), file=sys.stderr, flush=True)
                    times = []
            if profiler is not None:
                import pstats

                profiler.disable()
                pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
            tg.cancel_scope.cancel()
        empty = tmp / "empty.yaml"
        empty.write_text(config_path.read_text(encoding="utf-8").replace(str(tmp / "data"), str(tmp / "empty")),
                         encoding="utf-8")
        reopened = {name: _reopen(path) for name, path in (("soaked", config_path), ("empty", empty))}
    first, last = windows[0], windows[-1]
    return {
        "turns": turns, "window": window, "windows": windows,
        "first": first, "last": last,
        "p50_change_pct": round(100 * (last["p50_ms"] - first["p50_ms"]) / first["p50_ms"], 1),
        "p95_change_pct": round(100 * (last["p95_ms"] - first["p95_ms"]) / first["p95_ms"], 1),
        "rss_change_mb": round(last["rss_mb"] - first["rss_mb"], 1),
        "open_files_change": last["open_files"] - first["open_files"],
        "fresh_start_rss_mb": reopened,
        "held_by_the_data_mb": round(reopened["soaked"] - reopened["empty"], 1),
    }


def _reopen(config_path: Path) -> float:
    """RSS of a new process right after it opened an App on `config_path`."""
    import subprocess

    out = subprocess.run([sys.executable, __file__, "--reopen", str(config_path)], check=True,
                         capture_output=True, text=True).stdout
    return float(json.loads(out.strip().splitlines()[-1])["rss_mb"])


async def reopen(config_path: Path) -> None:
    async with App(load_config(config_path, env={}), provider=EchoProvider()):
        print(json.dumps({"rss_mb": round(rss_mb(), 1)}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--window", type=int, default=1000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--reopen", type=Path, help=argparse.SUPPRESS)  # the fresh-start RSS probe
    args = parser.parse_args()
    configure_logging("error", "json")
    if args.reopen:
        anyio.run(reopen, args.reopen)
        return 0
    result = anyio.run(soak, args.turns, min(args.window, args.turns), args.profile)
    if args.json:
        print(json.dumps(result))
    else:
        result.pop("windows")
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
