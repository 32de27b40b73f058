"""Reading what a client sends, before any of it is trusted: bodies, text, headers.

Every route that takes a JSON body reads it with `read_json` (or `parse_json_object` on
bytes it already holds), which refuses, each with a 4xx naming the problem:

- a body over the size limit (413), read in chunks so a lying Content-Length cannot
  make it buffer more;
- JSON nested deeper than `MAX_JSON_DEPTH`, checked on the raw bytes *before* parsing
  (the stdlib parser recurses and a 100,000-deep array would raise RecursionError);
- text that is not UTF-8, and JSON string escapes that decode to a lone UTF-16 surrogate
  (`"\\ud800"`): such a string cannot be stored, logged or sent on, so it is refused at
  the door with the path of the field that holds it.

One message limit holds on every route that starts a turn: `MAX_MESSAGE_CHARS`
(`check_message`). Headers are checked here too: `parse_last_event_id` for resumable
streams, `header_text` for anything that must be printable ASCII (Authorization).
Outbound, `scrub` replaces any lone surrogate a model produced with U+FFFD so a frame
can always be encoded.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from aiohttp import web

from homeagent.api.keys import MAX_BODY_BYTES
from homeagent.errors import RequestError

MAX_JSON_DEPTH = 64
# The longest message that starts a turn, on every route (/api/chat, /v1, runs).
MAX_MESSAGE_CHARS = 32_000
MAX_EVENT_ID = 2**62
# A schema pattern for "holds something besides whitespace", spelled out as the characters
# str.strip() removes (str.isspace). A bare \S means something else in an ECMA regex
# (the dialect OpenAPI documents and schema-driven clients use): it takes U+001C..U+001F
# and U+0085 for text, so a client trusting the document would send a body we refuse.
NOT_BLANK = r"[^\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"

_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_STRING = re.compile(rb'"(?:[^"\\]+|\\.)*"', re.DOTALL)
_DEPTH = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _DEPTH)


class PayloadTooLarge(RequestError):
    status = 413
    code = "request_too_large"


async def read_limited(request: web.Request, limit: int, what: str = "request body") -> bytes:
    """The body's bytes, or a 413 as soon as more than `limit` arrived."""
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"{what} too large: the limit is {limit} bytes")
    data = bytearray()
    async for chunk in request.content.iter_chunked(65536):
        data += chunk
        if len(data) > limit:
            raise PayloadTooLarge(f"{what} too large: the limit is {limit} bytes")
    return bytes(data)


def json_depth(raw: bytes) -> int:
    """How deep arrays and objects nest in `raw`, brackets inside strings not counted."""
    brackets = _JSON_STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    return max(itertools.accumulate(_DEPTH[b] for b in brackets))


def surrogate_path(value: Any, path: str = "") -> str | None:
    """Where in a parsed JSON value a string (or key) holds a lone surrogate, or None."""
    if isinstance(value, str):
        return path or "(body)" if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if _SURROGATE.search(key):
                return _SURROGATE.sub("?", where)
            if (found := surrogate_path(item, where)) is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if (found := surrogate_path(item, f"{path}[{i}]")) is not None:
                return found
    return None


def parse_json(raw: bytes, *, what: str = "request body", max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Any JSON value from untrusted bytes, or a 400 naming what is wrong with it."""
    if not raw.strip():
        raise RequestError(f"{what} is empty: expected a JSON object")
    if (depth := json_depth(raw)) > max_depth:
        raise RequestError(f"{what}: JSON nested deeper than {max_depth} levels ({depth})")
    try:
        value = json.loads(raw)
    except UnicodeDecodeError as err:
        raise RequestError(f"{what} is not UTF-8 text") from err
    except json.JSONDecodeError as err:
        raise RequestError(f"{what} is not valid JSON: {err.msg} at line {err.lineno} column {err.colno}") from err
    except RecursionError as err:  # the depth check should make this unreachable
        raise RequestError(f"{what}: JSON nested too deeply") from err
    if (where := surrogate_path(value)) is not None:
        raise RequestError(
            f"{where}: contains a lone UTF-16 surrogate escape (such as \\ud800), which is not text; "
            "send valid Unicode",
            param=where.split(".")[0].split("[")[0],
        )
    return value


def parse_json_object(raw: bytes, *, what: str = "request body", max_depth: int = MAX_JSON_DEPTH) -> dict[str, Any]:
    value = parse_json(raw, what=what, max_depth=max_depth)
    if not isinstance(value, dict):
        raise RequestError(f"{what} must be a JSON object, got {type(value).__name__}")
    return value


async def read_json(request: web.Request, *, limit: int | None = None, max_depth: int = MAX_JSON_DEPTH) -> dict[str, Any]:
    """The request's JSON object body, size- and depth-limited, surrogate-free.

    `limit` defaults to the app's client_max_size (api.max_body_bytes)."""
    cap = limit if limit is not None else request.app.get(MAX_BODY_BYTES, 1_048_576)
    return parse_json_object(await read_limited(request, cap), max_depth=max_depth)


def check_message(text: str, param: str) -> str:
    """A turn's message: within the one limit every route shares."""
    if len(text) > MAX_MESSAGE_CHARS:
        raise RequestError(
            f"{param}: {len(text)} characters, longer than the limit of {MAX_MESSAGE_CHARS}", param=param
        )
    return text


def header_text(request: web.Request, name: str) -> str | None:
    """A header that must be printable ASCII; None when absent, a 400 when it is not text.

    aiohttp decodes header bytes as UTF-8 with surrogateescape, so a byte such as 0xff
    arrives as a lone surrogate that no later `.encode()` survives."""
    value = request.headers.get(name)
    if value is None:
        return None
    if not (value.isascii() and value.isprintable()):
        raise RequestError(f"{name} header: expected printable ASCII", param=name)
    return value


def parse_last_event_id(raw: str | None) -> int | None:
    """The `Last-Event-ID` of a resumed stream: a sequence number, or a 400 before the stream."""
    if raw is None or not raw.strip():
        return None
    value = raw.strip()
    digits = value.removeprefix("-")
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 19) or not -1 <= int(value) <= MAX_EVENT_ID:
        shown = _SURROGATE.sub("?", value[:40])
        raise RequestError(
            f"Last-Event-ID: expected an event sequence number from 0 to {MAX_EVENT_ID}, got {shown!r}",
            param="Last-Event-ID",
        )
    return max(int(value), 0)


def scrub(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD, so it can be encoded."""
    return _SURROGATE.sub("\ufffd", text)


def dumps(obj: Any) -> str:
    """JSON for the wire: non-ASCII kept, never unencodable."""
    return scrub(json.dumps(obj, ensure_ascii=False, default=str))


def int_param(request: web.Request, name: str, default: int, lo: int, hi: int) -> int:
    """An integer query parameter in [lo, hi] (`default` when absent); a 400 naming it and
    the range otherwise."""
    raw = request.query.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError as err:
        raise RequestError(f"{name}: expected an integer from {lo} to {hi}, got {raw!r}", param=name) from err
    if not lo <= value <= hi:
        raise RequestError(f"{name}: expected an integer from {lo} to {hi}, got {value}", param=name)
    return value
