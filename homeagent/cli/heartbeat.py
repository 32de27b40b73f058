"""`homeagent memory heartbeat` and `homeagent memory undo-merge`.

    homeagent memory heartbeat [--json]            run one heartbeat now
    homeagent memory undo-merge [--id N] [--json]  undo a synonym merge (default: the last)
    homeagent memory undo-merge --list [--json]    the recent merges

`make_heartbeat_command(...)` returns the `heartbeat` command function that
`homeagent.cli.memory.register_cli(subparsers, heartbeat=...)` takes; `register_cli(memory)`
adds `undo-merge` to the `memory` group (pass the parser that register_cli returned, or
its subparsers action).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import anyio

from homeagent.clock import Clock, SystemClock
from homeagent.config import Config, load_config
from homeagent.llm.base import Provider
from homeagent.log import configure_logging
from homeagent.memory.documents import DocumentStore
from homeagent.memory.graph import GraphDB
from homeagent.memory.graph_merge import list_merges, undo_merge
from homeagent.memory.heartbeat import HeartbeatSettings, run_heartbeat
from homeagent.memory.indexer import ENTITY_NAMESPACE, GraphIndexer
from homeagent.memory.textlog import TextMemory
from homeagent.memory.vector import VectorIndex
from homeagent.store.db import Database

TEXT_LOG_FILE = "memory.jsonl"  # in the data dir


@dataclass
class MemoryParts:
    db: Database
    graph: GraphDB
    indexer: GraphIndexer
    documents: DocumentStore
    textlog: TextMemory
    clock: Clock


@asynccontextmanager
async def open_memory(config: Config, *, clock: Clock | None = None) -> AsyncIterator[MemoryParts]:
    """The memory tiers of the data dir, opened the way the daemon opens them."""
    from homeagent.cli.memory import all_migrations

    clock = clock or SystemClock()
    async with Database(config.data_dir / "homeagent.db", all_migrations()) as db:
        async with TextMemory(config.data_dir / TEXT_LOG_FILE, clock=clock) as textlog:
            graph = GraphDB(db, clock=clock)
            index = VectorIndex(db, ENTITY_NAMESPACE)
            await index.load()
            documents = DocumentStore(db, clock=clock)
            await documents.load()
            yield MemoryParts(db, graph, GraphIndexer(graph, index), documents, textlog, clock)


def make_heartbeat_command(
    *,
    provider_factory: Callable[[Config], Provider | None] | None = None,
    settings_factory: Callable[[Config], HeartbeatSettings] | None = None,
) -> Callable[[argparse.Namespace], int]:
    """The `memory heartbeat` command. `provider_factory` builds the distiller's model
    from the config (None or returning None: rule-based distillation)."""

    def command(args: argparse.Namespace) -> int:
        configure_logging("warning")
        config = load_config(args.config)

        async def main() -> int:
            provider = provider_factory(config) if provider_factory else None
            settings = settings_factory(config) if settings_factory else HeartbeatSettings()
            try:
                if provider is not None:
                    await provider.start()
                async with open_memory(config) as parts:
                    report = await run_heartbeat(
                        graph=parts.graph, indexer=parts.indexer, textlog=parts.textlog,
                        documents=parts.documents, provider=provider, clock=parts.clock,
                        settings=settings,
                    )  # fmt: skip
            finally:
                if provider is not None:
                    await provider.aclose()
            counts = {**report.counts(), "duration_ms": report.duration_ms}
            if getattr(args, "json", False):
                print(json.dumps(counts, ensure_ascii=False))
            else:
                for key, value in counts.items():
                    print(f"{key}: {value}")
            return 1 if report.errors else 0

        return int(anyio.run(main))

    return command


def _when(ts: float | None) -> str | None:
    return (
        None
        if ts is None
        else datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds")
    )


def cmd_undo_merge(args: argparse.Namespace) -> int:
    configure_logging("warning")
    config = load_config(args.config)

    async def main() -> int:
        async with open_memory(config) as parts:
            if args.list:
                merges = await list_merges(parts.graph, limit=args.limit)
                rows = [
                    asdict(m) | {"created_at": _when(m.created_at), "undone_at": _when(m.undone_at)}
                    for m in merges
                ]
                if args.json:
                    print(json.dumps(rows, ensure_ascii=False))
                elif not rows:
                    print("no merges yet")
                else:
                    for r in rows:
                        state = f"undone {r['undone_at']}" if r["undone_at"] else "active"
                        print(f"{r['id']}: {r['dropped_name']!r} → {r['kept_name']!r}"
                              f" (score {r['score']}, {r['created_at']}, {state})")  # fmt: skip
                return 0
            record = await undo_merge(parts.graph, args.id)
            await parts.indexer.sync()
            if args.json:
                print(
                    json.dumps(
                        asdict(record) | {"undone_at": _when(record.undone_at)}, ensure_ascii=False
                    )
                )
            else:
                print(
                    f"undid merge {record.id}: {record.dropped_name!r} is separate from {record.kept_name!r} again"
                )
            return 0

    return int(anyio.run(main))


def register_cli(memory: Any) -> None:
    """Add `undo-merge` to the `memory` command group (its parser or subparsers action)."""
    sub = memory
    if isinstance(memory, argparse.ArgumentParser):
        sub = next(a for a in memory._actions if isinstance(a, argparse._SubParsersAction))
    undo = sub.add_parser(
        "undo-merge", help="undo a synonym merge of the memory graph (default: the last)"
    )
    undo.add_argument("--id", type=int, help="the merge to undo (see --list)")
    undo.add_argument("--list", action="store_true", help="list recent merges instead")
    undo.add_argument(
        "--limit", type=int, default=20, help="how many merges --list shows (default 20)"
    )
    undo.add_argument("--json", action="store_true", help="print JSON")
    undo.add_argument(
        "--config", help="config file (default: $HOMEAGENT_CONFIG or config/homeagent.yaml)"
    )
    undo.set_defaults(func=cmd_undo_merge)


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (tests): `memory` group with heartbeat and undo-merge."""
    from homeagent.cli.memory import register_cli as register_memory
    from homeagent.errors import HomeAgentError

    parser = argparse.ArgumentParser(prog="homeagent")
    memory = register_memory(
        parser.add_subparsers(dest="command", required=True), heartbeat=make_heartbeat_command()
    )
    register_cli(memory)
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or args_list[0] != "memory":
        args_list.insert(0, "memory")
    args = parser.parse_args(args_list)
    try:
        return int(args.func(args) or 0)
    except HomeAgentError as err:
        print(f"homeagent: error: {err}", file=sys.stderr)
        return 2
