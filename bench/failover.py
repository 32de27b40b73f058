#!/usr/bin/env python3
"""Latency the router adds: a healthy cloud turn through it, and failover to the local engine.

The cloud is HomeAgent's fault-injecting fake upstream (`homeagent.llm.fake_upstream`) on a
loopback port, in this process; the local engine is the echo provider (so the figures
are the router's own cost, not a model's), or the real llama.cpp engine with
`--local llama`. Every figure is a median over --runs requests. Definitions:

    TTFT       request handed to the provider -> first non-empty text delta
    healthy    direct OpenAI-compatible provider vs the same through the Router
               (PII scrubbing on, metering in memory): added = router - direct
    failover   the cloud is dead, first turn after it died -> first local token, minus
               the local engine's own TTFT; one figure per way of dying:
                 refused    nothing listens on the port (instant connection refusal)
                 http 503   the upstream answers 503
                 hang       the upstream accepts and never answers (read_timeout)
               each with the shipped retry policy (3 retries, 0.5 s backoff doubling)
               and with max_retries 0
    cooling    a later turn while the dead cloud cools down (the router skips it)

Nothing here asserts a time; it only reports.

    .venv/bin/python bench/failover.py                 # echo as the local engine, 20 runs
    .venv/bin/python bench/failover.py --local llama --runs 5 --json
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from homeagent.clock import SystemClock  # noqa: E402
from homeagent.llm.base import ChatRequest, Message, Provider, TextDelta  # noqa: E402
from homeagent.llm.credentials import Secret  # noqa: E402
from homeagent.llm.echo import EchoProvider  # noqa: E402
from homeagent.llm.failures import Backoff  # noqa: E402
from homeagent.llm.fake_upstream import FakeUpstream, Fault  # noqa: E402
from homeagent.llm.http import HttpOptions  # noqa: E402
from homeagent.llm.openai_compat import OpenAICompatProvider  # noqa: E402
from homeagent.llm.privacy import Scrubber  # noqa: E402
from homeagent.llm.router import Route, Router  # noqa: E402
from homeagent.log import configure_logging  # noqa: E402

ANSWER = "The weather in Shanghai is sunny today, 23 degrees, light wind from the east. " * 2
PROMPT = "What is the weather like? My number is 13812345678."


def request() -> ChatRequest:
    return ChatRequest(messages=(Message("system", "You are HomeAgent, a home assistant. " * 40),
                                 Message("user", PROMPT)), max_tokens=32, temperature=0.0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def ttft(provider: Provider) -> tuple[float, float]:
    """(time to the first text delta, time to the end) in ms."""
    start = time.perf_counter()
    first = None
    async for event in provider.stream(request()):
        if first is None and isinstance(event, TextDelta) and event.text.strip():
            first = time.perf_counter()
    end = time.perf_counter()
    return ((first or end) - start) * 1000, (end - start) * 1000


def cloud(base_url: str, retries: int, read_timeout: float = 2.0) -> OpenAICompatProvider:
    return OpenAICompatProvider(
        name="cloud", base_url=base_url, model="fake", api_key=Secret("sk-bench-key-0000"),
        options=HttpOptions(connect_timeout=2.0, read_timeout=read_timeout, max_retries=retries,
                            backoff=Backoff(base=0.5)),
    )


def local_engine(kind: str) -> Provider:
    if kind == "echo":
        return EchoProvider()
    from homeagent.llm.llama_cpp import LlamaCppProvider
    from homeagent.llm.models import resolve_model_path

    return LlamaCppProvider(model_path=resolve_model_path(""), model="smollm2", n_ctx=2048, max_tokens=32,
                            temperature=0.0, seed=1)


async def median(runs: int, fn: Callable) -> tuple[float, float]:
    samples = [await fn() for _ in range(runs)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


async def bench(runs: int, local_kind: str) -> dict:
    results: dict = {"runs": runs, "local": local_kind}
    local = local_engine(local_kind)
    await local.start()
    async with FakeUpstream(default=Fault(text=ANSWER, piece=6)) as up:
        direct = cloud(up.base_url, 3)
        router = Router([Route("cloud", cloud(up.base_url, 3), cloud=True), Route("local", local, type="llama_cpp")],
                        scrubber=Scrubber(["王小明"]), notices="off")
        await ttft(direct)  # warm the connection pools, as a running daemon has
        await ttft(router)
        # Interleaved, in alternating order, so drift and whatever the upstream still does
        # for the previous request hit both paths alike.
        pairs = []
        for i in range(runs):
            if i % 2:
                r = await ttft(router)
                pairs.append((await ttft(direct), r))
            else:
                pairs.append((await ttft(direct), await ttft(router)))
        d_first, d_total = (statistics.median(p[0][i] for p in pairs) for i in (0, 1))
        r_first, r_total = (statistics.median(p[1][i] for p in pairs) for i in (0, 1))
        await router.routes[0].provider.aclose()
        results["healthy"] = {
            "direct_ttft_ms": round(d_first, 2), "router_ttft_ms": round(r_first, 2),
            "added_ttft_ms": round(r_first - d_first, 2),
            "direct_total_ms": round(d_total, 2), "router_total_ms": round(r_total, 2),
            "added_total_ms": round(r_total - d_total, 2),
        }
        await direct.aclose()

        local_first, _ = await median(runs, lambda: ttft(local))
        results["local_ttft_ms"] = round(local_first, 2)
        hang = FakeUpstream(default=Fault("hang"))
        dead503 = FakeUpstream(default=Fault("status", status=503))
        async with hang, dead503:
            ways = {
                "refused": f"http://127.0.0.1:{free_port()}/v1",
                "http 503": dead503.base_url,
                "hang": hang.base_url,
            }
            failover: dict = {}
            for way, url in ways.items():
                for retries in (3, 0):
                    async def first_turn_after_death(url: str = url, retries: int = retries) -> tuple[float, float]:
                        dead = cloud(url, retries)
                        r = Router([Route("cloud", dead, cloud=True),
                                    Route("local", local, type="llama_cpp")], clock=SystemClock(), notices="off")
                        try:
                            return await ttft(r)
                        finally:
                            await dead.aclose()

                    n = min(10, max(1, runs // 5)) if (retries or way == "hang") else runs
                    first, _ = await median(n, first_turn_after_death)
                    failover[f"{way}, max_retries={retries}"] = {
                        "ttft_ms": round(first, 1), "added_ms": round(first - local_first, 1), "runs": n}
            dead = cloud(ways["refused"], 0)
            r = Router([Route("cloud", dead, cloud=True), Route("local", local, type="llama_cpp")], notices="off")
            await ttft(r)  # the cloud fails once and cools down
            cool_first, _ = await median(runs, lambda: ttft(r))
            await dead.aclose()
            failover["cooling (later turns)"] = {"ttft_ms": round(cool_first, 2),
                                                 "added_ms": round(cool_first - local_first, 2), "runs": runs}
            results["failover"] = failover
    await local.aclose()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--local", choices=("echo", "llama"), default="echo")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    configure_logging("error")  # the failures are the point here; their log lines are not
    results = anyio.run(bench, args.runs, args.local)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    h = results["healthy"]
    print(f"healthy cloud turn ({args.runs} runs, medians; local engine: {args.local})")
    print(f"  TTFT   direct {h['direct_ttft_ms']:8.2f} ms   via router {h['router_ttft_ms']:8.2f} ms"
          f"   added {h['added_ttft_ms']:+.2f} ms")
    print(f"  total  direct {h['direct_total_ms']:8.2f} ms   via router {h['router_total_ms']:8.2f} ms"
          f"   added {h['added_total_ms']:+.2f} ms")
    print(f"failover: cloud dead -> first local token (local engine alone: {results['local_ttft_ms']:.2f} ms)")
    for way, f in results["failover"].items():
        print(f"  {way:<32} TTFT {f['ttft_ms']:9.1f} ms   added {f['added_ms']:+9.1f} ms   ({f['runs']} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
