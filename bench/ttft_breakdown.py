"""Where HomeAgent's time before the engine goes: the request -> first-token path, in parts.

Used by `bench/ttft.py --breakdown`. A real App on the daemon's config (every tool, memory,
knowledge, the action dialect) with a capturing provider in place of the engine, so each
figure is HomeAgent's own work:

    whole path       ask() -> the engine's stream() is called (everything below, and
                     SQLite writes, run recording and scheduling, together)
    context: NAME    each prompt section source alone (profiles, memory graph, memory
                     documents, knowledge), as the agent calls them (concurrently there)
    action ranking   the dialect's selector ranking the tools for the message
    tokenise         the whole rendered prompt through the bundled model's tokenizer
    tokenise (prepared head reused)
                     what the engine does: the head its idle preparation already
                     tokenised is reused, only the rest is tokenised
    rest             whole path - context (slowest source) - ranking: prompt assembly,
                     SQLite, run recording, task hand-offs

Medians over `runs` turns of each message (a small-talk and an action request), each
turn on the same App (so the history grows as in a conversation).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

MESSAGES = {
    "small talk": "Tell me a short story about a cat.",
    "action": "Remind me to buy milk tomorrow at 9.",  # the intent layer answers it: no engine call
    "action to the model": "Could you sort out something about the milk for me?",  # the layer abstains
}


def _find_selector(provider):
    seen = set()
    todo = [provider]
    while todo:
        p = todo.pop()
        if id(p) in seen:
            continue
        seen.add(id(p))
        if hasattr(p, "selector") and hasattr(p.selector, "rank"):
            return p.selector
        for name in ("inner", "_inner", "provider"):
            if getattr(p, name, None) is not None:
                todo.append(getattr(p, name))
        for route in getattr(p, "routes", None) or getattr(p, "_routes", None) or []:
            todo.append(getattr(route, "provider", route))
    return None


def breakdown(config_file: Path, model_path: Path, n_ctx: int, runs: int = 5) -> dict[str, dict[str, float]]:
    import anyio

    from homeagent.app import App
    from homeagent.config import load_config
    from homeagent.io import ask
    from homeagent.llm.llama_cpp import LlamaCppProvider
    from homeagent.llm.testing import FunctionProvider

    called: list[float] = []

    def reply(request) -> str:
        called.append(time.perf_counter())
        return "OK."

    capture = FunctionProvider(reply, supports_tools=False)
    engine = LlamaCppProvider(model_path=model_path, model="bench", n_ctx=n_ctx, n_threads=1)
    engine._load()  # the tokenizer and chat template only

    async def measure() -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, list[float]]] = {}
        with tempfile.TemporaryDirectory() as tmp:
            config = load_config(config_file, env={**os.environ, "HOMEAGENT_DATA_DIR": tmp})
            async with App(config, provider=capture) as app, anyio.create_task_group() as tg:
                tg.start_soon(app.agent.run, app.inbox)
                selector = _find_selector(app.provider)
                tools = app.tools.definitions()
                for label, text in MESSAGES.items():
                    parts: dict[str, list[float]] = out.setdefault(label, {})
                    for _ in range(runs):
                        for source in app.agent.context_sources:
                            t0 = time.perf_counter()
                            await source(text, "")
                            name = getattr(source, "__name__", "?").lstrip("_")
                            parts.setdefault(f"context: {name}", []).append((time.perf_counter() - t0) * 1000)
                        if selector is not None:
                            t0 = time.perf_counter()
                            await anyio.to_thread.run_sync(selector.rank, text, tools)
                            parts.setdefault("action ranking", []).append((time.perf_counter() - t0) * 1000)
                        before = len(called)
                        t0 = time.perf_counter()
                        interrupt = await ask(app.inbox, text, channel="bench")
                        async for _ in interrupt.reply.events:
                            pass
                        done = time.perf_counter()
                        if app.intent is not None and app.intent.last_route is not None:
                            parts.setdefault("intent layer (classify + fill)", []).append(
                                app.intent.last_route.duration_ms)
                        if len(called) == before:  # the intent layer answered: no engine call
                            parts.setdefault("answered without the engine (request -> done)", []).append(
                                (done - t0) * 1000)
                            await anyio.sleep(0.2)
                            continue
                        parts.setdefault("whole path", []).append((called[-1] - t0) * 1000)
                        prompt, _ = engine.render(capture.requests[-1].messages)
                        t0 = time.perf_counter()
                        n = len(engine._tokenize(prompt))
                        parts.setdefault("tokenise", []).append((time.perf_counter() - t0) * 1000)
                        # As the engine does it: the prepared text (the prompt up to this
                        # turn's own message) was tokenised while idle; the turn tokenises the rest.
                        engine._tokens_for(prompt[: prompt.rfind("<|im_start|>user")])
                        t0 = time.perf_counter()
                        engine._tokens_for(prompt)
                        parts.setdefault("tokenise (prepared head reused)", []).append(
                            (time.perf_counter() - t0) * 1000)
                        parts.setdefault("prompt tokens", []).append(float(n))
                        await anyio.sleep(0.2)  # let the idle preparation and after-turn work run
                tg.cancel_scope.cancel()
        result: dict[str, dict[str, float]] = {}
        for label, parts in out.items():
            med = {k: statistics.median(v) for k, v in parts.items()}
            context = max((v for k, v in med.items() if k.startswith("context: ")), default=0.0)
            if "whole path" in med:
                med["rest"] = (med["whole path"] - context - med.get("action ranking", 0.0)
                               - med.get("intent layer (classify + fill)", 0.0))
            result[label] = med
        return result

    try:
        return anyio.run(measure)
    finally:
        engine._llm.close()


def print_breakdown(result: dict[str, dict[str, float]], runs: int) -> None:
    labels = list(result)
    keys = list(dict.fromkeys(k for parts in result.values() for k in parts
                              if k not in ("whole path", "rest", "prompt tokens")))
    print(f"\nrequest -> engine, HomeAgent's own work (ms, median of {runs} turns; capturing provider)")
    print(f"{'part':<46}" + "".join(f"{label:>18}" for label in labels))
    for key in ["whole path", *keys, "rest"]:
        print(f"{key:<46}" + "".join(f"{result[label].get(key, float('nan')):>18.2f}" for label in labels))
    print(f"{'prompt tokens':<46}" + "".join(f"{result[label].get('prompt tokens', float('nan')):>18.0f}"
                                             for label in labels))
    print("(context sources run concurrently in a turn; 'rest' subtracts the slowest one)")
