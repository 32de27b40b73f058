"""The household's records over REST, run through the same actions the agent calls.

    GET  /api/records                      the kinds there are, with their list action
    GET  /api/records/{kind}?…             a list action's filters and paging as query
                                           parameters (tasks, events, habits, shopping,
                                           water, sleep, mood, money, notes, …)
    POST /api/actions/{tool}               {"arguments": {...}, "confirmed": false}
    GET  /api/permissions                  confirmations waiting, from any channel
    POST /api/permissions/{request_id}     {"decision": "allow_once" | "allow_session" | "deny"}

Reads and edits execute in the tool registry, under the member of the token, so what a
member may see is what the actions show that member. Edits pass the household's
permission policy like the agent's calls (a "confirm" action answers 409 until the page
sends `confirmed: true`, which is the user's answer) and are written to the audit log.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from aiohttp import web

from homeagent.api.auth import MEMBER, member_of
from homeagent.api.middleware import read_json
from homeagent.api.permissions import answer_response
from homeagent.api.web_deps import WEB
from homeagent.chat import ToolCall
from homeagent.errors import NotFoundError, RequestError, ToolValidationError
from homeagent.members import visible_to
from homeagent.tools.permissions import Answer, PermissionRequest, execute_guarded
from homeagent.tools.registry import ToolContext, ToolResult

# kind → (list action, fixed arguments)
RECORD_KINDS: dict[str, tuple[str, dict[str, Any]]] = {
    "tasks": ("list_tasks", {}),
    "events": ("list_events", {}),
    "habits": ("list_habits", {}),
    "shopping": ("list_shopping", {}),
    "water": ("list_water", {}),
    "sleep": ("list_health", {"kind": "sleep"}),
    "mood": ("list_moods", {}),
    "health": ("list_health", {}),
    "money": ("list_transactions", {}),
    "subscriptions": ("list_subscriptions", {}),
    "notes": ("list_notes", {}),
    "goals": ("list_goals", {}),
    "countdowns": ("list_countdowns", {}),
    "memos": ("list_memos", {}),
    "inventory": ("list_inventory", {}),
    "birthdays": ("list_birthdays", {}),
}
CHANNEL = "browser"


class Forbidden(RequestError):
    status = 403
    code = "forbidden"


class ConfirmationRequired(RequestError):
    status = 409
    code = "confirmation_required"


def _reader(request: web.Request) -> str | None:
    """A member's token reads that member's and the household's; the household token all."""
    return request.get(MEMBER) or None


def _context(request: web.Request) -> ToolContext:
    device = request.headers.get("X-Device-Id", "")[:100] or (request.remote or "")
    return ToolContext(turn_id=f"web_{uuid.uuid4().hex[:12]}", channel=CHANNEL, device_id=device,
                       member=member_of(request))


