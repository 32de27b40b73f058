"""What the HTTP providers share: timeouts, sessions, error classification, retries, SSE.

`HttpOptions` carries the connect and read timeouts (the read timeout bounds the gap
between two chunks of a streamed answer, not the whole answer) and the retry policy.
`classify_client_error` and `failure_from_response` turn aiohttp exceptions and HTTP
error responses into `UpstreamFailure`s with a kind from `homeagent.llm.failures`.
`retrying` runs one provider attempt after another until one succeeds, the error is not
retryable, output has already reached the consumer, or the retries are used up.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import anyio

from homeagent.llm.credentials import Secret
from homeagent.llm.failures import (
    MALFORMED_RESPONSE,
    TIMEOUT,
    UPSTREAM_UNAVAILABLE,
    Backoff,
    UpstreamFailure,
    classify_status,
    describe,
    parse_retry_after,
)

MAX_ERROR_BODY = 4096


@dataclass(frozen=True)
class HttpOptions:
    connect_timeout: float = 5.0
    read_timeout: float = 60.0
    max_retries: int = 3
    backoff: Backoff = field(default_factory=Backoff)

    def client_timeout(self) -> aiohttp.ClientTimeout:
        return aiohttp.ClientTimeout(
            total=None, sock_connect=self.connect_timeout, sock_read=self.read_timeout
        )


def new_session(options: HttpOptions, headers: dict[str, str] | None = None) -> aiohttp.ClientSession:
    # trust_env: HTTP(S)_PROXY / NO_PROXY apply, as many homes reach the cloud via a proxy.
    return aiohttp.ClientSession(
        timeout=options.client_timeout(),
        headers=headers or {},
        trust_env=True,
        connector=aiohttp.TCPConnector(limit=8, ttl_dns_cache=300),
    )


def classify_client_error(err: BaseException, *, connecting: bool, name: str) -> UpstreamFailure:
    """An aiohttp/timeout exception as an `UpstreamFailure` (message without secrets)."""
    if isinstance(err, aiohttp.ConnectionTimeoutError):
        return UpstreamFailure(TIMEOUT, f"{name}: connecting timed out", connecting=True)
    if isinstance(err, TimeoutError):
        phase = "waiting for the answer" if not connecting else "waiting for a response"
        return UpstreamFailure(TIMEOUT, f"{name}: timed out {phase}", connecting=False)
    if isinstance(err, aiohttp.ClientConnectorError):
        reason = type(err.os_error).__name__ if err.os_error else "connection failed"
        return UpstreamFailure(
            UPSTREAM_UNAVAILABLE,
            f"{name}: cannot connect to {err.host}:{err.port} ({reason})",
            connecting=True,
        )
    if isinstance(err, aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError):
        return UpstreamFailure(
            UPSTREAM_UNAVAILABLE, f"{name}: the connection was dropped mid-answer", connecting=connecting
        )
    if isinstance(err, aiohttp.InvalidURL):
        return UpstreamFailure(UPSTREAM_UNAVAILABLE, f"{name}: invalid URL {err.url}", connecting=True)
    return UpstreamFailure(
        UPSTREAM_UNAVAILABLE, f"{name}: {type(err).__name__}", connecting=connecting
    )


async def failure_from_response(
    resp: aiohttp.ClientResponse, *, name: str, secret: Secret | None = None
) -> UpstreamFailure:
    """The failure an HTTP error status stands for, with the upstream's own message."""
    try:
        raw = await resp.content.read(MAX_ERROR_BODY)
        body = raw.decode("utf-8", errors="replace")
    except (aiohttp.ClientError, TimeoutError):
        body = ""
    kind = classify_status(resp.status, body)
    detail = _error_message(body)
    message = f"{name}: {describe(kind)} (HTTP {resp.status})" + (f": {detail}" if detail else "")
    if secret is not None:
        message = secret.scrub(message)
    return UpstreamFailure(
        kind,
        message,
        status=resp.status,
        retry_after=parse_retry_after(resp.headers.get("Retry-After")),
        connecting=True,
    )


def _error_message(body: str) -> str:
    """`error.message` (OpenAI), `error` (Ollama) or the start of the body text."""
    text = body.strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:200]
    if isinstance(parsed, dict):
        err = parsed.get("error", parsed.get("message", parsed.get("detail")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            return " ".join(str(err).split())[:200]
    return ""


def malformed(name: str, what: str) -> UpstreamFailure:
    return UpstreamFailure(MALFORMED_RESPONSE, f"{name}: malformed response: {what}")


async def retrying(
    attempt: Callable[[], AsyncIterator[Any]],
    *,
    options: HttpOptions,
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    on_retry: Callable[[UpstreamFailure, int, float], None] | None = None,
) -> AsyncIterator[Any]:
    """Yield from `attempt()`, starting it again after a retryable failure.

    A failure after something was yielded is never retried (the consumer has the output
    already); it propagates, as does the last failure when the retries are used up.
    """
    retry = 0
    while True:
        produced = False
        try:
            async for item in attempt():
                produced = True
                yield item
            return
        except UpstreamFailure as failure:
            if produced or not failure.retryable or retry >= options.max_retries:
                raise
            retry += 1
            delay = options.backoff.delay(retry, failure.retry_after)
            if delay is None:
                raise
            if on_retry is not None:
                on_retry(failure, retry, delay)
            await sleep(delay)


async def sse_data(content: aiohttp.StreamReader, name: str) -> AsyncIterator[str]:
    """The `data:` payloads of a Server-Sent Events body, one per event."""
    data: list[str] = []
    try:
        async for raw in content:
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line:
                if data:
                    yield "\n".join(data)
                    data = []
                continue
            if line.startswith(":"):
                continue  # a comment, e.g. a keep-alive
            field_name, _, value = line.partition(":")
            if field_name == "data":
                data.append(value[1:] if value.startswith(" ") else value)
    except UnicodeDecodeError as err:
        raise malformed(name, "the stream is not UTF-8") from err
    except ValueError as err:  # aiohttp: a line longer than its buffer
        raise malformed(name, "a stream line is too long") from err
    if data:
        yield "\n".join(data)


async def json_lines(content: aiohttp.StreamReader, name: str) -> AsyncIterator[Any]:
    """The objects of a JSON-lines body (Ollama's streaming format)."""
    try:
        async for raw in content:
            line = raw.decode("utf-8").strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as err:
                raise malformed(name, f"a stream line is not JSON ({err.msg})") from err
    except UnicodeDecodeError as err:
        raise malformed(name, "the stream is not UTF-8") from err
