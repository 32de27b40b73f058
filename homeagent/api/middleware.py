"""Middlewares: the one error mapper (OpenAI-shaped bodies), and CORS.

Routes raise `RequestError`s (a domain result that is the client's fault is turned into
one where the route reads it, e.g. homeagent/api/permissions.py); `error_middleware` is
the one place they become HTTP statuses and error bodies.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from homeagent.api import bodies
from homeagent.api.keys import MAX_BODY_BYTES
from homeagent.errors import HomeAgentError, RequestError
from homeagent.log import get_logger, redact_text

log = get_logger("homeagent.api")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_HTTP_CODES = {
    400: "invalid_request_error",
    401: "invalid_api_key",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    413: "request_too_large",
    415: "unsupported_media_type",
    429: "rate_limit_exceeded",
}


def error_body(message: str, *, type_: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code or type_}}


def error_response(status: int, message: str, *, code: str | None = None, param: str | None = None) -> web.Response:
    type_ = "server_error" if status >= 500 else _HTTP_CODES.get(status, "invalid_request_error")
    return web.json_response(
        error_body(redact_text(message), type_=type_, code=code or type_, param=param),
        status=status,
        dumps=lambda o: json.dumps(o, ensure_ascii=False),
    )


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except RequestError as err:
        response = error_response(err.status, str(err), code=err.code, param=err.param)
        if err.status == 429:
            response.headers["Retry-After"] = "60"
        return response
    except web.HTTPRequestEntityTooLarge:
        limit = request.app.get(MAX_BODY_BYTES)
        where = f": the limit is {limit} bytes" if limit is not None else ""
        return error_response(413, f"request body too large{where}", code="request_too_large")
    except web.HTTPException as err:
        if err.status < 400:
            raise
        reason = err.text if err.text and not err.text.startswith(str(err.status)) else err.reason
        response = error_response(err.status, reason or "request failed")
        if "Allow" in err.headers:
            response.headers["Allow"] = err.headers["Allow"]
        return response
    except sqlite3.OperationalError as err:
        if "full" not in str(err):
            log.exception("api.request.crashed", path=request.path)
            return error_response(500, "internal server error", code="internal_error")
        # Reads keep working; this write waits for space (nothing is half-stored).
        log.error("api.request.disk_full", path=request.path, error=str(err))
        response = error_response(
            507, "the disk is full: HomeAgent cannot store this request; free space and retry",
            code="insufficient_storage",
        )
        response.headers["Retry-After"] = "60"
        return response
    except HomeAgentError as err:
        log.warning("api.request.failed", path=request.path, error=str(err))
        return error_response(500, str(err), code="internal_error")
    except Exception:  # noqa: BLE001 - never a traceback to the client
        log.exception("api.request.crashed", path=request.path)
        return error_response(500, "internal server error", code="internal_error")


def cors_middleware(origins: tuple[str, ...]) -> Callable[..., Any]:
    allowed = frozenset(origins)

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        origin = request.headers.get("Origin", "")
        ok = origin and ("*" in allowed or origin in allowed)
        if request.method == "OPTIONS" and ok:
            response: web.StreamResponse = web.Response(status=204)
        else:
            response = await handler(request)
        if ok and not response.prepared:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type, Last-Event-ID"
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
            response.headers["Vary"] = "Origin"
        return response

    return middleware


async def read_json(request: web.Request) -> dict[str, Any]:
    """The request's JSON object body, or a 4xx naming what is wrong with it
    (size, nesting and lone surrogates are checked by homeagent/api/bodies.py)."""
    return await bodies.read_json(request)
