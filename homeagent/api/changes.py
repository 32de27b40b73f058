"""`GET /api/changes`: the files the agent wrote, newest first (the change tracker)."""

from __future__ import annotations

from aiohttp import web

from homeagent.api.bodies import int_param
from homeagent.ext.changes import ChangeTracker

CHANGES = web.AppKey("homeagent.changes", ChangeTracker)


async def list_changes(request: web.Request) -> web.Response:
    limit = int_param(request, "limit", 50, 1, 500)
    offset = int_param(request, "offset", 0, 0, 10_000_000)
    changes = await request.app[CHANGES].list(limit=limit, offset=offset)
    return web.json_response({"changes": [c.as_dict() for c in changes]})


def add_routes(web_app: web.Application, tracker: ChangeTracker) -> None:
    web_app[CHANGES] = tracker
    web_app.router.add_get("/api/changes", list_changes)
