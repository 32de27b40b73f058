"""Home Assistant as the client: its tools, its prompt, HomeAgent's bundled local engine.

Each line of bench/data/ha_eval.jsonl is `{"id", "lang", "kind", "text", "tool", "args"}`
(or `args_any`, a list of acceptable argument sets): an utterance as a user says it to
Home Assistant, the intent tool it should call (`null` for small talk) and the argument
values it must carry. A real HomeAgent daemon (the default config: the bundled SmolLM2
on llama.cpp) serves on a free port; every utterance goes to `POST /ollama/api/chat`
through the official `ollama` client exactly as Home Assistant's Ollama integration
sends it: Home Assistant's system prompt with a device overview, its tool list
(bench/data/ha_tools_*.json, the `ollama` form), `keep_alive: "-1.0s"`,
`options.num_ctx: 8192.0`, streaming. A reply that calls a tool gets Home Assistant's
kind of result back (the same turn resumes and answers).

Printed per kind and language: right tool, right arguments, state-changing calls on
questions and small talk (must be zero), and the median latency until Home Assistant
has the call (or the answer), and until the whole turn is answered.

    .venv/bin/python bench/ha_eval.py                  # every utterance
    .venv/bin/python bench/ha_eval.py --limit 10 --tools bench/data/ha_tools_written.json
    .venv/bin/python bench/ha_eval.py --selector-only     # no model: what is offered, seconds
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402
import ollama  # noqa: E402

from homeagent.app import App  # noqa: E402
from homeagent.config import load_config  # noqa: E402

# The house: Home Assistant 2025.4's prompt shape, names, domains and areas, no states.
SYSTEM_PROMPT = """You are a voice assistant for Home Assistant.
Answer questions about the world truthfully.
Answer in plain text. Keep it simple and to the point.
When controlling Home Assistant always call the intent tools. Use HassTurnOn to lock and HassTurnOff to unlock a lock. When controlling a device, prefer passing just name and domain. When controlling an area, prefer passing just area name and domain.
When a user asks to turn on all devices of a specific type, ask user to specify an area, unless there is only one device of that type.
This device is not able to start timers.
You ARE equipped to answer questions about the current state of
the home using the `GetLiveContext` tool. This is a primary function. Do not state you lack the
functionality if the question requires live data.
If the user asks about device existence/type (e.g., "Do I have lights in the bedroom?"): Answer
from the static context below.
If the user asks about the CURRENT state, value, or mode (e.g., "Is the lock locked?",
"Is the fan on?", "What mode is the thermostat in?", "What is the temperature outside?"):
    1.  Recognize this requires live data.
    2.  You MUST call `GetLiveContext`. This tool will provide the needed real-time information (like temperature from the local weather, lock status, etc.).
    3.  Use the tool's response** to answer the user accurately (e.g., "The temperature outside is [value from tool].").
For general knowledge questions not about the home: Answer truthfully from internal knowledge.

Static Context: An overview of the areas and the devices in this smart home:
- names: Kitchen Light
  domain: light
  areas: Kitchen
- names: Living Room Lamp
  domain: light
  areas: Living Room
- names: Bedroom Light
  domain: light
  areas: Bedroom
- names: Ceiling Fan
  domain: fan
  areas: Living Room
- names: Thermostat
  domain: climate
  areas: Living Room
- names: Living Room Blinds
  domain: cover
  areas: Living Room
- names: Garage Door
  domain: cover
  areas: Garage
- names: Front Door
  domain: lock
  areas: Entrance
- names: TV
  domain: media_player
  areas: Living Room
- names: Kitchen Speaker
  domain: media_player
  areas: Kitchen
- names: Coffee Machine
  domain: switch
  areas: Kitchen
- names: Living Room Temperature
  domain: sensor
  areas: Living Room
- names: Shopping List
  domain: todo
Current time is 10:00:00. Today's date is 2026-03-04.
"""

LIVE_CONTEXT = """Live Context: An overview of the areas and the devices in this smart home:
- names: Kitchen Light
  domain: light
  state: 'on'
  areas: Kitchen
- names: Front Door
  domain: lock
  state: locked
  areas: Entrance
- names: Living Room Temperature
  domain: sensor
  state: '21.5'
  attributes:
    unit_of_measurement: °C
  areas: Living Room
