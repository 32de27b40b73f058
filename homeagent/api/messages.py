"""The one conversation as messages: page through it, forget a message.

    GET    /api/messages?before=&limit=     newest first
    DELETE /api/messages/{id}               forget it everywhere memory holds it
"""

from __future__ import annotations

from aiohttp import web

from homeagent.api.auth import MEMBER
from homeagent.api.bodies import int_param
from homeagent.api.keys import CONVERSATION, FORGET
from homeagent.errors import NotFoundError, RequestError


async def list_messages(request: web.Request) -> web.Response:
    limit = int_param(request, "limit", 50, 1, 500)
    before = int_param(request, "before", -1, 0, 2**62) if "before" in request.query else None
    # A member's token reads that member's messages and the shared ones; the household
    # token (and open loopback access) reads them all.
    page = await request.app[CONVERSATION].page(before=before, limit=limit, member=request.get(MEMBER) or None)
    return web.json_response(
        {"messages": [m.as_dict() for m in page],
         "next_before": page[-1].id if len(page) == limit else None}
    )


async def delete_message(request: web.Request) -> web.Response:
    raw = request.match_info["message_id"]
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise RequestError(f"message id: expected an integer of at most 18 digits, got {raw!r}", param="id")
    message = await request.app[CONVERSATION].get(int(raw), member=request.get(MEMBER) or None)
    if message is None:
        raise NotFoundError(f"message {raw} does not exist")
    forgotten = await request.app[FORGET](message)
    return web.json_response({"id": message.id, "deleted": True, "forgotten": forgotten})


def add_routes(web_app: web.Application) -> None:
    web_app.router.add_get("/api/messages", list_messages)
    web_app.router.add_delete("/api/messages/{message_id}", delete_message)
