"""`GET /api/changes`: the files the agent wrote, newest first (the change tracker)."""

from __future__ import annotations

from aiohttp import web

from homeagent.errors import RequestError
from homeagent.ext.changes import ChangeTracker

CHANGES = web.AppKey("homeagent.changes", ChangeTracker)


def _int(request: web.Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError as err:
        raise RequestError(f"{name}: expected an integer from {low} to {high}, got {raw!r}", param=name) from err
    if not low <= value <= high:
        raise RequestError(f"{name}: expected an integer from {low} to {high}, got {value}", param=name)
    return value


async def list_changes(request: web.Request) -> web.Response:
    limit = _int(request, "limit", 50, 1, 500)
    offset = _int(request, "offset", 0, 0, 10_000_000)
    changes = await request.app[CHANGES].list(limit=limit, offset=offset)
    return web.json_response({"changes": [c.as_dict() for c in changes]})


def add_routes(web_app: web.Application, tracker: ChangeTracker) -> None:
    web_app[CHANGES] = tracker
    web_app.router.add_get("/api/changes", list_changes)
