"""Runs over HTTP: create, read, follow (resumable SSE), trace, cancel, list.

    POST /api/agent/runs                       {"input": ...} → 202 with the run id at once
    GET  /api/agent/runs?status=&limit=&before=
    GET  /api/agent/runs/{id}
    GET  /api/agent/runs/{id}/events           SSE, `id: <sequence>` on every frame;
                                               resume with Last-Event-ID or ?after_sequence=
    GET  /api/agent/runs/{id}/trace?after_sequence=&limit=
    POST /api/agent/runs/{id}/cancel
"""

from __future__ import annotations

import json
import math
from typing import Any

from aiohttp import web

from homeagent.agent.runs import RunRecord
from homeagent.api.auth import MEMBER, member_of
from homeagent.api.bodies import check_message, int_param, parse_last_event_id
from homeagent.api.keys import BROKER, RUNS, RUNS_CHANNEL
from homeagent.api.middleware import read_json
from homeagent.api.permissions import answer_response
from homeagent.api.sse import SSE_HEADERS, end_with_error, sse_frame, with_answer_url
from homeagent.errors import NotFoundError, RequestError

_RUN_FIELDS = {"input", "channel", "device_id", "context", "cancel_running", "member"}
_STATUSES = {"queued", "running", "waiting_permission", "completed", "failed", "cancelled", "interrupted"}


def _reader(request: web.Request) -> str | None:
    """Whose runs a request may read: a member's token reads that member's runs and the
    household's; the household token (and open loopback access) reads them all."""
    return request.get(MEMBER) or None


async def _run_or_404(request: web.Request) -> RunRecord:
    hub = request.app[RUNS]
    record = await hub.get(request.match_info["run_id"], _reader(request))
    if record is None:
        raise NotFoundError(f"run {request.match_info['run_id']!r} does not exist")
    return record


async def create_run(request: web.Request) -> web.Response:
    body = await read_json(request)
    unknown = sorted(set(body) - _RUN_FIELDS)
    if unknown:
        raise RequestError(
            f"{unknown[0]}: unknown field; allowed: {', '.join(sorted(_RUN_FIELDS))}", param=unknown[0]
        )
    text = body.get("input")
    if not isinstance(text, str) or not text.strip():
        raise RequestError("input: required, a non-empty string", param="input")
    check_message(text, "input")
    for name in ("channel", "device_id", "context", "member"):
        if not isinstance(body.get(name, ""), str):
            raise RequestError(f"{name}: expected a string", param=name)
    check_message(body.get("context", ""), "context")
    if not isinstance(body.get("cancel_running", False), bool):
        raise RequestError("cancel_running: expected true or false", param="cancel_running")
    channel = body.get("channel") or "api"
    device = body.get("device_id") or (request.remote or "")
    member = member_of(request, body.get("member", ""))
    run_id = await request.app[RUNS_CHANNEL].start(
        text, label=channel, device_id=device, member=member,
        context=body.get("context", ""), cancel_running=body.get("cancel_running", False),
    )
    return web.json_response(
        {"id": run_id, "status": "queued", "events_url": f"/api/agent/runs/{run_id}/events"},
        status=202,
    )


async def get_run(request: web.Request) -> web.Response:
    record = await _run_or_404(request)
    return web.json_response(record.as_dict(), dumps=_dumps)


async def list_runs(request: web.Request) -> web.Response:
    status = request.query.get("status")
    if status is not None and status not in _STATUSES:
        raise RequestError(f"status: expected one of {', '.join(sorted(_STATUSES))}", param="status")
    limit = int_param(request, "limit", 50, 1, 500)
    before_raw = request.query.get("before")
    try:
        before = float(before_raw) if before_raw is not None else None
        if before is not None and not math.isfinite(before):
            raise ValueError(before_raw)
    except ValueError as err:
        raise RequestError("before: expected a creation time (seconds since the epoch)", param="before") from err
    hub = request.app[RUNS]
    records = await hub.list(status=status, limit=limit, before=before, member=_reader(request))
    return web.json_response(
        {"runs": [r.as_dict() for r in records],
         "next_before": records[-1].created_at if len(records) == limit else None},
        dumps=_dumps,
    )


async def run_events(request: web.Request) -> web.StreamResponse:
    record = await _run_or_404(request)
    after = parse_last_event_id(request.headers.get("Last-Event-ID"))
    if after is None:
        after = int_param(request, "after_sequence", 0, -1, 2**62)
    response = web.StreamResponse(headers=SSE_HEADERS)
    await response.prepare(request)
    try:
        async for event in request.app[RUNS].follow(record.id, max(after, 0)):
            payload = with_answer_url(event.type, dict(event.payload), record.id)
            await response.write(sse_frame(event.type, payload, event.sequence))
    except ConnectionError:
        raise  # the client went away
    except Exception as err:  # noqa: BLE001 - the headers went out: end the stream with an error event
        await end_with_error(request, response, err, "reading the run failed; see the daemon log")
        return response
    await response.write_eof()
    return response


async def run_trace(request: web.Request) -> web.Response:
    record = await _run_or_404(request)
    after = max(int_param(request, "after_sequence", 0, -1, 2**62), 0)
    limit = int_param(request, "limit", 200, 1, 1000)
    trace = await request.app[RUNS].trace_page(record.id, after, limit, _reader(request))
    if trace is not None:
        for event in trace["events"]:
            event["data"] = with_answer_url(event["type"], event["data"], record.id)
    return web.json_response(trace, dumps=_dumps)


async def cancel_run(request: web.Request) -> web.Response:
    record = await _run_or_404(request)
    cancelled = request.app[RUNS].cancel(record.id)
    return web.json_response({"id": record.id, "cancelled": cancelled, "status": record.status})


async def answer_permission(request: web.Request) -> web.Response:
    """The user's answer to a pending permission request of a run."""
    record = await _run_or_404(request)
    decision = (await read_json(request)).get("decision")
    return answer_response(request.app[BROKER].answer(record.id, request.match_info["request_id"], decision))


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


def add_routes(web_app: web.Application) -> None:
    web_app.router.add_post("/api/agent/runs", create_run)
    web_app.router.add_get("/api/agent/runs", list_runs)
    web_app.router.add_get("/api/agent/runs/{run_id}", get_run)
    web_app.router.add_get("/api/agent/runs/{run_id}/events", run_events)
    web_app.router.add_get("/api/agent/runs/{run_id}/trace", run_trace)
    web_app.router.add_post("/api/agent/runs/{run_id}/cancel", cancel_run)
    web_app.router.add_post("/api/agent/runs/{run_id}/permissions/{request_id}", answer_permission)
