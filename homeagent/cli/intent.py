"""`homeagent intent examples|retrain|explain`: the intent layer, for people asking why.

- `intent explain "…"` routes one utterance as the daemon would and prints why: the
  classifier's ranked actions with their probabilities, the calibrated thresholds (to change records, to read), whether
  it reads as a question, the path (intent or model), the arguments filled, the reason.
- `intent examples [--action NAME]` prints the training set: how many examples each
  action has (generated from its registered examples and templates, plus what the
  household taught), or one action's examples.
- `intent retrain` trains from scratch and prints the figures (examples, held-out
  accuracy, threshold, seconds).

With `--config`, the household's learned examples come from its database. Nothing is
executed; `explain` runs no action.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from homeagent.clock import SystemClock
from homeagent.intent import IntentLayer
from homeagent.intent.training import Example, generate


def _layer(args: argparse.Namespace) -> tuple[IntentLayer, list[Example]]:
    from homeagent.cli.tools import catalog
    from homeagent.log import configure_logging

    configure_logging("warning")  # stdout is the command's answer; logs go to stderr

    learned: list[Example] = []
    personality = ""
    if getattr(args, "config", None):
        from homeagent.config import load_config

        config = load_config(args.config)
        learned = asyncio.run(_learned(config))
        try:
            personality = open(config.agent.personality_file, encoding="utf-8").read()  # noqa: SIM115
        except OSError:
            personality = ""
    layer = IntentLayer(catalog(), clock=SystemClock(), personality=personality)
    return layer, learned


async def _learned(config: Any) -> list[Example]:
    from homeagent.schema import all_migrations
    from homeagent.store import Database

    path = config.data_dir / "homeagent.db"
    if not path.exists():
        return []
    async with Database(path, all_migrations()) as db:
        return await IntentLayer(_empty(), clock=SystemClock(), db=db).learned_examples()


def _empty() -> Any:
    from homeagent.tools.registry import ToolRegistry

    return ToolRegistry()


def cmd_explain(args: argparse.Namespace) -> int:
    layer, learned = _layer(args)
    layer.train_sync(learned)
    text = " ".join(args.text)
    route = asyncio.run(layer.route(text, tools=layer.registry.definitions()))
    out: dict[str, Any] = {
        "text": text,
        "path": route.path,
        "action": route.label,
        "confidence": round(route.confidence, 4),
        "threshold": round(layer.threshold, 4),
        "read_threshold": round(layer.read_threshold, 4),
        "question": route.question,
        "reason": route.reason,
        "calls": [{"name": c.name, "arguments": json.loads(c.arguments)} for c in route.calls],
        "answer": route.answer,
        "ranked": [[n, round(p, 4)] for n, p in layer.predict(text).ranked[: args.top]],
        "offered_to_model": [t.name for t in route.tools][: args.top] if route.path == "model" else [],
        "learned": ({"text": route.learned.text, "action": route.learned.action, "example": route.learned.group}
                    if route.learned is not None else None),
    }
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=1))
        return 0
    print(f"{text!r}")
    print(f"  path: {out['path']} ({out['reason']}); question: {out['question']}")
    print(f"  action: {out['action']} at {out['confidence']:.3f} (threshold {out['threshold']:.3f} to change records, "
          f"{out['read_threshold']:.3f} to read)")
    for call in out["calls"]:
        print(f"  call: {call['name']} {json.dumps(call['arguments'], ensure_ascii=False)}")
    if route.answer:
        print(f"  answer: {route.answer}")
    if route.learned is not None:
        print(f"  learned from the household ({route.learned.group}): {route.learned.text!r} → {route.learned.action}")
    print("  ranked:")
    for name, prob in out["ranked"]:
        print(f"    {prob:.3f}  {name}")
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    layer, learned = _layer(args)
    layer.train_sync(learned)
    examples = generate(layer.templates, extra=learned)
    if args.action:
        chosen = [e for e in examples if e.action == args.action]
        if not chosen:
            print(f"no examples for {args.action!r}; known: {', '.join(sorted(layer.templates))}")
            return 1
        for e in chosen:
            print(f"{e.text}\t{json.dumps(dict(e.args), ensure_ascii=False)}")
        return 0
    counts = Counter(e.action for e in examples)
    for name, n in sorted(counts.items()):
        print(f"  {n:5d}  {name}  ({len(layer.templates.get(name, []))} templates)")
    print(f"{len(examples)} examples, {len(counts)} classes, {len(learned)} learned from the household")
    return 0


def cmd_retrain(args: argparse.Namespace) -> int:
    layer, learned = _layer(args)
    started = time.perf_counter()
    layer.train_sync(learned, fresh=True)
    model = layer.model
    print(f"trained on {model.size} examples ({len(learned)} learned) in {time.perf_counter() - started:.1f} s; "
          f"held-out accuracy {model.heldout_accuracy:.3f}, temperature {model.temperature}, "
          f"thresholds {model.threshold:.3f} to change records, {model.read_threshold:.3f} to read")
    return 0


def register_cli(subparsers: Any) -> None:
    """Add `intent examples|retrain|explain` to the `homeagent` command line."""
    intent = subparsers.add_parser("intent", help="the intent layer: why an utterance goes where it goes")
    sub = intent.add_subparsers(dest="intent_command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", help="config file: include the household's learned examples")

    explain = sub.add_parser("explain", help="route one utterance and print why")
    explain.add_argument("text", nargs="+", help="the utterance")
    explain.add_argument("--top", type=int, default=5, help="how many ranked actions to print")
    explain.add_argument("--json", action="store_true", help="print JSON")
    common(explain)
    explain.set_defaults(func=cmd_explain)
    examples = sub.add_parser("examples", help="the training set: counts per action, or one action's examples")
    examples.add_argument("--action", help="print this action's examples")
    common(examples)
    examples.set_defaults(func=cmd_examples)
    retrain = sub.add_parser("retrain", help="train from scratch and print the figures")
    common(retrain)
    retrain.set_defaults(func=cmd_retrain)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="homeagent")
    register_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
