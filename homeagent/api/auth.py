"""Who is asking: bearer tokens (the household token or a member's), and rate limits.

A token is required on every route but the open ones as soon as the household token is
configured or any member exists. A missing or wrong token gets a 401 that says nothing
about which tokens exist. The member resolved from the token is stored on the request.
"""

from __future__ import annotations

import hmac
import ipaddress
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.typedefs import Middleware

from homeagent.errors import AuthError, RequestError
from homeagent.members import MemberStore

# The member a request speaks for: the member's name, "" for the household token, None
# for an anonymous request (loopback without tokens).
MEMBER: web.RequestKey[str | None] = web.RequestKey("homeagent_member", str | None)  # type: ignore[arg-type]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class RateLimited(RequestError):
    status = 429
    code = "rate_limit_exceeded"


def _loopback(remote: str | None) -> bool:
    try:
        return bool(remote) and ipaddress.ip_address(remote).is_loopback  # type: ignore[arg-type]
    except ValueError:
        return False


@dataclass
class _Bucket:
    tokens: float
    updated: float


@dataclass
class RateLimiter:
    per_minute: int
    include_loopback: bool = False
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    def check(self, key: str, remote: str | None) -> None:
        if self.per_minute <= 0 or (_loopback(remote) and not self.include_loopback):
            return
        now = time.monotonic()
        bucket = self._buckets.setdefault(key, _Bucket(float(self.per_minute), now))
        rate = self.per_minute / 60.0
        bucket.tokens = min(float(self.per_minute), bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now
        if bucket.tokens < 1.0:
            wait = math.ceil((1.0 - bucket.tokens) / rate)
            raise RateLimited(f"rate limit of {self.per_minute} requests per minute exceeded; retry in {wait} s")
        bucket.tokens -= 1.0
        if len(self._buckets) > 10_000:  # forget idle clients
            for k in [k for k, b in self._buckets.items() if now - b.updated > 120][:5000]:
                del self._buckets[k]


def _path_key(path: str, prefixes: tuple[str, ...]) -> str:
    """The token a URL carries as `<prefix><token>/…`, for a client that cannot send
    headers (Home Assistant's Ollama integration); "" when it carries none."""
    for prefix in prefixes:
        if path.startswith(prefix):
            return path[len(prefix):].split("/", 1)[0]
    return ""


def auth_middleware(
    household_token: str, members: MemberStore | None, limiter: RateLimiter, open_paths: frozenset[str],
    query_token_paths: frozenset[str] = frozenset(),
    path_key_prefixes: tuple[str, ...] = (),
) -> Middleware:
    """`query_token_paths`: routes that also take the token as `?access_token=` (a
    browser's EventSource cannot send an Authorization header)."""
    expected = household_token.encode()

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path in open_paths or request.method == "OPTIONS":
            return await handler(request)
        header = request.headers.get("Authorization", "")
        if not header and request.path in query_token_paths and request.query.get("access_token"):
            header = "Bearer " + request.query["access_token"]
        if not header and (key := _path_key(request.path, path_key_prefixes)):
            header = f"Bearer {key}"  # the same token, carried in the URL
        if header and not (header.isascii() and header.isprintable()):
            # aiohttp hands undecodable bytes over as lone surrogates: no token is made of them.
            raise AuthError("invalid Authorization header: expected 'Bearer <token>' in printable ASCII")
        scheme, _, given = header.partition(" ")
        given = given.strip()
        bearer = scheme.lower() == "bearer"
        member: str | None = None
        if bearer and expected and hmac.compare_digest(given.encode(), expected):
            member = ""
        else:
            # Members live in the database: one indexed read per request, so a token added,
            # rotated or revoked while the daemon runs counts at once.
            name, any_active = await members.lookup(given if bearer else "") if members else (None, False)
            if bearer and name:
                member = name
            elif bool(household_token) or any_active:
                raise AuthError("missing or invalid API token: send 'Authorization: Bearer <token>'")
        request[MEMBER] = member
        limiter.check(f"member:{member}" if member else f"addr:{request.remote}", request.remote)
        return await handler(request)

    return middleware


def member_of(request: web.Request, claimed: str = "") -> str:
    """The speaking member: from the token, or a client's claim on open loopback access."""
    member = request.get(MEMBER)
    if member:
        return member
    if member is None and claimed and _loopback(request.remote):
        return claimed
    return ""
