"""The `homeagent` command line: serve, chat, doctor.

Commands that print JSON print only JSON on stdout; logs always go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio

from homeagent import __version__
from homeagent.config import Config, load_config
from homeagent.errors import ConfigError, HomeAgentError
from homeagent.log import configure_logging, get_logger

if TYPE_CHECKING:
    from homeagent.api.early import EarlyListener
    from homeagent.app import App as AppType

log = get_logger("homeagent.cli")


def _fail(message: str, code: int = 2) -> int:
    print(f"homeagent: error: {message}", file=sys.stderr)
    return code


def _first_homeagent_error(exc: BaseException) -> HomeAgentError | None:
    if isinstance(exc, HomeAgentError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _first_homeagent_error(inner)
            if found is not None:
                return found
    return None


# -- serve ---------------------------------------------------------------------------------


async def _serve(config: Config, overrides: dict[str, dict[str, Any]] | None = None) -> int:
    from homeagent.store.backup import DaemonLock

    # Held while the daemon runs: `homeagent restore` and a second daemon see it.
    with DaemonLock(config.data_dir):
        return await _serve_locked(config, overrides or {})


async def _reload_on_sighup(apps: list[Any], config: Config, overrides: dict[str, dict[str, Any]]) -> None:
    """SIGHUP: read the config file again; a config that fails validation is refused and
    the running one kept."""
    with anyio.open_signal_receiver(signal.SIGHUP) as signals:
        async for _ in signals:
            try:
                new = load_config(config.source or None, overrides=overrides)
            except ConfigError as err:
                log.error("daemon.reload.refused", error=str(err), keeping="the running config")
                continue
            if apps:
                try:
                    await apps[0].reload(new)
                except Exception as err:  # noqa: BLE001 - a failed reload must not stop the daemon
                    log.error("daemon.reload.failed", error=repr(err))


def _bind_early(config: Config) -> EarlyListener:
    """The HTTP port, bound before the daemon is imported (homeagent.api.early)."""
    from homeagent.api.early import EarlyListener, cannot_listen, check_listen

    host, port = config.listen
    check_listen(host, config.api.token)
    try:
        early = EarlyListener(host, port, version=__version__)
    except OSError as err:
        raise cannot_listen(host, port, err) from err
    early.start()
    log.info("http.bound", host=host, port=early.port, serving="/healthz while starting")
    return early


async def _serve_locked(config: Config, overrides: dict[str, dict[str, Any]]) -> int:
    import importlib

    early = _bind_early(config)

    def load() -> tuple[type[AppType], dict[str, Any]]:
        # The local engine first: it loads its model and saved session in a thread of its
        # own while the rest of the daemon is imported here.
        from homeagent.llm.specs import preload_local

        engines = preload_local(config)
        return importlib.import_module("homeagent.app").App, engines

    engines: dict[str, Any] = {}
    try:
        # The daemon's imports take a second or two: in a worker thread, so the loop
        # answers /healthz meanwhile.
        App, engines = await anyio.to_thread.run_sync(load)
        return await _serve_app(App, config, overrides, early, engines)
    except BaseException:
        # An engine still loading finishes first: its thread must not be in llama.cpp
        # while the interpreter shuts down.
        for engine in engines.values():
            await anyio.to_thread.run_sync(engine.preloaded)
        raise
    finally:
        early.close()


async def _serve_app(App: type[AppType], config: Config, overrides: dict[str, dict[str, Any]],
                     early: EarlyListener, engines: dict[str, Any] | None = None) -> int:
    from homeagent.systemd import notify

    stop = anyio.Event()

    async def watch_signals() -> None:
        # Lives outside the app's task group so a second signal is still heard while
        # the app shuts down; that one exits at once.
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for signum in signals:
                if stop.is_set():
                    os._exit(128 + signum)
                notify("STOPPING=1")
                log.info("daemon.stopping", signal=signal.Signals(signum).name)
                stop.set()

    apps: list[Any] = []
    async with anyio.create_task_group() as outer:
        outer.start_soon(watch_signals)
        outer.start_soon(_reload_on_sighup, apps, config, overrides)
        try:
            async with App(config, prime_on_open=False, preloaded=engines) as app, anyio.create_task_group() as tg:
                apps.append(app)

                async def engine_ready() -> None:
                    await app.engine_ready.wait()
                    notify("STATUS=serving; engine ready")
                    log.info("daemon.engine_ready")

                async def ready() -> None:
                    # READY: HTTP answers and turns are accepted; those that arrive while
                    # the engine warms wait for its prime (STATUS and /healthz tell which).
                    notify("READY=1")
                    notify(f"STATUS=serving; engine {app.health.engine}")
                    log.info("daemon.ready", listen=f"{config.listen[0]}:{app.health.port}", pid=os.getpid(),
                             engine=app.health.engine)
                    tg.start_soon(engine_ready)

                async def run_app() -> None:
                    await app.run(on_ready=ready, early=early)

                tg.start_soon(run_app)
                await stop.wait()
                tg.cancel_scope.cancel()
        finally:
            outer.cancel_scope.cancel()
    log.info("daemon.stopped")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    overrides: dict[str, dict[str, Any]] = {}
    if args.listen:
        overrides["daemon"] = {"listen_addr": args.listen}
    config = load_config(args.config, overrides=overrides)
    configure_logging(config.log.level, config.log.format)
    os.umask(0o077)  # every file the daemon makes is its user's alone (as UMask= in the unit)
    try:
        return anyio.run(_serve, config, overrides)
    except BaseException as exc:  # noqa: BLE001 - start-up failures become one clear line
        err = _first_homeagent_error(exc)
        if err is None:
            raise
        return _fail(str(err))


# -- chat ----------------------------------------------------------------------------------


def _daemon_url(args: argparse.Namespace) -> tuple[str, str]:
    token = args.token or os.environ.get("HOMEAGENT_API_TOKEN", "")
    if args.url:
        return args.url.rstrip("/"), token
    try:
        config = load_config(args.config)
        host, port = config.listen
        token = token or config.api.token
    except ConfigError:
        host, port = "127.0.0.1", 8080
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{port}", token


async def _chat_remote(url: str, token: str, texts: Sequence[str] | None) -> int:
    import aiohttp

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=5)
    async with aiohttp.ClientSession(headers=headers, timeout=timeout) as session:

        async def one(text: str) -> int:
            try:
                async with session.post(f"{url}/api/chat", json={"message": text, "channel": "cli"}) as resp:
                    if resp.status != 200:
                        try:
                            body = await resp.json(content_type=None)
                            message = body["error"]["message"]
                        except (ValueError, KeyError, TypeError, aiohttp.ContentTypeError):
                            message = f"HTTP {resp.status}"
                        return _fail(f"the daemon refused the message: {message}", 1)
                    return await _print_sse(resp.content)
            except aiohttp.ClientConnectorError:
                return _fail(
                    f"cannot reach the daemon at {url}; start it with `homeagent serve` "
                    "(or `make run`), or use `homeagent chat --local`",
                    1,
                )

        if texts is not None:
            return await one(" ".join(texts))
        code = 0
        async for line in _stdin_lines():
            if line.strip():
                code = await one(line) or code
        return code


async def _print_sse(stream: Any) -> int:
    event = ""
    async for raw in stream:
        line = raw.decode("utf-8").rstrip("\n")
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
            if event == "text_delta":
                sys.stdout.write(data["text"])
                sys.stdout.flush()
            elif event == "error":
                sys.stdout.write("\n")
                return _fail(data["message"], 1)
            elif event == "done":
                sys.stdout.write("\n")
                sys.stdout.flush()
                return 0
    return _fail("the stream ended before the answer was complete", 1)


async def _stdin_lines() -> Any:
    while True:
        line = await anyio.to_thread.run_sync(sys.stdin.readline)
        if not line:
            return
        yield line.rstrip("\n")


async def _chat_local(config: Config, texts: Sequence[str] | None) -> int:
    from homeagent.app import App
    from homeagent.io.console import ConsoleChannel

    code = 0
    async with App(config) as app, anyio.create_task_group() as tg:
        tg.start_soon(app.agent.run, app.inbox)
        # The terminal is the channel: it streams the answer and asks y/n for a
        # "confirm" permission, answering the permission broker the turn waits on.
        console = ConsoleChannel(app.inbox, app.broker)
        unregister = app.devices.register_channel(console)
        if config.schedule.enabled:
            # Reminders that fall due while the terminal is open are printed between turns.
            await tg.start(app.scheduler.run)
        try:

            async def one(text: str) -> int:
                failure = await console.say(text)
                return 0 if failure is None else _fail(failure, 1)

            if texts is not None:
                code = await one(" ".join(texts))
            else:
                async for line in console.lines():
                    if line.strip():
                        code = await one(line) or code
        finally:
            unregister()
        tg.cancel_scope.cancel()
    return code


def cmd_chat(args: argparse.Namespace) -> int:
    texts = args.text or None
    if args.local:
        config = load_config(args.config)
        configure_logging(config.log.level if config.log.level != "info" else "warning", config.log.format)
        return anyio.run(_chat_local, config, texts)
    configure_logging("warning")
    url, token = _daemon_url(args)
    return anyio.run(_chat_remote, url, token, texts)


# -- doctor --------------------------------------------------------------------------------


def cmd_doctor(args: argparse.Namespace) -> int:
    from homeagent.doctor import run_checks

    configure_logging("warning")
    results = run_checks(args.config, probe=args.probe)
    problems = [r for r in results if not r.ok]
    if args.json:
        print(json.dumps([r.as_dict() for r in results], ensure_ascii=False, indent=2))
    else:
        for r in results:
            mark = "ok     " if r.ok else "PROBLEM"
            print(f"[{mark}] {r.name}: {r.detail}")
            if not r.ok and r.fix:
                print(f"          fix: {r.fix}")
        print(f"{len(problems)} problem(s) found" if problems else "all checks passed")
    return 1 if problems else 0


# -- members -------------------------------------------------------------------------------


async def _members(config: Config, args: argparse.Namespace) -> int:
    from homeagent.members import MemberStore
    from homeagent.schema import all_migrations
    from homeagent.store import Database

    async with Database(config.data_dir / "homeagent.db", all_migrations()) as db:
        store = MemberStore(db)
        if args.action == "add":
            token = await store.add(args.name)
            print(json.dumps({"name": args.name, "token": token}) if args.json else token)
            if not args.json:
                print(f"member {args.name!r} added; the token above is shown only once", file=sys.stderr)
        elif args.action == "rotate":
            token = await store.rotate(args.name)
            print(json.dumps({"name": args.name, "token": token}) if args.json else token)
            if not args.json:
                print(f"member {args.name!r} has a new token (shown only once); the old one no longer works",
                      file=sys.stderr)
        elif args.action == "revoke":
            if not await store.revoke(args.name):
                return _fail(f"no active member named {args.name!r}", 1)
            print(f"member {args.name!r} revoked", file=sys.stderr)
        else:
            members = await store.list()
            if args.json:
                print(json.dumps([{"name": m.name, "active": m.active, "created_at": m.created_at}
                                  for m in members], ensure_ascii=False))
            else:
                for m in members:
                    print(f"{m.name}\t{'active' if m.active else 'revoked'}")
    return 0


def cmd_members(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    configure_logging("warning")
    if args.action in ("add", "revoke", "rotate") and not args.name:
        return _fail(f"members {args.action} needs a NAME")
    return anyio.run(_members, config, args)


# -- entry point ---------------------------------------------------------------------------


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every subcommand; `only="serve"`: just that one (the daemon starts without the
    other commands' imports, which take most of a second)."""
    parser = argparse.ArgumentParser(prog="homeagent", description="HomeAgent, the home assistant daemon.")
    parser.add_argument("--version", action="version", version=f"homeagent {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the daemon")
    serve.add_argument("--config", help="config file (default: $HOMEAGENT_CONFIG or config/homeagent.yaml)")
    serve.add_argument("--listen", metavar="HOST:PORT", help="override daemon.listen_addr")
    serve.set_defaults(func=cmd_serve)
    if only == "serve":
        return parser

    chat = sub.add_parser("chat", help="talk to the agent (reads lines from stdin without TEXT)")
    chat.add_argument("text", nargs="*", help="the message; omit to read one message per line from stdin")
    chat.add_argument("--local", action="store_true", help="run the agent in-process instead of via the daemon")
    chat.add_argument("--url", help="daemon URL (default: from the config's listen_addr)")
    chat.add_argument("--token", help="API token (default: $HOMEAGENT_API_TOKEN or api.token)")
    chat.add_argument("--config", help="config file")
    chat.set_defaults(func=cmd_chat)

    doctor = sub.add_parser("doctor", help="check config, data dir, database, model and port")
    doctor.add_argument("--config", help="config file")
    doctor.add_argument("--json", action="store_true", help="print the checks as JSON")
    doctor.add_argument("--probe", action="store_true", help="also contact each cloud provider")
    doctor.set_defaults(func=cmd_doctor)

    from homeagent.cli import heartbeat as heartbeat_cli
    from homeagent.cli.memory import register_cli as register_memory_cli
    from homeagent.memory.service import memory_settings

    memory = register_memory_cli(sub, heartbeat=heartbeat_cli.make_heartbeat_command(
        settings_factory=lambda config: memory_settings(config).heartbeat,
    ))  # fmt: skip
    heartbeat_cli.register_cli(memory)

    from homeagent.cli.models import register_cli as register_llm_cli

    register_llm_cli(sub)

    from homeagent.cli.tools import register_cli as register_tools_cli

    register_tools_cli(sub)

    from homeagent.cli.ext import register_cli as register_ext_cli

    register_ext_cli(sub)
    from homeagent.cli.intent import register_cli as register_intent_cli

    register_intent_cli(sub)

    members = sub.add_parser("members", help="household members and their API tokens")
    members.add_argument("action", choices=["add", "list", "revoke", "rotate"])
    members.add_argument("name", nargs="?", help="the member's name (add, revoke)")
    members.add_argument("--json", action="store_true", help="print JSON")
    members.add_argument("--config", help="config file")
    members.set_defaults(func=cmd_members)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(only="serve" if words[:1] == ["serve"] else None).parse_args(words)
    try:
        return int(args.func(args) or 0)
    except HomeAgentError as err:
        return _fail(str(err))
    except KeyboardInterrupt:
        return 130
