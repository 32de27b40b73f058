"""`homeagent memory …`: ingest, search and stats over the document memory.

    homeagent memory ingest --jsonl FILE --namespace NS     lines {"id","text","timestamp"}
    homeagent memory search --namespace NS --k K --json QUERY
    homeagent memory search --namespace NS --k K --json --queries FILE
    homeagent memory stats [--json]

Commands that print JSON print only JSON on stdout; problems and logs go to stderr.
Ingest commits in batches and acknowledges each committed batch with one JSON line, so
a caller knows exactly what is durable if the process dies. Search is read-only (it does
not count as an access of the documents it returns).

`register_cli(subparsers)` adds the group to the main parser; `run_cli(argv)` and
`python -m homeagent.cli.memory …` run it standalone.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, TextIO
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import anyio

from homeagent import schema
from homeagent.clock import SystemClock
from homeagent.config import Config, load_config
from homeagent.errors import ConfigError, HomeAgentError, RequestError
from homeagent.log import configure_logging
from homeagent.memory.documents import DocumentStore, NewDocument, namespace_counts
from homeagent.memory.vector import index_counts
from homeagent.store.db import Database, Migration

NAMESPACE_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
DEFAULT_NAMESPACE = "default"


def check_namespace(value: str) -> str:
    if not NAMESPACE_RE.match(value):
        raise RequestError(
            f"--namespace {value!r} is not a valid namespace: use 1-64 letters, digits, "
            "'_', '.' or '-' (for example 'household' or 'eval-2026.03')"
        )
    return value


def all_migrations() -> tuple[Migration, ...]:
    """Every migration the daemon knows, so the CLI and the daemon share one schema."""
    return schema.all_migrations()


def _timezone(config: Config) -> Any:
    if config.daemon.timezone:
        try:
            return ZoneInfo(config.daemon.timezone)
        except (ZoneInfoNotFoundError, ValueError) as err:
            raise ConfigError(f"daemon.timezone: unknown timezone {config.daemon.timezone!r}") from err
    return datetime.now().astimezone().tzinfo


def parse_timestamp(value: Any, tz: Any) -> datetime:
    """ISO 8601 (naive = home timezone) or epoch seconds (milliseconds above 1e11)."""
    if isinstance(value, bool):
        raise ValueError("expected an ISO 8601 time or epoch seconds, got a boolean")
    if isinstance(value, int | float):
        seconds = float(value) / (1000 if abs(value) > 1e11 else 1)
        return datetime.fromtimestamp(seconds, tz)
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"-?\d+(\.\d+)?", text):
            return parse_timestamp(float(text), tz)
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(
                f"expected ISO 8601 such as 2026-03-01T09:00:00+08:00 or epoch seconds, got {value!r}"
            ) from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)
    raise ValueError(f"expected an ISO 8601 time or epoch seconds, got {value!r}")


# -- ingest --------------------------------------------------------------------------------


def _read_lines(path: str) -> Iterator[tuple[int, str]]:
    if path == "-":
        yield from enumerate(sys.stdin, start=1)
        return
    try:
        with open(path, encoding="utf-8") as fh:
            yield from enumerate(fh, start=1)
    except FileNotFoundError as err:
        raise RequestError(f"--jsonl {path}: no such file") from err
    except UnicodeDecodeError as err:
        raise RequestError(f"--jsonl {path}: not UTF-8 text ({err.reason} at byte {err.start})") from err


def _parse_ingest_line(line: str, tz: Any) -> NewDocument:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as err:
        raise ValueError(f"not valid JSON ({err.msg})") from err
    if not isinstance(data, dict):
        raise ValueError('expected an object {"id", "text", "timestamp"}')
    doc_id, text = data.get("id"), data.get("text")
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)
    if not isinstance(doc_id, str) or not doc_id.strip():
        raise ValueError('"id" must be a non-empty string')
    if not isinstance(text, str) or not text.strip():
        raise ValueError('"text" must be a non-empty string')
    created = None
    if data.get("timestamp") is not None:
        try:
            created = parse_timestamp(data["timestamp"], tz)
        except (ValueError, OverflowError, OSError) as err:
            raise ValueError(f'"timestamp": {err}') from err
    return NewDocument(text=text, id=doc_id, created_at=created, source="ingest")


async def _ingest(args: argparse.Namespace, config: Config, out: TextIO, err: TextIO) -> int:
    tz = _timezone(config)
    total = bad = 0
    async with Database(config.data_dir / "homeagent.db", all_migrations()) as db:
        store = DocumentStore(db, clock=SystemClock(tz), namespace=args.namespace)
        await store.load()
        batch: list[NewDocument] = []
        last_line = 0

        async def flush() -> None:
            nonlocal total, batch
            if not batch:
                return
            await store.commit(batch, return_documents=False)
            total += len(batch)
            ack = {"ingested": len(batch), "total": total, "line": last_line}
            out.write(json.dumps(ack) + "\n")
            out.flush()
            batch = []

        for number, line in _read_lines(args.jsonl):
            if not line.strip():
                continue
            try:
                batch.append(_parse_ingest_line(line, tz))
            except ValueError as problem:
                bad += 1
                err.write(f"homeagent: {args.jsonl}:{number}: skipped: {problem}\n")
                continue
            last_line = number
            if len(batch) >= args.batch:
                await flush()
        await flush()
    err.write(f"homeagent: ingested {total} document(s) into {args.namespace!r}"
              + (f", skipped {bad} bad line(s)\n" if bad else "\n"))
    return 0


# -- search --------------------------------------------------------------------------------


def _results(store: DocumentStore, query: str, k: int, now: datetime | None, ranking: str) -> list[dict[str, Any]]:
    if ranking == "full":
        hits = store.rank_sync(query, k, now=now)
    else:
        hits = store.lexical_sync(query, k, scoring="cosine" if ranking == "cosine" else "bm25")
    docs = store.fetch_sync([h.id for h in hits])
    return [{"id": h.id, "score": h.score, "text": docs[h.id].text} for h in hits if h.id in docs]


def _search_sync(args: argparse.Namespace, store: DocumentStore, out: TextIO, err: TextIO) -> int:
    now = None
    if args.now:
        try:
            now = parse_timestamp(args.now, store.clock.now().tzinfo)
        except ValueError as problem:
            raise RequestError(f"--now {args.now!r}: {problem}") from problem
    if args.queries:
        for number, line in _read_lines(args.queries):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                if not isinstance(item, dict) or not isinstance(item.get("query"), str):
                    raise ValueError('expected an object {"id", "query"} with a string "query"')
            except ValueError as problem:
                err.write(f"homeagent: {args.queries}:{number}: skipped: {problem}\n")
                continue
            results = _results(store, item["query"], args.k, now, args.ranking)
            out.write(json.dumps({"id": item.get("id"), "results": results}, ensure_ascii=False) + "\n")
        out.flush()
        return 0
    query = " ".join(args.query)
    if not query.strip():
        raise RequestError("give a QUERY to search for, or --queries FILE")
    results = _results(store, query, args.k, now, args.ranking)
    if args.json:
        out.write(json.dumps(results, ensure_ascii=False) + "\n")
    else:
        for r in results:
            out.write(f"{r['score']:.4f}  {r['id']}  {r['text'][:100]}\n")
        if not results:
            err.write("homeagent: no matching documents\n")
    out.flush()
    return 0


async def _search(args: argparse.Namespace, config: Config, out: TextIO, err: TextIO) -> int:
    if args.k < 1:
        raise RequestError(f"--k must be at least 1, got {args.k}")
    async with Database(config.data_dir / "homeagent.db", all_migrations()) as db:
        store = DocumentStore(db, clock=SystemClock(_timezone(config)), namespace=args.namespace)
        await store.load()
        return await anyio.to_thread.run_sync(lambda: _search_sync(args, store, out, err))


# -- stats ---------------------------------------------------------------------------------


async def _stats(args: argparse.Namespace, config: Config, out: TextIO, err: TextIO) -> int:
    path = config.data_dir / "homeagent.db"
    async with Database(path, all_migrations()) as db:
        live, archived = await namespace_counts(db)
        vectors = await index_counts(db)
    tz = _timezone(config)

    def iso(ts: float | None) -> str | None:
        return None if ts is None else datetime.fromtimestamp(ts, tz).isoformat(timespec="seconds")

    names = sorted({r[0] for r in live} | set(archived))
    by_name = {r[0]: r for r in live}
    report: dict[str, Any] = {
        "database": str(path),
        "size_bytes": path.stat().st_size if path.exists() else 0,
        "namespaces": [
            {
                "namespace": ns,
                "documents": by_name[ns][1] if ns in by_name else 0,
                "archived": archived.get(ns, 0),
                "oldest": iso(by_name[ns][2]) if ns in by_name else None,
                "newest": iso(by_name[ns][3]) if ns in by_name else None,
            }
            for ns in names
        ],
        "indexes": [{"index": r[0], "documents": r[1], "terms": int(r[2] or 0)} for r in vectors],
    }
    if args.json:
        out.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        out.write(f"database {report['database']} ({report['size_bytes']} bytes)\n")
        for ns in report["namespaces"]:
            out.write(f"  {ns['namespace']}: {ns['documents']} documents, {ns['archived']} archived"
                      f" ({ns['oldest'] or '-'} … {ns['newest'] or '-'})\n")
        if not names:
            out.write("  no documents yet\n")
    return 0


# -- wiring --------------------------------------------------------------------------------


def _runner(fn: Callable[..., Any]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        configure_logging("warning")
        config = load_config(args.config)
        if getattr(args, "namespace", None) is not None:
            check_namespace(args.namespace)
        return int(anyio.run(fn, args, config, sys.stdout, sys.stderr) or 0)

    return run


def register_cli(
    subparsers: argparse._SubParsersAction,
    heartbeat: Callable[[argparse.Namespace], int] | None = None,
) -> argparse.ArgumentParser:
    """Add the `memory` command group. `heartbeat` is the `memory heartbeat` command
    (it gets args with `config` and `json`); without it that subcommand is absent."""
    memory = subparsers.add_parser("memory", help="document memory: ingest, search, stats")
    sub = memory.add_subparsers(dest="memory_command", required=True)

    def common(p: argparse.ArgumentParser, namespace: bool = True) -> None:
        p.add_argument("--config", help="config file (default: $HOMEAGENT_CONFIG or config/homeagent.yaml)")
        if namespace:
            p.add_argument("--namespace", default=DEFAULT_NAMESPACE,
                           help=f"corpus name: letters, digits, _ . - (default: {DEFAULT_NAMESPACE})")

    ingest = sub.add_parser("ingest", help='add documents from JSONL lines {"id","text","timestamp"}')
    ingest.add_argument("--jsonl", required=True, metavar="FILE", help="input file, or - for stdin")
    ingest.add_argument("--batch", type=int, default=500, help="documents per committed batch (default 500)")
    common(ingest)
    ingest.set_defaults(func=_runner(_ingest))

    search = sub.add_parser("search", help="search documents; prints results")
    search.add_argument("query", nargs="*", help="the query text")
    search.add_argument("--k", type=int, default=10, help="how many results (default 10)")
    search.add_argument("--json", action="store_true", help='print a JSON list of {"id","score","text"}')
    search.add_argument("--queries", metavar="FILE",
                        help='answer a JSONL file of {"id","query"}: one {"id","results"} line each')
    search.add_argument("--now", metavar="ISO", help="pin 'now' for time words such as last month")
    search.add_argument("--ranking", choices=("full", "bm25", "cosine"), default="full",
                        help="full: BM25 + time cues (default); bm25 or cosine: lexical only")
    common(search)
    search.set_defaults(func=_runner(_search))

    stats = sub.add_parser("stats", help="document counts per namespace")
    stats.add_argument("--json", action="store_true", help="print JSON")
    common(stats, namespace=False)
    stats.set_defaults(func=_runner(_stats))

    if heartbeat is not None:
        beat = sub.add_parser("heartbeat", help="run one memory heartbeat now")
        beat.add_argument("--json", action="store_true", help="print the heartbeat report as JSON")
        common(beat, namespace=False)
        beat.set_defaults(func=heartbeat)
    return memory


def run_cli(argv: Sequence[str] | None = None) -> int:
    """Run `homeagent memory …` standalone; `argv` may start with or without "memory"."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or args_list[0] != "memory":
        args_list.insert(0, "memory")
    parser = argparse.ArgumentParser(prog="homeagent")
    register_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(args_list)
    try:
        return int(args.func(args) or 0)
    except HomeAgentError as err:
        print(f"homeagent: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(run_cli())