"""

STATE_READING = frozenset({"GetLiveContext"})


def _norm(value: Any) -> str:
    return re.sub(r"[\s\W_]+", "", str(value)).casefold()


def _same(expected: Any, got: Any) -> bool:
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        try:
            return abs(float(got) - float(expected)) < 1e-6
        except (TypeError, ValueError):
            return False
    if isinstance(got, list):
        return any(_same(expected, g) for g in got)
    return _norm(expected) == _norm(got)


def args_ok(row: dict[str, Any], args: dict[str, Any]) -> bool:
    options = row.get("args_any") or [row.get("args") or {}]
    return any(all(k in args and _same(v, args[k]) for k, v in option.items()) for option in options)


def ha_result(name: str, args: dict[str, Any]) -> str:
    """What Home Assistant posts back as the tool message's content."""
    if name == "GetLiveContext":
        return json.dumps({"success": True, "result": LIVE_CONTEXT})
    target = args.get("name") or args.get("area") or "device"
    return json.dumps({
        "speech": {}, "response_type": "action_done", "speech_slots": {},
        "data": {"targets": [], "success": [{"name": target, "type": "entity", "id": "x"}], "failed": []},
    }, ensure_ascii=False)


async def one(client: ollama.AsyncClient, row: dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": row["text"]},
    ]
    kwargs: dict[str, Any] = {"keep_alive": "-1.0s", "options": {"num_ctx": 8192.0}}
    started = time.monotonic()
    text, calls = "", []
    async for chunk in await client.chat(model="homeagent:latest", messages=messages, tools=tools, stream=True, **kwargs):
        text += chunk.message.content or ""
        calls += [(c.function.name, dict(c.function.arguments)) for c in chunk.message.tool_calls or []]
    first = time.monotonic() - started
    answer = text
    if calls:
        messages.append({"role": "assistant", "tool_calls": [
            {"function": {"name": n, "arguments": a}} for n, a in calls]})
        messages += [{"role": "tool", "content": ha_result(n, a)} for n, a in calls]
        answer = ""
        async for chunk in await client.chat(model="homeagent:latest", messages=messages, tools=tools, stream=True, **kwargs):
            answer += chunk.message.content or ""
    return {"calls": calls, "text": text, "answer": answer, "first_s": first, "total_s": time.monotonic() - started}


def score(row: dict[str, Any], out: dict[str, Any]) -> dict[str, bool]:
    names = [n for n, _ in out["calls"]]
    changing = [n for n in names if n not in STATE_READING]
    if row["kind"] == "action":
        hit = [a for n, a in out["calls"] if n == row["tool"]]
        return {"tool": bool(hit), "args": any(args_ok(row, a) for a in hit), "changed": bool(changing)}
    if row["kind"] == "question":
        return {"tool": names == ["GetLiveContext"], "args": True, "changed": bool(changing)}
    return {"tool": not names, "args": True, "changed": bool(changing)}


def report(rows: list[dict[str, Any]], outs: list[dict[str, Any]], scores: list[dict[str, bool]]) -> None:
    def pct(xs: list[bool]) -> str:
        return f"{100 * sum(xs) / len(xs):5.1f}% ({sum(xs)}/{len(xs)})" if xs else "   -"

    print(f"{'group':<14} {'n':>3}  {'right tool':<16} {'right args':<16} {'state changed':<16} median s (call / turn)")
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(f"{row['kind']}/{row['lang']}", []).append(i)
        groups.setdefault(row["kind"], []).append(i)
        groups.setdefault("all", []).append(i)
    for group in sorted(groups, key=lambda g: (g == "all", "/" not in g, g)):
        idx = groups[group]
        first = statistics.median(outs[i]["first_s"] for i in idx)
        total = statistics.median(outs[i]["total_s"] for i in idx)
        print(f"{group:<14} {len(idx):>3}  {pct([scores[i]['tool'] for i in idx]):<16} "
              f"{pct([scores[i]['args'] for i in idx]):<16} {pct([scores[i]['changed'] for i in idx]):<16} "
              f"{first:.2f} / {total:.2f}")
    asked = [i for i, r in enumerate(rows) if r["kind"] != "action"]
    print(f"state-changing calls on questions and small talk: {sum(scores[i]['changed'] for i in asked)}")