def _coerce(name: str, raw: str, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "integer" in kinds:
        try:
            return int(raw)
        except ValueError as err:
            raise RequestError(f"{name}: expected an integer, got {raw!r}", param=name) from err
    if "number" in kinds and "string" not in kinds:
        try:
            return float(raw)
        except ValueError as err:
            raise RequestError(f"{name}: expected a number, got {raw!r}", param=name) from err
    if "boolean" in kinds:
        if raw.lower() not in ("true", "false", "1", "0"):
            raise RequestError(f"{name}: expected true or false, got {raw!r}", param=name)
        return raw.lower() in ("true", "1")
    if "array" in kinds:
        return [part.strip() for part in raw.split(",") if part.strip()]
    return raw


def display_items(result: ToolResult) -> list[Any]:
    """The rows a list action showed, whatever its display hint."""
    hint = result.display
    if hint is None:
        return []
    if hint.kind == "list" and isinstance(hint.data, list):
        return hint.data
    if hint.kind == "data_series" and isinstance(hint.data, dict):
        return list(hint.data.get("rows", []))
    return []


async def list_kinds(request: web.Request) -> web.Response:
    tools = request.app[WEB].tools
    return web.json_response({"kinds": [
        {"kind": kind, "tool": tool, "filters": sorted(set(tools.get(tool).parameters.get("properties", {})) - set(fixed))}  # type: ignore[union-attr]
        for kind, (tool, fixed) in RECORD_KINDS.items() if tool in tools
    ]})


async def list_records(request: web.Request) -> web.Response:
    kind = request.match_info["kind"]
    deps = request.app[WEB]
    if kind not in RECORD_KINDS or RECORD_KINDS[kind][0] not in deps.tools:
        raise NotFoundError(f"no records of kind {kind!r}; kinds: {', '.join(RECORD_KINDS)}")
    tool, fixed = RECORD_KINDS[kind]
    spec = deps.tools.get(tool)
    assert spec is not None
    props: dict[str, Any] = dict(spec.parameters.get("properties", {}))
    args: dict[str, Any] = {}
    for name, raw in request.query.items():
        if name not in props or name in fixed:
            allowed = ", ".join(sorted(set(props) - set(fixed))) or "none"
            raise RequestError(f"{name}: not a filter of {kind}; filters: {allowed}", param=name)
        args[name] = _coerce(name, raw, props[name])
    args.update(fixed)
    try:
        deps.tools.validate(tool, args)
    except ToolValidationError as err:
        raise RequestError(str(err)) from err
    call = ToolCall(id=f"rec_{uuid.uuid4().hex[:8]}", name=tool, arguments=_dumps(args))
    result = await execute_guarded(deps.tools, call, _context(request), gate=deps.gate)
    if not result.ok:
        raise RequestError(result.content.removeprefix("error: "))
    items = display_items(result)
    limit = int(args.get("limit") or 0)
    offset = int(args.get("offset") or 0)
    return web.json_response({
        "kind": kind, "tool": tool, "items": items, "text": result.content,
        "display": result.display.as_dict() if result.display else None,
        "offset": offset,
        "next_offset": offset + len(items) if limit and len(items) >= limit else None,
    }, dumps=_dumps)


class _Confirmed:
    """The page's own confirm dialog already asked the user: the answer is yes, once."""

    async def confirm(self, request: PermissionRequest) -> Answer:
        return "allow_once"


async def run_action(request: web.Request) -> web.Response:
    deps = request.app[WEB]
    name = request.match_info["tool"]
    spec = deps.tools.get(name)
    if spec is None:
        raise NotFoundError(f"no action named {name!r}")
    body = await read_json(request)
    unknown = sorted(set(body) - {"arguments", "confirmed"})
    if unknown:
        raise RequestError(f"{unknown[0]}: unknown field; allowed: arguments, confirmed", param=unknown[0])
    args = body.get("arguments", {})
    if not isinstance(args, dict):
        raise RequestError("arguments: expected an object", param="arguments")
    confirmed = body.get("confirmed", False)
    if not isinstance(confirmed, bool):
        raise RequestError("confirmed: expected true or false", param="confirmed")
    try:
        deps.tools.validate(name, args)
    except ToolValidationError as err:
        raise RequestError(str(err), param="arguments") from err
    decision = deps.gate.policy.decide(spec)
    if decision == "deny":
        raise Forbidden(f"{name} is denied by the household's permission policy")
    if decision == "confirm" and not confirmed:
        raise ConfirmationRequired(f"{name} needs confirmation: send the request again with confirmed: true")
    call = ToolCall(id=f"web_{uuid.uuid4().hex[:8]}", name=name, arguments=_dumps(args))
    result = await execute_guarded(
        deps.tools, call, _context(request), gate=deps.gate, audit=deps.audit, confirmer=_Confirmed()
    )
    return web.json_response({
        "tool": name, "ok": result.ok, "content": result.content,
        "display": result.display.as_dict() if result.display else None,
    }, dumps=_dumps)


def _visible_request(req: PermissionRequest, reader: str | None) -> bool:
    return reader is None or visible_to(req.member, reader)


async def list_permissions(request: web.Request) -> web.Response:
    deps = request.app[WEB]
    reader = _reader(request)
    deps.browser.seen(reader)  # an open page: requests of this reader can be answered here
    pending = [r for r in deps.broker.pending() if _visible_request(r, reader)]
    return web.json_response({"requests": [
        {**r.as_dict(), "member": r.member, "answer_url": f"/api/permissions/{r.request_id}"} for r in pending
    ]}, dumps=_dumps)


async def answer_permission(request: web.Request) -> web.Response:
    deps = request.app[WEB]
    request_id = request.match_info["request_id"]
    found = [r for r in deps.broker.pending() if r.request_id == request_id]
    if not found or not _visible_request(found[0], _reader(request)):
        raise NotFoundError(f"no pending permission request {request_id!r} (it was answered, timed out or never existed)")
    decision = (await read_json(request)).get("decision")
    return answer_response(deps.broker.answer(found[0].run_id, request_id, decision))


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


def add_routes(web_app: web.Application) -> None:
    web_app.router.add_get("/api/records", list_kinds)
    web_app.router.add_get("/api/records/{kind}", list_records)
    web_app.router.add_post("/api/actions/{tool}", run_action)
    web_app.router.add_get("/api/permissions", list_permissions)
    web_app.router.add_post("/api/permissions/{request_id}", answer_permission)
