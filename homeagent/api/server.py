"""The aiohttp application factory and the HTTP server task."""

from __future__ import annotations

import ipaddress
import time
from typing import Any

import anyio
from aiohttp import web

from homeagent import __version__
from homeagent.api import knowledge as knowledge_api
from homeagent.api import messages as messages_api
from homeagent.api import runs as runs_api
from homeagent.api.agent_chat import agent_chat
from homeagent.api.auth import RateLimiter, auth_middleware
from homeagent.api.keys import APP
from homeagent.api.middleware import cors_middleware, error_middleware
from homeagent.api.openai_compat import chat_completions, list_models
from homeagent.api.openapi import openapi_document
from homeagent.errors import StartupError
from homeagent.log import get_logger

log = get_logger("homeagent.api")

OPEN_PATHS = frozenset({"/healthz", "/api/openapi.json"})


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def healthz(request: web.Request) -> web.Response:
    app = request.app[APP]
    provider = app.provider.status()
    db = await app.db.check()
    stats = app.agent.stats
    degraded = db != "ok" or provider.state not in ("ready",)
    body: dict[str, Any] = {
        "status": "degraded" if degraded else "ok",
        "version": __version__,
        "uptime_s": round(time.time() - app.health.started_at, 1),
        "db": {"status": db, "path": str(app.db.path), "schema_version": app.db.schema_version},
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
            "pending": app.inbox.pending,
        },
        "tools": len(app.tools),
    }
    return web.json_response(body)


async def list_devices(request: web.Request) -> web.Response:
    devices = await request.app[APP].devices.list()
    return web.json_response(
        {"devices": [{"id": d.device_id, "channel": d.channel, "name": d.name, "last_seen": d.last_seen} for d in devices]}
    )


def create_web_app(app: Any) -> web.Application:
    cfg = app.config.api
    middlewares = [error_middleware]
    if cfg.cors_origins:
        middlewares.insert(0, cors_middleware(cfg.cors_origins))
    limiter = RateLimiter(cfg.rate_limit_per_minute, cfg.rate_limit_loopback)
    middlewares.append(auth_middleware(cfg.token, app.members, limiter, OPEN_PATHS))
    web_app = web.Application(client_max_size=cfg.max_body_bytes, middlewares=middlewares)
    web_app[APP] = app
    web_app.router.add_get("/healthz", healthz)
    web_app.router.add_get("/v1/models", list_models)
    web_app.router.add_post("/v1/chat/completions", chat_completions)
    web_app.router.add_post("/api/chat", agent_chat)
    web_app.router.add_get("/api/devices", list_devices)
    runs_api.add_routes(web_app)
    knowledge_api.add_routes(web_app, app.knowledge, max_upload_bytes=app.config.knowledge.max_file_bytes)
    messages_api.add_routes(web_app)
    web_app.router.add_get("/api/openapi.json", openapi_document)
    return web_app


async def serve_http(app: Any, host: str, port: int, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
    """Serve until cancelled; reports the bound port through `task_status`."""
    if not is_loopback(host) and not app.config.api.token:
        raise StartupError(
            f"listening on {host} (not loopback) requires an API token: set api.token "
            "(for example api.token: ${HOMEAGENT_API_TOKEN}) or listen on 127.0.0.1"
        )
    app.web_app = create_web_app(app)
    runner = web.AppRunner(app.web_app, access_log=None, handle_signals=False, shutdown_timeout=2.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port, reuse_address=True)
        try:
            await site.start()
        except OSError as err:
            raise StartupError(f"cannot listen on {host}:{port}: {err.strerror or err}") from err
        bound = runner.addresses[0][1] if runner.addresses else port
        log.info("http.listening", host=host, port=bound)
        app.health.port = bound
        task_status.started(bound)
        await anyio.sleep_forever()
    finally:
        with anyio.CancelScope(shield=True):
            await runner.cleanup()
            log.info("http.stopped")
