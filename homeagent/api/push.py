"""`GET /api/events`: the push channel as Server-Sent Events, per member, resumable.

A client that accepts `text/event-stream` (a browser's EventSource does) gets an open
stream: first what it missed after `Last-Event-ID` (or `?after=`), then each new event
as it is delivered, with a `: keepalive` comment when nothing happened for a while.
Without `Last-Event-ID` or `after` the stream starts with the next new event. A client
that does not accept event streams gets the stored events after `after` (from the start
when absent, at most `limit`) and the response ends: a poll.

Each frame is `id: <event id>`, `event: <type>` ("reminder"), `data: <json>`; the id
is what EventSource sends back as `Last-Event-ID` when it reconnects. A followed stream
opens with `id: <cursor>` and `retry: 3000` (no data), so even a client that saw no event
yet resumes from where it started. A subscription sees
its member's events and the household's (the member comes from the token; an
EventSource passes it as `?access_token=`, as it cannot set headers).
"""

from __future__ import annotations

import contextlib

from aiohttp import web

from homeagent.api.auth import member_of
from homeagent.api.sse import SSE_HEADERS, sse_frame
from homeagent.errors import RequestError
from homeagent.io.push import PushChannel

PUSH = web.AppKey("homeagent.channel.push", PushChannel)
KEEPALIVE = web.AppKey("homeagent.push.keepalive", float)
PATH = "/api/events"
_MAX_ID = 2**62


def _cursor(request: web.Request) -> int | None:
    header = request.headers.get("Last-Event-ID", "").strip()
    raw, name = (header, "Last-Event-ID") if header else (request.query.get("after", "").strip(), "after")
    if not raw:
        return None
    if not raw.isdigit() or int(raw) > _MAX_ID:
        raise RequestError(f"{name}: expected an event id (a non-negative integer)", param=name)
    return int(raw)


async def events(request: web.Request) -> web.StreamResponse:
    push = request.app[PUSH]
    member = member_of(request)
    after = _cursor(request)
    raw_limit = request.query.get("limit", "100").strip()
    if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= 500:
        raise RequestError("limit: expected an integer from 1 to 500", param="limit")
    follow = "text/event-stream" in request.headers.get("Accept", "")
    response = web.StreamResponse(headers=SSE_HEADERS)
    if not follow:
        await response.prepare(request)
        for event in await push.after(member, after or 0, int(raw_limit)):
            await response.write(sse_frame(event.type, event.data, event.id))
        await response.write_eof()
        return response
    if after is None:
        after = await push.latest_id()
    await response.prepare(request)
    # The opening frame carries the cursor (an id-only frame): a client that reconnects before
    # any event came resumes from here, not from whatever is newest by then.
    await response.write(f"id: {after}\nretry: 3000\n\n".encode())
    # aclosing: a client that leaves ends its subscription at once, not when collected.
    async with contextlib.aclosing(push.follow(member, after, keepalive=request.app[KEEPALIVE])) as stream:
        async for pushed in stream:
            if pushed is None:
                await response.write(b": keepalive\n\n")
            else:
                await response.write(sse_frame(pushed.type, pushed.data, pushed.id))
    return response  # pragma: no cover - the stream ends when the client or the server goes


def setup_push(web_app: web.Application, push: PushChannel | None, keepalive: float) -> None:
    """Serve `GET /api/events` when the daemon has a push channel."""
    if push is None:
        return
    web_app[PUSH] = push
    web_app[KEEPALIVE] = keepalive
    web_app.router.add_get(PATH, events)
