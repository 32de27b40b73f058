"""The router: one `Provider` in front of a chain of them, with failover and a budget.

Each request goes to the first provider of the chain that is usable now. A provider is
not usable while it has no key (`skipped`: never a network call), while it cools down
after a failure (1 min, 5 min, 25 min, then 1 h for each further consecutive failure;
after that it is tried again, and `probe_due()` can probe it with a request that costs
no tokens), once it is disabled (a rejected key, an unpaid bill, a wrong model: until
the config changes, i.e. a restart), and — for cloud providers — once today's cloud
tokens reach `daily_cloud_tokens`.

Failover. A provider that fails before its first token is replaced by the next one for
the same request. One that fails mid-answer keeps its partial answer (already streamed
to the user); the next provider is asked to continue from exactly that text. The user
is told once, briefly, per fallback episode (not on every turn while the cloud is down),
and once per day when the budget is used up; the notice is text in the answer unless
the agent asks for `Notice` events (`notices="event"`).

Around every cloud request: PII scrubbing with placeholders restored in the answer and
in tool-call arguments (`privacy.py`); metering of every reply's usage (`usage.py`).
Every route takes native tool requests (an engine without function calling is wrapped in
`homeagent.llm.dialect` where it is built), so a turn can fail over between them freely.

`name`, `model` and the capability flags describe the provider the router would use next.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from homeagent.clock import Clock, SystemClock
from homeagent.llm.base import (
    ChatRequest,
    HealthState,
    Message,
    Notice,
    Provider,
    ProviderBase,
    ProviderEvent,
    ProviderStatus,
    StreamDone,
    StreamError,
    TextDelta,
    ToolCallEvent,
    ToolDef,
    Usage,
    Warmed,
)
from homeagent.llm.failures import BAD_REQUEST, DISABLING, MISSING_CREDENTIAL, TOOLS_UNSUPPORTED
from homeagent.llm.notices import continue_note, notice_text
from homeagent.llm.privacy import Scrubber
from homeagent.llm.usage import UsageMeter
from homeagent.log import get_logger

log = get_logger("homeagent.llm.router")

COOLDOWNS: tuple[float, ...] = (60.0, 300.0, 1500.0, 3600.0)
# Failures that say nothing about the provider's health: no cooldown.
_NO_COOLDOWN = frozenset({BAD_REQUEST, TOOLS_UNSUPPORTED, "context_overflow"})


@dataclass
class Route:
    """One chain entry and the router's view of its health."""

    name: str
    provider: Provider
    cloud: bool = False
    type: str = ""
    failures: int = 0
    cooldown_until: float = 0.0
    disabled_kind: str = ""
    last_kind: str = ""
    last_error: str = ""
    served: int = 0

    def configured(self) -> bool:
        return self.provider.available