def selector_only(rows: list[dict[str, Any]], tools: list[dict[str, Any]], verbose: bool = False) -> int:
    """Without the model: what the local engine is offered. The intent the selector ranks
    first (none for small talk) beside HomeAgent's own 76 tools, and whether a question
    is offered any intent that changes state. Seconds, not minutes."""
    from homeagent.actions import action_specs
    from homeagent.api.client_tools import parse_client_tools
    from homeagent.io.ha_intents import enrich
    from homeagent.llm.dialect.select import ActionSelector
    from homeagent.tools.builtin import builtin_tools

    own = tuple(s.to_def() for s in (*builtin_tools(), *action_specs(db=None, clock=None)))
    client = parse_client_tools(tools, {d.name for d in own})
    selector = ActionSelector()
    hits: dict[str, list[bool]] = {}
    offered_changing = 0
    started = time.monotonic()
    for row in rows:
        defs = enrich(client, row["text"], SYSTEM_PROMPT)
        ranking = selector.rank(row["text"], own + defs)
        top = None if ranking.chat else ranking.scored[0][0].name
        expected = row["tool"] if row["kind"] == "action" else ("GetLiveContext" if row["kind"] == "question" else None)
        ok = top == expected or (row["kind"] == "chat" and top not in {d.name for d in defs})
        if row["kind"] == "question":
            offered_changing += sum(d.name not in STATE_READING for d in defs if d.name.startswith("Hass"))
        elif row["kind"] == "chat" and top is not None and top.startswith("Hass"):
            offered_changing += 1
        if not ok and verbose:
            print(f"BAD {row['id']} {row['text']!r}: first choice {top}, expected {expected}")
        for group in (f"{row['kind']}/{row['lang']}", row["kind"], "all"):
            hits.setdefault(group, []).append(ok)
    for group, xs in sorted(hits.items(), key=lambda g: (g[0] == "all", "/" not in g[0], g[0])):
        print(f"{group:<14} {len(xs):>3}  selector's first choice right {100 * sum(xs) / len(xs):5.1f}% ({sum(xs)}/{len(xs)})")
    print(f"state-changing intents offered on questions (any) and small talk (first choice): {offered_changing}")
    print(f"{len(rows)} utterances in {time.monotonic() - started:.1f} s")
    return 0


async def main_async(args: argparse.Namespace) -> int:
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.lang:
        rows = [r for r in rows if r["lang"] == args.lang]
    rows = rows[:: args.stride][: args.limit or None]
    tools = json.loads(args.tools.read_text(encoding="utf-8"))[args.form]
    if args.selector_only:
        return selector_only(rows, tools, args.verbose)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "HOMEAGENT_DATA_DIR": tmp}
        env.pop("HOMEAGENT_API_TOKEN", None)
        config = load_config(ROOT / "config/homeagent.yaml", env=env)
        config = dataclasses.replace(
            config,
            daemon=dataclasses.replace(config.daemon, listen_addr="127.0.0.1:0"),
            # A figure, not a cut-off: on a busy box one local turn can take minutes.
            agent=dataclasses.replace(config.agent, turn_timeout=args.turn_timeout),
            api=dataclasses.replace(config.api, client_tool_timeout=args.turn_timeout),
        )
        async with App(config) as app, anyio.create_task_group() as tg:
            ready = anyio.Event()
            tg.start_soon(lambda: app.run(on_ready=ready.set))
            await ready.wait()
            print(f"provider {app.provider.name} model {app.provider.model}; {len(rows)} utterances; tools {args.tools.name} ({args.form})")
            client = ollama.AsyncClient(host=f"http://127.0.0.1:{app.health.port}/ollama", timeout=300)
            await one(client, {"text": "hello", "kind": "chat"}, tools)  # the engine warms up
            outs, scores = [], []
            for row in rows:
                out = await one(client, row, tools)
                s = score(row, out)
                outs.append(out)
                scores.append(s)
                if args.verbose:
                    mark = "ok " if s["tool"] and s["args"] and not (row["kind"] != "action" and s["changed"]) else "BAD"
                    print(f"{mark} {row['id']} {row['text']!r} → {out['calls'] or out['text'][:60]!r} ({out['first_s']:.2f}s)")
            report(rows, outs, scores)
            tg.cancel_scope.cancel()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT / "bench/data/ha_eval.jsonl")
    default_tools = ROOT / "bench/data/ha_tools_captured.json"
    parser.add_argument("--tools", type=Path, default=default_tools if default_tools.exists() else ROOT / "bench/data/ha_tools_written.json")
    parser.add_argument("--form", choices=["ollama", "openai"], default="ollama", help="the tool list as that route receives it")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--stride", type=int, default=1)
    parser.add_argument("--lang", choices=["zh", "en"])
    parser.add_argument("--turn-timeout", type=float, default=900.0, help="seconds a turn may take")
    parser.add_argument("--selector-only", action="store_true", help="no model: the intent the local engine is offered")
    parser.add_argument("-v", "--verbose", action="store_true")
    return anyio.run(main_async, parser.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())
