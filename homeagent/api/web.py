"""The browser dashboard: its static files and the read routes its pages use.

    GET    /                        the page (homeagent/web/index.html)
    GET    /web/{name}              its scripts and styles (no build step: plain ES modules)
    GET    /api/me                  who the token speaks for; whether it sees settings
    GET    /api/memory/graph?q=&include_past=&limit=&offset=
    DELETE /api/memory/facts/{fact_id}
    GET    /api/memory/documents?q=&limit=&offset=
    GET    /api/memory/context
    GET    /api/status              provider chain, cooldowns, usage and budget, heartbeats
    GET    /api/settings            the running configuration (the household token only)

The static files carry no data and load without a token (the page asks for one, keeps
it in the browser and sends it on every API call); every route under /api needs it as
soon as a token is configured. A member's token reads that member's memory and the
household's; the household token reads everything and the settings.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from aiohttp import web

from homeagent.api import records
from homeagent.api.auth import MEMBER
from homeagent.api.bodies import int_param
from homeagent.api.web_deps import WEB, WebDeps
from homeagent.errors import NotFoundError, RequestError

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
          ".json": "application/json", ".txt": "text/plain"}


def static_files() -> dict[str, Path]:
    """URL path → file, for every file the dashboard ships (read once at start)."""
    if not WEB_DIR.is_dir():
        return {}
    files = {f"/web/{p.relative_to(WEB_DIR).as_posix()}": p for p in sorted(WEB_DIR.rglob("*"))
             if p.is_file() and p.suffix in _TYPES}
    if (WEB_DIR / "index.html").is_file():
        files["/"] = WEB_DIR / "index.html"
    return files


# The paths served without a token: the shell of the page, never data.
STATIC_PATHS = frozenset(static_files())


def _reader(request: web.Request) -> str | None:
    return request.get(MEMBER) or None


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


def _flag(request: web.Request, name: str, default: bool) -> bool:
    raw = request.query.get(name)
    if raw is None:
        return default
    if raw.lower() not in ("true", "false", "1", "0"):
        raise RequestError(f"{name}: expected true or false, got {raw!r}", param=name)
    return raw.lower() in ("true", "1")


def _static(files: dict[str, Path]) -> Any:
    async def serve(request: web.Request) -> web.StreamResponse:
        path = files.get(request.path)
        if path is None:
            raise NotFoundError(f"no file {request.path}")
        return web.FileResponse(path, headers={"Content-Type": _TYPES[path.suffix] + "; charset=utf-8",
                                                "Cache-Control": "no-cache"})

    return serve


async def me(request: web.Request) -> web.Response:
    member = request.get(MEMBER)
    return web.json_response({"member": member or "", "admin": not member})


async def memory_graph(request: web.Request) -> web.Response:
    deps = request.app[WEB]
    limit = int_param(request, "limit", 200, 1, 1000)
    offset = int_param(request, "offset", 0, 0, 2**31)
    facts = await deps.graph.facts_page(
        reader=_reader(request), query=request.query.get("q", "")[:200],
        include_past=_flag(request, "include_past", True), limit=limit, offset=offset,
    )
    ids = sorted({i for f in facts for i in (f.subject_id, f.object_id)})
    entities = await deps.graph.entities(ids)
    return web.json_response({
        "facts": [{"id": f.id, "subject": f.subject, "relation": f.relation, "object": f.object,
                   "subject_id": f.subject_id, "object_id": f.object_id, "confidence": f.confidence,
                   "valid_from": f.valid_from, "valid_to": f.valid_to, "current": f.current,
                   "mentions": f.mention_count, "source": f.source, "shared": f.member == ""}
                  for f in facts],
        "entities": [{"id": e.id, "name": e.name, "type": e.type, "mentions": e.mention_count}
                     for e in (entities[i] for i in ids if i in entities)],
        "next_offset": offset + len(facts) if len(facts) == limit else None,
    }, dumps=_dumps)


async def forget_fact(request: web.Request) -> web.Response:
    raw = request.match_info["fact_id"]
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise RequestError(f"fact id: expected an integer of at most 18 digits, got {raw!r}", param="fact_id")
    if not await request.app[WEB].graph.forget_fact(int(raw), reader=_reader(request)):
        raise NotFoundError(f"fact {raw} does not exist")
    return web.json_response({"id": int(raw), "deleted": True})


def _doc(d: Any, score: float | None = None) -> dict[str, Any]:
    return {"id": d.id, "summary": d.summary, "source": d.source, "tags": list(d.tags),
            "entities": list(d.entities), "access_count": d.access_count,
            "last_access": d.last_access.timestamp() if d.last_access else None,
            "created_at": d.created_at.timestamp(), "shared": d.member == "", "score": score}


async def memory_documents(request: web.Request) -> web.Response:
    deps = request.app[WEB]
    limit = int_param(request, "limit", 50, 1, 500)
    offset = int_param(request, "offset", 0, 0, 2**31)
    query = request.query.get("q", "").strip()[:500]
    if query:
        # Looking is not using: a search from the dashboard leaves the access counts alone.
        hits = await deps.documents.query(query, limit, touch=False, reader=_reader(request))
        items = [_doc(h.document, round(float(h.score), 4)) for h in hits]
    else:
        items = [_doc(d) for d in await deps.documents.recent(reader=_reader(request), limit=limit, offset=offset)]
    return web.json_response({"documents": items}, dumps=_dumps)


async def memory_context(request: web.Request) -> web.Response:
    entries = request.app[WEB].context.entries(_reader(request))
    return web.json_response({"entries": [
        {"seq": e.seq, "turn_id": e.turn_id, "role": e.role, "content": e.content, "created_at": e.created_at}
        for e in entries
    ]}, dumps=_dumps)


async def status(request: web.Request) -> web.Response:
    deps = request.app[WEB]
    provider = deps.provider.status()
    extra = {k: v for k, v in provider.extra.items() if k != "path"}
    since = (date.fromisoformat(deps.usage.today()) - timedelta(days=6)).isoformat()  # the home's days
    usage = [r.as_dict() for r in await deps.usage.rows(since)]
    return web.json_response({
        "provider": {"name": provider.name, "model": provider.model, "state": provider.state,
                     "detail": provider.detail, **extra},
        "model": provider.model,
        "usage": usage,
        "budget": {"cloud_tokens_today": deps.usage.cloud_tokens_today(),
                   "daily_cloud_tokens": extra.get("daily_cloud_tokens")},
        "heartbeats": list(deps.heartbeats())[-20:],
        "tools": len(deps.tools),
    }, dumps=_dumps)


async def settings(request: web.Request) -> web.Response:
    if request.get(MEMBER):
        raise records.Forbidden("settings: only the household token may read them")
    deps = request.app[WEB]
    members = [{"name": m.name, "created_at": m.created_at, "active": m.active} for m in await deps.members.list()]
    return web.json_response({"config": deps.settings(), "members": members}, dumps=_dumps)


def setup_web(web_app: web.Application, deps: WebDeps | None) -> None:
    """Add the dashboard: its files and its routes (the server registers its channel)."""
    if deps is None:
        return
    web_app[WEB] = deps
    files = static_files()
    if "/" in files:
        web_app.router.add_get("/", _static(files))
        web_app.router.add_get("/web/{name:.+}", _static(files))
    web_app.router.add_get("/api/me", me)
    records.add_routes(web_app)
    web_app.router.add_get("/api/memory/graph", memory_graph)
    web_app.router.add_delete("/api/memory/facts/{fact_id}", forget_fact)
    web_app.router.add_get("/api/memory/documents", memory_documents)
    web_app.router.add_get("/api/memory/context", memory_context)
    web_app.router.add_get("/api/status", status)
    web_app.router.add_get("/api/settings", settings)

