"""`/api/reminders`: a member's reminders, and snoozing or acknowledging one by its id.

What a dashboard shows beside the push stream (whose `ref` is `reminder:<id>`):
`GET /api/reminders?limit=` lists the reminders the token's member may see (theirs and
the household's), the latest first; `POST /api/reminders/{id}/snooze` (`{"minutes": n}`,
optional) and `POST /api/reminders/{id}/acknowledge` answer a delivered one, as
"5分钟后再提醒我" and "知道了" do in conversation. Another member's reminder is a 404;
one that is not (or no longer) delivered is a 409.
"""

from __future__ import annotations

from aiohttp import web

from homeagent.api.auth import member_of
from homeagent.api.bodies import parse_json_object, read_limited
from homeagent.errors import NotFoundError, RequestError
from homeagent.schedule import Scheduler

SCHEDULER = web.AppKey("homeagent.scheduler", Scheduler)


class NotDelivered(RequestError):
    status = 409
    code = "reminder_not_delivered"


def _limit(request: web.Request) -> int:
    raw = request.query.get("limit", "50").strip()
    if not raw.isdigit() or not 1 <= int(raw) <= 500:
        raise RequestError("limit: expected an integer from 1 to 500", param="limit")
    return int(raw)


async def _delivered(request: web.Request) -> int:
    raw = request.match_info["reminder_id"]
    if not raw.isdigit() or len(raw) > 18:
        raise NotFoundError(f"no reminder {raw!r}")
    found = await request.app[SCHEDULER].get(member_of(request), int(raw))
    if found is None:
        raise NotFoundError(f"no reminder {raw}")
    if found.status != "delivered":
        raise NotDelivered(f"reminder {found.id} is {found.status}, not delivered: nothing to answer")
    return found.id


async def list_reminders(request: web.Request) -> web.Response:
    found = await request.app[SCHEDULER].recent(member_of(request), _limit(request))
    return web.json_response({"reminders": [r.as_dict() for r in found]})


async def snooze(request: web.Request) -> web.Response:
    reminder_id = await _delivered(request)
    minutes = None
    raw = await read_limited(request, 4096)  # read once: the body is optional here
    if raw.strip():
        minutes = parse_json_object(raw).get("minutes")
        if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, int)
                                    or not 1 <= minutes <= 1440):
            raise RequestError("minutes: expected an integer from 1 to 1440", param="minutes")
    done = await request.app[SCHEDULER].snooze(member_of(request), minutes, reminder_id=reminder_id)
    if done is None:  # answered meanwhile
        raise NotDelivered(f"reminder {reminder_id} was answered meanwhile")
    reminder, until = done
    return web.json_response({"id": reminder.id, "status": "snoozed",
                              "until": until.isoformat(timespec="seconds")})


async def acknowledge(request: web.Request) -> web.Response:
    reminder_id = await _delivered(request)
    if await request.app[SCHEDULER].acknowledge(member_of(request), reminder_id=reminder_id) is None:
        raise NotDelivered(f"reminder {reminder_id} was answered meanwhile")
    return web.json_response({"id": reminder_id, "status": "acknowledged"})


def setup_reminders(web_app: web.Application, scheduler: Scheduler | None) -> None:
    if scheduler is None:
        return
    web_app[SCHEDULER] = scheduler
    web_app.router.add_get("/api/reminders", list_reminders)
    web_app.router.add_post("/api/reminders/{reminder_id}/snooze", snooze)
    web_app.router.add_post("/api/reminders/{reminder_id}/acknowledge", acknowledge)
