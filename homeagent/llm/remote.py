"""The common part of providers that talk HTTP: session, retries, errors, status.

A subclass implements `_attempt(request)` (one HTTP exchange yielding provider events,
raising `UpstreamFailure`), `_probe()` (a cheap request that costs no tokens) and
`list_models()`. `RemoteProvider.stream` adds the retry policy, turns failures into
`StreamError`s whose `kind` is the failure class, logs them, and keeps the state that
`status()` (and so /healthz and `homeagent doctor`) reports. A provider without a key
that needs one never opens a connection: it reports `skipped` / `missing_credential`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

import aiohttp
import anyio

from homeagent.llm.base import (
    ChatRequest,
    ProviderBase,
    ProviderEvent,
    ProviderStatus,
    StreamDone,
    StreamError,
)
from homeagent.llm.credentials import Secret
from homeagent.llm.failures import MISSING_CREDENTIAL, UpstreamFailure, describe
from homeagent.llm.http import HttpOptions, classify_client_error, new_session, retrying
from homeagent.log import get_logger

log = get_logger("homeagent.llm.remote")


class RemoteProvider(ProviderBase):
    type = "remote"
    supports_grammar = False
    needs_key = False

    def __init__(
        self,
        *,
        name: str,
        base_url: str,
        model: str,
        api_key: Secret | None = None,
        supports_tools: bool = True,
        options: HttpOptions | None = None,
        cloud: bool = True,
        key_hint: str = "",
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    ):
        self.name = name
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.supports_tools = supports_tools
        self.cloud = cloud
        self.options = options or HttpOptions()
        self._secret = api_key or Secret("")
        self._key_hint = key_hint
        self._sleep = sleep
        self._session: aiohttp.ClientSession | None = None
        self._state = "ready"
        self._error_kind = ""
        self._detail = ""
        self._last_ok: float | None = None
        self._last_error_at: float | None = None
        self.requests = 0
        self.retries = 0
        if self.needs_key and not self._secret:
            self._state, self._error_kind = "skipped", MISSING_CREDENTIAL
            self._detail = "no API key" + (f" (set {key_hint})" if key_hint else "")

    # -- lifecycle ----------------------------------------------------------------------

    @property
    def available(self) -> bool:
        """False when the provider cannot work at all as configured (no key)."""
        return not (self.needs_key and not self._secret)

    def _headers(self) -> dict[str, str]:
        headers = {"User-Agent": "homeagent"}
        if self._secret:
            headers["Authorization"] = f"Bearer {self._secret.reveal()}"
        return headers

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = new_session(self.options, self._headers())
        return self._session

    async def start(self) -> None:
        return None  # no network at start: a dead upstream must not delay the daemon

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    # -- status -------------------------------------------------------------------------

    def status(self) -> ProviderStatus:
        extra: dict[str, Any] = {
            "type": self.type,
            "base_url": self.base_url,
            "cloud": self.cloud,
            "supports_tools": self.supports_tools,
            "requests": self.requests,
            "retries": self.retries,
        }
        if self._error_kind:
            extra["error_kind"] = self._error_kind
        if self._last_ok is not None:
            extra["last_ok_s_ago"] = round(time.monotonic() - self._last_ok, 1)
        return ProviderStatus(self.name, self.model, self._state, self._detail, extra)  # type: ignore[arg-type]

    def _ok(self) -> None:
        self._state, self._error_kind, self._detail = "ready", "", ""
        self._last_ok = time.monotonic()

    def _failed(self, failure: UpstreamFailure) -> None:
        self._state, self._error_kind, self._detail = "error", failure.kind, str(failure)
        self._last_error_at = time.monotonic()
        log.warning(
            "llm.provider.failed",
            provider=self.name,
            model=self.model,
            error_kind=failure.kind,
            status=failure.status,
            error=str(failure),
        )

    # -- requests -----------------------------------------------------------------------

    def _missing_key(self) -> StreamError:
        return StreamError(
            f"{self.name}: {describe(MISSING_CREDENTIAL)}"
            + (f"; set {self._key_hint}" if self._key_hint else ""),
            retryable=False,
            kind=MISSING_CREDENTIAL,
        )

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        if not self.available:
            yield self._missing_key()
            return
        self.requests += 1

        def on_retry(failure: UpstreamFailure, retry: int, delay: float) -> None:
            self.retries += 1
            log.info(
                "llm.provider.retry",
                provider=self.name,
                error_kind=failure.kind,
                retry=retry,
                delay_s=round(delay, 2),
            )

        try:
            async for event in retrying(
                lambda: self._guarded(request), options=self.options, sleep=self._sleep, on_retry=on_retry
            ):
                if isinstance(event, StreamDone):
                    self._ok()  # before yielding: the consumer may stop reading here
                yield event
        except UpstreamFailure as failure:
            self._failed(failure)
            yield StreamError(str(failure), retryable=failure.retryable, kind=failure.kind)

    async def _guarded(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        """One attempt, with transport exceptions classified."""
        produced = False
        try:
            async for event in self._attempt(request):
                produced = True
                yield event
        except UpstreamFailure:
            raise
        except (aiohttp.ClientError, TimeoutError) as err:
            raise classify_client_error(err, connecting=not produced, name=self.name) from err

    def _attempt(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        raise NotImplementedError

    async def _probe(self) -> None:
        raise NotImplementedError

    async def probe(self) -> str:
        """A request that costs no tokens: '' when the upstream answers, else the failure kind."""
        if not self.available:
            return MISSING_CREDENTIAL
        try:
            try:
                await self._probe()
            except (aiohttp.ClientError, TimeoutError) as err:
                raise classify_client_error(err, connecting=True, name=self.name) from err
        except UpstreamFailure as failure:
            self._failed(failure)
            return failure.kind
        self._ok()
        return ""
