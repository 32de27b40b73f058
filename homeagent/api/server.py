"""The aiohttp application factory and the HTTP server task.

`create_web_app(deps)` puts each dependency under its typed key; `serve_http` serves it,
registers the HTTP channels with the device registry while it does, and reports the
bound port through `task_status.started(port)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable
from typing import Any

import anyio
from aiohttp import web
from aiohttp.typedefs import Middleware
from anyio.abc import TaskStatus

from homeagent import __version__
from homeagent.api import changes as changes_api
from homeagent.api import keys
from homeagent.api import knowledge as knowledge_api
from homeagent.api import messages as messages_api
from homeagent.api import runs as runs_api
from homeagent.api import voice as voice_api
from homeagent.api.agent_chat import agent_chat
from homeagent.api.auth import RateLimiter, auth_middleware
from homeagent.api.deps import ApiDeps
from homeagent.api.early import EarlyListener, cannot_listen, check_listen
from homeagent.api.middleware import cors_middleware, error_middleware
from homeagent.api.ollama import KEY_PREFIX as OLLAMA_KEY_PREFIX
from homeagent.api.ollama import ollama_error_middleware, setup_ollama
from homeagent.api.openai_compat import chat_completions, list_models
from homeagent.api.openapi import openapi_document
from homeagent.api.push import PATH as PUSH_PATH
from homeagent.api.push import setup_push
from homeagent.api.reminders import setup_reminders
from homeagent.api.web import STATIC_PATHS, setup_web
from homeagent.io.speech import SpeechChannel
from homeagent.log import get_logger

log = get_logger("homeagent.api")

# The supervised subsystems' health (plugins, adapters, loops), shown in /healthz.
SUBSYSTEMS: web.AppKey[Callable[[], dict[str, dict[str, Any]]]] = web.AppKey("homeagent.subsystems")
OPEN_PATHS = frozenset({"/healthz", "/api/openapi.json"}) | STATIC_PATHS  # the page's shell, no data


async def healthz(request: web.Request) -> web.Response:
    provider = request.app[keys.PROVIDER].status()
    database = request.app[keys.DB]
    db = await database.check()
    stats = request.app[keys.AGENT_STATS]()
    writers = {w.name: w.as_dict() for w in (request.app[keys.RUNS].health, *request.app.get(keys.WRITERS, ()))}
    degraded = db != "ok" or provider.state not in ("ready",) or any(
        w["status"] != "ok" for w in writers.values()
    )
    body: dict[str, Any] = {
        "status": "degraded" if degraded else "ok",
        "version": __version__,
        "uptime_s": round(time.time() - request.app[keys.HEALTH].started_at, 1),
        "engine": request.app[keys.HEALTH].engine,
        "db": {"status": db, "path": str(database.path), "schema_version": database.schema_version},
        "provider": {
            "name": provider.name,
            "model": provider.model,
            "state": provider.state,
            "detail": provider.detail,
            **{k: v for k, v in provider.extra.items() if k != "path"},
        },
        "agent": {
            "turns_started": stats.turns_started,
            "turns_completed": stats.turns_completed,
            "turns_failed": stats.turns_failed,
            "turns_cancelled": stats.turns_cancelled,
            "next_turns_prepared": stats.next_turns_prepared,
            "busy": stats.current_turn is not None,
            "pending": request.app[keys.INBOX].pending,
        },
        "tools": len(request.app[keys.TOOLS]),
        "writers": writers,
    }
    subsystems = request.app.get(SUBSYSTEMS)
    if subsystems is not None:
        parts = subsystems()
        body["subsystems"] = parts
        if any(p.get("state") not in ("ready", "ok", "disabled") for p in parts.values()):
            body["status"] = "degraded"
    for name, section in request.app[keys.HEALTH].sections.items():
        body[name] = section()
    return web.json_response(body)


async def list_devices(request: web.Request) -> web.Response:
    devices = await request.app[keys.DEVICES].list()
    return web.json_response(
        {"devices": [{"id": d.device_id, "channel": d.channel, "name": d.name, "last_seen": d.last_seen} for d in devices]}
    )


def create_web_app(deps: ApiDeps) -> web.Application:
    cfg = deps.settings
    middlewares: list[Middleware] = [error_middleware]
    if cfg.cors_origins:
        middlewares.insert(0, cors_middleware(cfg.cors_origins))
    limiter = RateLimiter(cfg.rate_limit_per_minute, cfg.rate_limit_loopback)
    middlewares.append(ollama_error_middleware)  # Ollama-shaped errors under /ollama
    middlewares.append(auth_middleware(
        cfg.token, deps.members, limiter, OPEN_PATHS, frozenset({PUSH_PATH}), (OLLAMA_KEY_PREFIX,)
    ))
    web_app = web.Application(client_max_size=cfg.max_body_bytes, middlewares=middlewares)
    web_app[keys.HEALTH] = deps.health
    web_app[keys.MAX_BODY_BYTES] = cfg.max_body_bytes
    web_app[keys.PROVIDER] = deps.provider
    web_app[keys.DB] = deps.db
    web_app[keys.AGENT_STATS] = deps.agent_stats
    web_app[keys.INBOX] = deps.inbox
    web_app[keys.TOOLS] = deps.tools
    web_app[keys.DEVICES] = deps.devices
    web_app[keys.RUNS] = deps.runs
    web_app[keys.BROKER] = deps.broker
    web_app[keys.CONVERSATION] = deps.conversation
    web_app[keys.FORGET] = deps.forget_message
    web_app[keys.OPENAI_CHANNEL] = deps.openai
    web_app[keys.AGENT_CHAT_CHANNEL] = deps.agent_chat
    web_app[keys.RUNS_CHANNEL] = deps.run_channel
    web_app[keys.WRITERS] = deps.writers
    web_app.router.add_get("/healthz", healthz)
    web_app.router.add_get("/v1/models", list_models)
    web_app.router.add_post("/v1/chat/completions", chat_completions)
    web_app.router.add_post("/api/chat", agent_chat)
    web_app.router.add_get("/api/devices", list_devices)
    runs_api.add_routes(web_app)
    knowledge_api.add_routes(web_app, deps.knowledge, max_upload_bytes=deps.max_upload_bytes)
    messages_api.add_routes(web_app)
    setup_push(web_app, deps.push, deps.push_keepalive)
    setup_reminders(web_app, deps.scheduler)
    voice_api.add_routes(web_app, deps.voice, deps.speech or SpeechChannel(deps.inbox, deps.devices))
    web_app.router.add_get("/api/openapi.json", openapi_document)
    if deps.changes is not None:
        changes_api.add_routes(web_app, deps.changes)
    if deps.subsystems is not None:
        web_app[SUBSYSTEMS] = deps.subsystems
    setup_web(web_app, deps.web)
    setup_ollama(web_app, deps.ollama)
    return web_app


async def serve_http(
    deps: ApiDeps, host: str, port: int, *, early: EarlyListener | None = None,
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until cancelled; reports the bound port through `task_status`. With `early`
    (the port bound at the very start, homeagent.api.early), its socket is served and the
    requests it parked are answered here."""
    check_listen(host, deps.settings.token)
    runner = web.AppRunner(create_web_app(deps), access_log=None, handle_signals=False, shutdown_timeout=2.0)
    await runner.setup()
    with contextlib.ExitStack() as channels:
        try:
            for channel in deps.channels():
                channels.callback(deps.devices.register_channel(channel))
            parked: list[socket.socket] = []
            site: web.BaseSite
            if early is not None:
                sock, parked = await early.handover()
                site = web.SockSite(runner, sock)
            else:
                site = web.TCPSite(runner, host, port, reuse_address=True)
            try:
                await site.start()
            except OSError as err:
                raise cannot_listen(host, port, err) from err
            loop = asyncio.get_running_loop()
            for conn in parked:  # requests sent while the daemon started: answered now
                try:
                    await loop.connect_accepted_socket(runner.server, conn)  # type: ignore[arg-type]
                except OSError as err:
                    conn.close()
                    log.warning("http.parked_lost", error=str(err))
            bound = runner.addresses[0][1] if runner.addresses else port
            log.info("http.listening", host=host, port=bound)
            task_status.started(bound)
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                await runner.cleanup()
                log.info("http.stopped")