class Router(ProviderBase):
    def __init__(
        self,
        routes: Sequence[Route],
        *,
        clock: Clock | None = None,
        meter: UsageMeter | None = None,
        scrubber: Scrubber | None = None,
        daily_cloud_tokens: int = 0,
        notices: Literal["text", "event", "off"] = "text",
        cooldowns: Sequence[float] = COOLDOWNS,
    ):
        if not routes:
            raise ValueError("a router needs at least one provider")
        self.routes = list(routes)
        self._clock = clock or SystemClock()
        self.meter = meter or UsageMeter(clock=self._clock)
        self._scrubber = scrubber
        self._budget = daily_cloud_tokens
        self._notices = notices
        self._cooldowns = tuple(cooldowns)
        # What the engines were primed with, so a switched-in engine is primed the same.
        self._primed: tuple[str, tuple[ToolDef, ...]] | None = None
        self._fallback_told = False
        self._budget_told_day = ""

    # -- what the agent sees ------------------------------------------------------------

    @property
    def name(self) -> str:  # type: ignore[override]
        return self._next().name

    @property
    def model(self) -> str:  # type: ignore[override]
        return self._next().provider.model

    @property
    def supports_tools(self) -> bool:  # type: ignore[override]
        return self._next().provider.supports_tools

    @property
    def supports_grammar(self) -> bool:  # type: ignore[override]
        return self._next().provider.supports_grammar

    @property
    def available(self) -> bool:
        return any(r.configured() for r in self.routes)

    def _now(self) -> float:
        return self._clock.now().timestamp()

    def _over_budget(self) -> bool:
        return self._budget > 0 and self.meter.cloud_tokens_today() >= self._budget

    def _usable(self, route: Route, *, ignore_cooldown: bool = False) -> bool:
        if not route.configured() or route.disabled_kind:
            return False
        if route.cloud and self._over_budget():
            return False
        return ignore_cooldown or route.cooldown_until <= self._now()

    def _plan(self) -> list[Route]:
        """Routes to try in order: the usable ones, else the cooling ones (better than none)."""
        usable = [r for r in self.routes if self._usable(r)]
        if usable:
            return usable
        cooling = [r for r in self.routes if self._usable(r, ignore_cooldown=True)]
        return sorted(cooling, key=lambda r: r.cooldown_until)

    def _next(self) -> Route:
        plan = self._plan()
        return plan[0] if plan else self.routes[0]

    def _preferred(self) -> Route | None:
        """The first route that could serve if nothing were failing (keys present)."""
        return next((r for r in self.routes if r.configured()), None)

    # -- health bookkeeping -------------------------------------------------------------

    def _failed(self, route: Route, error: StreamError) -> None:
        route.last_kind, route.last_error = error.kind, error.message
        if error.kind in DISABLING:
            route.disabled_kind = error.kind
            log.warning("llm.router.disabled", provider=route.name, error_kind=error.kind, error=error.message)
        elif error.kind not in _NO_COOLDOWN:
            route.failures += 1
            seconds = self._cooldowns[min(route.failures, len(self._cooldowns)) - 1]
            route.cooldown_until = self._now() + seconds
            log.warning(
                "llm.router.cooldown",
                provider=route.name,
                error_kind=error.kind,
                failures=route.failures,
                cooldown_s=seconds,
            )

    def _succeeded(self, route: Route, *, served: bool = True) -> None:
        if route.failures or route.cooldown_until:
            log.info("llm.router.recovered", provider=route.name, after_failures=route.failures)
        route.failures, route.cooldown_until, route.last_kind, route.last_error = 0, 0.0, "", ""
        route.served += int(served)
        if route is self._preferred():
            self._fallback_told = False

    async def recover(self) -> list[str]:
        return await self.probe_due()

    async def probe_due(self) -> list[str]:
        """Probe the providers whose cooldown is over (no tokens spent); the recovered names.

        Meant for the daemon's periodic check loop (`daemon.check_interval`).
        """
        recovered = []
        for route in self.routes:
            due = route.failures and route.cooldown_until <= self._now() and not route.disabled_kind
            if not due:
                continue
            kind = await route.provider.probe()
            if kind:
                self._failed(route, StreamError(f"{route.name}: probe failed", kind=kind))
            else:
                self._succeeded(route, served=False)
                recovered.append(route.name)
        return recovered

    # -- notices ------------------------------------------------------------------------

    def _notice(self, key: str, request: ChatRequest, src: Route | None, dst: Route) -> ProviderEvent | None:
        if self._notices == "off":
            return None
        text = notice_text(
            key, request, (src.name, src.type, src.cloud) if src else None, (dst.name, dst.type, dst.cloud)
        )
        log.info("llm.router.notice", notice=key, provider=dst.name)
        if self._notices == "event":
            return Notice(text, kind=key)
        return TextDelta(f"\n\n{text}\n\n" if key == "midstream" else f"{text}\n\n")

    def _episode_notice(self, request: ChatRequest, route: Route, partial: bool, failed: Route | None) -> ProviderEvent | None:
        preferred = self._preferred()
        if route is preferred or preferred is None:
            return None
        if preferred.cloud and self._over_budget() and not preferred.disabled_kind:
            day = self.meter.today()
            if self._budget_told_day == day:
                return None
            self._budget_told_day = day
            return self._notice("budget", request, preferred, route)
        if self._fallback_told:
            return None
        self._fallback_told = True
        return self._notice("midstream" if partial else "failover", request, failed or preferred, route)

    # -- the request --------------------------------------------------------------------

    def _continuation(self, request: ChatRequest, partial: str) -> ChatRequest:
        messages = (*request.messages, Message("assistant", partial), Message("user", continue_note(request)))
        return replace(request, messages=messages)

    def quiet(self) -> QuietRouter:
        """The same router for background work (the memory distiller): same chain, health
        and meter, but it never emits notices, so the user's one notice is not spent on a
        request the user does not read."""
        return QuietRouter(self)

    def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        return self._stream(request, notify=True)

    async def _stream(self, request: ChatRequest, *, notify: bool) -> AsyncGenerator[ProviderEvent, None]:
        plan = self._plan()
        if not plan:
            yield self._nothing_usable()
            return
        partial: list[str] = []
        last_error: StreamError | None = None
        failed_route: Route | None = None
        queue = list(plan)
        bridged_retry: set[str] = set()
        while queue:
            route = queue.pop(0)
            if not self._usable(route, ignore_cooldown=True):
                continue  # disabled, or the budget ran out, since the plan was made
            told = (self._fallback_told, self._budget_told_day)
            notice = self._episode_notice(request, route, bool(partial), failed_route) if notify else None
            outcome = _Outcome()
            async for event in self._run(route, request, "".join(partial), outcome):
                # The notice names the engine answering: it goes out with that engine's
                # first output, never for one that fails before saying anything.
                if notice is not None:
                    yield notice
                    notice = None
                if isinstance(event, TextDelta):
                    partial.append(event.text)
                yield event
            if notice is not None and outcome.error is None:
                yield notice
                notice = None
            if notice is not None:  # this engine did not answer: the next one is announced
                self._fallback_told, self._budget_told_day = told
            if outcome.error is None:
                return
            last_error = outcome.error
            if outcome.calls:
                # The calls arrived complete before the failure; the turn can go on.
                yield StreamDone("tool_calls")
                return
            if outcome.error.kind == TOOLS_UNSUPPORTED and route.name not in bridged_retry:
                bridged_retry.add(route.name)
                queue.insert(0, route)  # the provider now says supports_tools=False
                continue
            failed_route = route
            nxt = queue[0].name if queue else None
            log.warning(
                "llm.router.failover" if nxt else "llm.router.exhausted",
                provider=route.name,
                to=nxt,
                error_kind=outcome.error.kind,
                partial_chars=sum(len(p) for p in partial),
            )
        if partial:
            # Nothing could finish the answer: end it where it stopped, as the turn
            # timeout would, rather than failing a turn the user already reads.
            yield StreamDone("length")
            return
        yield last_error or self._nothing_usable()

    async def _run(
        self, route: Route, request: ChatRequest, partial: str, outcome: _Outcome
    ) -> AsyncGenerator[ProviderEvent, None]:
        """One provider's attempt at the request; failures end up in `outcome.error`."""
        provider = route.provider
        req = self._continuation(request, partial) if partial else request
        scrubber = self._scrubber if route.cloud else None
        if scrubber is not None:
            req = scrubber.scrub_request(req)
        restorer = scrubber.restorer() if scrubber is not None else None
        usage: Usage | None = None
        async with aclosing(provider.stream(req)) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    text = restorer.feed(event.text) if restorer else event.text
                    if text:
                        yield TextDelta(text)
                elif isinstance(event, ToolCallEvent):
                    outcome.calls += 1
                    yield ToolCallEvent(scrubber.restore_call(event.call)) if scrubber else event
                elif isinstance(event, Usage):
                    usage = event
                    yield event
                elif isinstance(event, StreamError):
                    outcome.error = event
                    break
                elif isinstance(event, StreamDone):
                    if restorer is not None and (rest := restorer.finish()):
                        yield TextDelta(rest)
                    await self.meter.record(route.name, provider.model, cloud=route.cloud, usage=usage)
                    self._succeeded(route)
                    yield event
                    return
                else:
                    yield event
        if outcome.error is None:
            outcome.error = StreamError(f"{route.name}: the reply ended without finishing", kind="malformed_response")
        if restorer is not None and (rest := restorer.finish()):
            yield TextDelta(rest)
        await self.meter.record(route.name, provider.model, cloud=route.cloud, usage=usage, failed=True)
        self._failed(route, outcome.error)

    def _nothing_usable(self) -> StreamError:
        reasons = "; ".join(f"{r.name}: {self._route_state(r)[1] or self._route_state(r)[0]}" for r in self.routes)
        return StreamError(f"no language model is available ({reasons})", kind="no_provider")

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        await self.meter.load()
        errors: list[BaseException] = []
        for route in self.routes:
            try:
                await route.provider.start()
            except Exception as err:  # noqa: BLE001 - one broken engine must not stop the others
                route.disabled_kind, route.last_error = "start_failed", str(err)
                errors.append(err)
                log.warning("llm.router.start_failed", provider=route.name, error=str(err))
        if not any(self._usable(r, ignore_cooldown=True) for r in self.routes) and errors:
            raise errors[0]
        log.info(
            "llm.router.ready",
            chain=[r.name for r in self.routes],
            next=self._next().name,
            skipped=[r.name for r in self.routes if not r.configured()],
        )

    async def prime(self, stable_prefix: str, tools: Sequence[ToolDef] = ()) -> None:
        self._primed = (stable_prefix, tuple(tools))
        for route in self.routes:
            if route.disabled_kind or not route.configured():
                continue
            await route.provider.prime(stable_prefix, tools)

    async def warm(self, messages: Sequence[Message], tools: Sequence[ToolDef] = ()) -> Warmed | None:
        """Let the route that will serve the next request prepare for a prompt that
        starts with `messages` (only local engines do; see LlamaCppProvider.warm).
        Returns what that engine reports, None when nothing was prepared."""
        route = self._next()
        if not self._usable(route):
            return None
        return await route.provider.warm(messages, tools)

    async def aclose(self) -> None:
        for route in reversed(self.routes):
            try:
                await route.provider.aclose()
            except Exception as err:  # noqa: BLE001 - close the rest regardless
                log.warning("llm.router.close_failed", provider=route.name, error=str(err))

    async def switch(self, name: str, provider: Provider) -> None:
        """Replace the provider of route `name` (a model switch): start the new one, then
        close the old, so one chat model is loaded at a time after the call."""
        route = next((r for r in self.routes if r.name == name), None)
        if route is None:
            raise KeyError(name)
        await route.provider.aclose()
        route.provider = provider
        route.failures, route.cooldown_until = 0, 0.0
        route.disabled_kind = route.last_kind = route.last_error = ""
        try:
            await provider.start()
        except Exception as err:
            route.disabled_kind, route.last_error = "start_failed", str(err)
            raise
        if self._primed is not None:
            await provider.prime(*self._primed)

    # -- status -------------------------------------------------------------------------

    def _route_state(self, route: Route) -> tuple[str, str]:
        if not route.configured():
            return "skipped", route.provider.status().detail or MISSING_CREDENTIAL
        if route.disabled_kind:
            return "disabled", route.last_error or route.disabled_kind
        if route.cloud and self._over_budget():
            return "over_budget", f"{self.meter.cloud_tokens_today()} of {self._budget} cloud tokens used today"
        if route.cooldown_until > self._now():
            left = route.cooldown_until - self._now()
            return "cooling", f"{route.last_kind}: retried in {round(left)} s"
        inner = route.provider.status()
        return inner.state, inner.detail

    def route_status(self, route: Route) -> dict[str, Any]:
        state, detail = self._route_state(route)
        return {
            "name": route.name,
            "type": route.type,
            "model": route.provider.model,
            "state": state,
            "detail": detail,
            "error_kind": route.disabled_kind or route.last_kind,
            "failures": route.failures,
            "cooldown_s": max(0, round(route.cooldown_until - self._now())) if route.cooldown_until else 0,
            "cloud": route.cloud,
            "supports_tools": bool(route.provider.supports_tools),
            "served": route.served,
        }

    def statuses(self) -> list[ProviderStatus]:
        """One status per chain entry, for /healthz and `homeagent doctor`."""
        out = []
        for route in self.routes:
            info = self.route_status(route)
            out.append(ProviderStatus(route.name, route.provider.model, _health_state(info["state"]), info["detail"], info))
        return out

    def status(self) -> ProviderStatus:
        nxt = self._next()
        state, detail = self._route_state(nxt)
        preferred = self._preferred()
        overall = _health_state(state)
        if overall == "ready" and preferred is not None and nxt is not preferred:
            overall, detail = "degraded", f"running on {nxt.name}: {self._route_state(preferred)[1]}"
        extra = {
            "chain": [r.name for r in self.routes],
            "active": nxt.name,
            "cloud_tokens_today": self.meter.cloud_tokens_today(),
            "daily_cloud_tokens": self._budget,
            "providers": [self.route_status(r) for r in self.routes],
        }
        return ProviderStatus(nxt.name, nxt.provider.model, overall, detail, extra)


def _health_state(state: str) -> HealthState:
    mapped = {"cooling": "degraded", "over_budget": "degraded", "disabled": "error"}.get(state, state)
    return cast(HealthState, mapped)


@dataclass
class _Outcome:
    error: StreamError | None = None
    calls: int = 0


class QuietRouter(ProviderBase):
    """A `Router` seen by background callers: no notices; lifecycle (start, prime, warm,
    close) stays with the router, so those are the base class's no-ops here."""

    def __init__(self, router: Router):
        self._router = router

    @property
    def name(self) -> str:  # type: ignore[override]
        return self._router.name

    @property
    def model(self) -> str:  # type: ignore[override]
        return self._router.model

    @property
    def supports_tools(self) -> bool:  # type: ignore[override]
        return self._router.supports_tools

    @property
    def supports_grammar(self) -> bool:  # type: ignore[override]
        return self._router.supports_grammar

    @property
    def available(self) -> bool:
        return self._router.available

    def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        return self._router._stream(request, notify=False)

    def status(self) -> ProviderStatus:
        return self._router.status()
