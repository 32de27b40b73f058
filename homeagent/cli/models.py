"""`homeagent models …` and `homeagent usage`: the model manager and the token meter.

    homeagent models list [--json] [--provider NAME]   catalog and what is installed, or
                                                       the models a configured provider offers
    homeagent models pull ID                           download (progress on stderr), verify
    homeagent models verify ID                         check the sha256 of an installed model
    homeagent models use ID                            the chat model the local engine loads
    homeagent models rm ID                             delete a downloaded model
    homeagent usage [--days N] [--json]                tokens per provider per day

`register_cli(subparsers)` adds them to the main parser; `python -m homeagent.cli.models`
runs them on their own. JSON output is the only thing on stdout; messages go to stderr.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio

from homeagent.config import Config, load_config
from homeagent.errors import HomeAgentError
from homeagent.log import configure_logging


def _fail(message: str, code: int = 1) -> int:
    print(f"homeagent: error: {message}", file=sys.stderr)
    return code


def _manager(config: Config, progress: bool = False):
    from homeagent.llm.catalog import load_catalog
    from homeagent.llm.manager import ModelManager, Progress

    return ModelManager(
        Path(config.data_dir) / "models",
        load_catalog(config.llm.model_catalog or None),
        mirror=config.llm.model_mirror,
        progress=Progress() if progress else None,
    )


def _run(args: argparse.Namespace) -> int:
    configure_logging("warning")
    try:
        config = load_config(args.config)
        return int(args.handler(config, args) or 0)
    except HomeAgentError as err:
        return _fail(str(err))
    except KeyboardInterrupt:
        print("\ninterrupted; a started download resumes with the same `pull`", file=sys.stderr)
        return 130


# -- models ---------------------------------------------------------------------------------


def _list(config: Config, args: argparse.Namespace) -> int:
    if args.provider:
        return anyio.run(_list_remote, config, args.provider, args.json)
    states = _manager(config).states()
    if args.json:
        print(json.dumps([s.as_dict() for s in states], ensure_ascii=False, indent=2))
        return 0
    for s in states:
        mark = "*" if s.active else ("+" if s.installed else " ")
        info = s.info
        print(
            f"{mark} {info.id:<22} {info.type:<9} {info.parameters:>5} {info.size:>7} "
            f"{info.quantization:<7} {info.name} — {info.description}"
        )
    print("* chat model in use   + installed", file=sys.stderr)
    return 0


async def _list_remote(config: Config, name: str, as_json: bool) -> int:
    from homeagent.llm.factory import build_one, credential_store, provider_spec

    if name not in config.llm.providers and name not in config.llm.chain_names():
        return _fail(f"no provider named {name!r} in llm.providers or llm.chain")
    spec = provider_spec(config.llm, name)
    if spec.type not in ("openai_compatible", "ollama"):
        return _fail(f"{name} is a {spec.type} provider; only remote ones list their models")
    provider = build_one(config, name, spec, credential_store(config))
    try:
        if not provider.available:
            return _fail(provider.status().detail)
        models = await provider.list_models()  # type: ignore[attr-defined]
    except HomeAgentError as err:
        return _fail(str(err))
    except Exception as err:  # noqa: BLE001 - UpstreamFailure and transport errors: one line
        return _fail(str(err) or type(err).__name__)
    finally:
        await provider.aclose()
    print(json.dumps(models, ensure_ascii=False) if as_json else "\n".join(models))
    return 0


def _pull(config: Config, args: argparse.Namespace) -> int:
    path = anyio.run(_manager(config, progress=True).pull, args.id)
    print(str(path))
    return 0


def _verify(config: Config, args: argparse.Namespace) -> int:
    sha = anyio.run(_manager(config).verify, args.id)
    print(f"{args.id}: ok, sha256 {sha}")
    return 0


def _use(config: Config, args: argparse.Namespace) -> int:
    info = _manager(config).use(args.id)
    print(f"{info.id}: the local engine loads it from the next start of the daemon")
    if config.llm.model_path:
        print(f"note: llm.model_path ({config.llm.model_path}) is set and wins over this choice", file=sys.stderr)
    return 0


def _rm(config: Config, args: argparse.Namespace) -> int:
    removed = _manager(config).rm(args.id)
    if not removed:
        print(f"{args.id}: nothing to remove", file=sys.stderr)
    for path in removed:
        print(f"removed {path}")
    return 0


# -- usage ----------------------------------------------------------------------------------


def _today(config: Config) -> dt.date:
    """Today in the home's timezone, as the meter counts days."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        tz = ZoneInfo(config.daemon.timezone) if config.daemon.timezone else None
    except (ZoneInfoNotFoundError, ValueError):
        tz = None
    return dt.datetime.now(tz).date() if tz else dt.date.today()


def _usage(config: Config, args: argparse.Namespace) -> int:
    from homeagent.llm.usage import read_usage

    today = _today(config)
    since = (today - dt.timedelta(days=max(0, args.days - 1))).isoformat()
    rows = read_usage(Path(config.data_dir) / "homeagent.db", since)
    if args.json:
        print(json.dumps([r.as_dict() for r in rows], ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print(f"no model usage recorded since {since}")
        return 0
    print(f"{'day':<10}  {'provider':<16} {'model':<24} {'where':<5} {'req':>5} {'fail':>4} "
          f"{'prompt':>9} {'output':>8} {'cached':>8}")
    for r in rows:
        print(f"{r.day:<10}  {r.provider:<16} {r.model[:24]:<24} {'cloud' if r.cloud else 'local':<5} "
              f"{r.requests:>5} {r.failures:>4} {r.prompt_tokens:>9} {r.completion_tokens:>8} {r.cached_tokens:>8}")
    budget = config.llm.daily_cloud_tokens
    cloud = sum(r.total_tokens for r in rows if r.cloud and r.day == today.isoformat())
    print(f"cloud tokens today: {cloud}" + (f" of {budget}" if budget else " (no daily limit)"))
    return 0


# -- wiring ---------------------------------------------------------------------------------


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    """Add `models` and `usage` to the `homeagent` parser."""
    models = subparsers.add_parser("models", help="list, download, verify, choose and remove local models")
    msub = models.add_subparsers(dest="models_command", required=True)

    def command(name: str, handler, help_text: str, with_id: bool = True) -> argparse.ArgumentParser:
        p = msub.add_parser(name, help=help_text)
        if with_id:
            p.add_argument("id", help="model id (see `homeagent models list`)")
        p.add_argument("--config", help="config file")
        p.set_defaults(func=_run, handler=handler)
        return p

    listing = command("list", _list, "the catalog and what is installed", with_id=False)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.add_argument("--provider", help="list the models a configured remote provider offers")
    command("pull", _pull, "download and verify a model")
    command("verify", _verify, "check an installed model's sha256")
    command("use", _use, "choose the chat model the local engine loads")
    command("rm", _rm, "delete a downloaded model")

    usage = subparsers.add_parser("usage", help="model tokens per provider per day")
    usage.add_argument("--days", type=int, default=7, help="how many days back (default 7)")
    usage.add_argument("--json", action="store_true", help="print JSON")
    usage.add_argument("--config", help="config file")
    usage.set_defaults(func=_run, handler=_usage)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="homeagent")
    register_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
