"""`homeagent skills | backup | restore | changes | mcp`: the extension commands.

    skills list [--json]          every skill found, with where it came from and whether it is on
    skills enable|disable NAME    recorded in <data_dir>/skills.json; the daemon reads it at start
                                  and on SIGHUP
    backup [--json]               an online backup of the database now (safe while the daemon runs)
    restore FILE                  replace the database with a backup (refused while the daemon runs)
    changes list|diff|revert ID   the files the agent wrote, their diffs, and undoing one
    mcp                           serve memory search, knowledge search and the actions over stdio
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio

from homeagent.config import Config, load_config
from homeagent.log import configure_logging


def _fail(message: str, code: int = 1) -> int:
    print(f"homeagent: error: {message}", file=sys.stderr)
    return code


def _config(args: argparse.Namespace) -> Config:
    configure_logging("warning")
    return load_config(args.config)


# -- skills --------------------------------------------------------------------------------


def cmd_skills(args: argparse.Namespace) -> int:
    from homeagent.ext.skills import discover, is_enabled, read_state, skill_dirs, write_state

    config = _config(args)
    data_dir = Path(config.data_dir)
    found, problems = discover(skill_dirs(Path(config.skills.dir), data_dir))
    if args.action in ("enable", "disable"):
        if not args.name:
            return _fail(f"skills {args.action} needs a NAME", 2)
        if args.name not in found:
            known = ", ".join(sorted(found)) or "none"
            return _fail(f"no skill named {args.name!r} (found: {known})")
        write_state(data_dir, args.name, args.action == "enable")
        print(f"skill {args.name!r} {args.action}d; a running daemon picks it up on SIGHUP or restart",
              file=sys.stderr)
        return 0
    state = read_state(data_dir)
    rows = [s.as_dict(is_enabled(s.name, config.skills.enabled, state)) for s in found.values()]
    if args.json:
        print(json.dumps({"skills": rows, "problems": problems}, ensure_ascii=False, indent=1))
        return 0
    for row in rows:
        mark = "on " if row["enabled"] else "off"
        print(f"{mark}  {row['name']:<20} {row['origin']:<5} {row['description']}")
    for problem in problems:
        print(f"PROBLEM  {problem}")
    return 0


# -- backup and restore ---------------------------------------------------------------------


def _backup_dir(config: Config) -> Path:
    return Path(config.backup.dir) if config.backup.dir else Path(config.data_dir) / "backups"


def cmd_backup(args: argparse.Namespace) -> int:
    from homeagent.store.backup import backup_now

    config = _config(args)
    made = backup_now(Path(config.data_dir) / "homeagent.db", _backup_dir(config), config.backup.keep)
    print(json.dumps(made.as_dict()) if args.json else str(made.path))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from homeagent.store.backup import restore

    config = _config(args)
    data_dir = Path(config.data_dir)
    kept = restore(Path(args.file), data_dir / "homeagent.db", data_dir)
    print(f"restored {args.file}; the previous database is kept as {kept}", file=sys.stderr)
    return 0


# -- changes -------------------------------------------------------------------------------


async def _changes(config: Config, args: argparse.Namespace) -> int:
    from homeagent.ext.changes import ChangeTracker
    from homeagent.schema import all_migrations
    from homeagent.store import Database

    async with Database(Path(config.data_dir) / "homeagent.db", all_migrations()) as db:
        tracker = ChangeTracker(db)
        if args.action == "list":
            rows = [c.as_dict() for c in await tracker.list(limit=args.limit)]
            if args.json:
                print(json.dumps({"changes": rows}, ensure_ascii=False, indent=1))
            else:
                for c in rows:
                    extra = f" (reverts {c['reverts']})" if c["reverts"] else ""
                    print(f"{c['id']:>5}  {c['created_at']}  {c['op']:<7} {c['path']}  {c['reason']}{extra}")
            return 0
        if args.id is None:
            return _fail(f"changes {args.action} needs an ID", 2)
        if args.action == "diff":
            sys.stdout.write(await tracker.diff(args.id))
            return 0
        change = await tracker.revert(args.id)
        print(json.dumps(change.as_dict(), ensure_ascii=False) if args.json
              else f"change {args.id} reverted as change {change.id} ({change.path})")
        return 0


def cmd_changes(args: argparse.Namespace) -> int:
    return anyio.run(_changes, _config(args), args)


# -- mcp -------------------------------------------------------------------------------------


async def _mcp(config: Config) -> int:
    from homeagent.app import App
    from homeagent.ext.mcp_client import mcp_available
    from homeagent.ext.mcp_server import build_server, run_stdio
    from homeagent.llm.echo import EchoProvider

    if not mcp_available():
        return _fail("the mcp package is not installed (pip install 'homeagent[ext]')")
    # No model is loaded: the MCP client brings its own; we serve tools only.
    async with App(config, provider=EchoProvider()) as app:
        await run_stdio(build_server(app.tools, app.permissions, app.audit))
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    # stdout is the protocol: log lines go to stderr, and only warnings.
    configure_logging("warning", config.log.format)
    return anyio.run(_mcp, config)


def register_cli(sub: Any) -> None:
    skills = sub.add_parser("skills", help="list, enable or disable skills (SKILL.md folders)")
    skills.add_argument("action", choices=["list", "enable", "disable"])
    skills.add_argument("name", nargs="?")
    skills.add_argument("--json", action="store_true")
    skills.add_argument("--config")
    skills.set_defaults(func=cmd_skills)

    backup = sub.add_parser("backup", help="back up the database now (safe while the daemon runs)")
    backup.add_argument("--json", action="store_true")
    backup.add_argument("--config")
    backup.set_defaults(func=cmd_backup)

    restore = sub.add_parser("restore", help="restore the database from a backup (daemon stopped)")
    restore.add_argument("file")
    restore.add_argument("--config")
    restore.set_defaults(func=cmd_restore)

    changes = sub.add_parser("changes", help="files the agent wrote: list, diff, revert")
    changes.add_argument("action", choices=["list", "diff", "revert"])
    changes.add_argument("id", nargs="?", type=int)
    changes.add_argument("--limit", type=int, default=50)
    changes.add_argument("--json", action="store_true")
    changes.add_argument("--config")
    changes.set_defaults(func=cmd_changes)

    mcp = sub.add_parser("mcp", help="serve memory, knowledge and the actions as an MCP server on stdio")
    mcp.add_argument("--config")
    mcp.set_defaults(func=cmd_mcp)
