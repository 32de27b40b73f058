"""The agent core: consumes the inbox and runs one turn at a time.

A turn: build the prompt (stable prefix first), run the tool loop against the provider,
stream visible text to the asker's reply handle, then persist the exchange. The agent
speaks one tool dialect, native tool calls: it offers the registry's tools with a
`tool_choice` and reads calls back (a model that cannot call functions is translated
below, in the llm layer). The calls of one round run concurrently, each under its own
timeout, and results are fed back in call order. After `max_tool_rounds` rounds the
model is asked for a final answer with `tool_choice="none"`.

Whether a permission can be asked for during the turn is the asking channel's
capability (`interrupt.capabilities.confirms`), never its name.

A turn can be cancelled by its asker (the reply handle's cancel request) or by a newer
interrupt from a channel that asks for it; cancellation stops generation and writes no
half-finished record.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream

from homeagent.agent.conversation import Conversation
from homeagent.agent.prompt import PromptBuilder
from homeagent.agent.runs import RunHub
from homeagent.clock import Clock
from homeagent.config import AgentConfig
from homeagent.errors import ProviderError
from homeagent.intent import IntentLayer
from homeagent.io.events import (
    AgentEvent,
    AnswerDelta,
    PermissionRequested,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    TurnFailed,
    TurnNotice,
    TurnStarted,
)
from homeagent.io.interrupt import Inbox, Interrupt
from homeagent.llm.base import (
    ChatRequest,
    Message,
    Notice,
    Provider,
    StreamError,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolDef,
    Usage,
)
from homeagent.log import bind_keys, get_logger, unbind_keys
from homeagent.memory.indexer import HEADER as GRAPH_HEADER
from homeagent.tools.audit import AuditLog
from homeagent.tools.permissions import (
    Answer,
    Confirmer,
    PermissionBroker,
    PermissionGate,
    PermissionRequest,
    execute_guarded,
)
from homeagent.tools.registry import ToolContext, ToolRegistry, ToolResult
from homeagent.tools.untrusted import refusal_note, untrusted_calls, untrusted_sections

log = get_logger("homeagent.agent")

# A source of one prompt section for a turn: (user text, member) → (title, body) or None.
ContextSource = Callable[[str, str], Awaitable[tuple[str, str] | None]]

# The tools a turn may reach, from its text (a skill steering it), or None for all.
ToolScope = Callable[[str], Awaitable[frozenset[str] | None]]

# Prompt sections that are the household's own configuration, not tool output: an enabled
# skill's instructions name the tools it may use (homeagent/ext/skills.py).
TRUSTED_SECTIONS = frozenset({"Skill"})
# HomeAgent's own headings inside a section, which may name a tool for the model to use.
OWN_LINES = frozenset({GRAPH_HEADER})

FINAL_ANSWER_NOTE = (
    "You have used every tool round this turn. Answer the user now in plain words, "
    "without calling any tool."
)


@dataclass
class AgentStats:
    turns_started: int = 0
    turns_completed: int = 0
    turns_failed: int = 0
    turns_cancelled: int = 0
    next_turns_prepared: int = 0  # idle-time evaluations of the next prompt's start
    current_turn: str | None = None
    last_error: str | None = None


@dataclass
class _TurnState:
    answer: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish: str = "stop"
    # Milliseconds from the turn's start to each step before the first model call (the
    # run trace's `model_call` carries them: where a turn's time before the engine went).
    started: float = field(default_factory=time.monotonic)
    marks: dict[str, float] = field(default_factory=dict)

    def mark(self, step: str) -> None:
        self.marks[step] = round((time.monotonic() - self.started) * 1000, 1)


class Agent:
    def __init__(
        self,
        *,
        provider: Provider,
        registry: ToolRegistry,
        prompt: PromptBuilder,
        conversation: Conversation,
        clock: Clock,
        config: AgentConfig,
        temperature: float | None = None,
        max_tokens: int | None = None,
        runs: RunHub | None = None,
        snapshot: Mapping[str, Any] | None = None,
        context_sources: Sequence[ContextSource] = (),
        history_source: Callable[[str], Awaitable[list[Message]]] | None = None,
        after_turn: Sequence[Callable[[Interrupt, str], Awaitable[None]]] = (),
        gate: PermissionGate | None = None,
        broker: PermissionBroker | None = None,
        audit: AuditLog | None = None,
        tool_scope: ToolScope | None = None,
        intent: IntentLayer | None = None,
        foresee: Sequence[Callable[[str, str], None]] = (),
    ):
        self.provider = provider
        self.registry = registry
        self.prompt = prompt
        self.conversation = conversation
        self.clock = clock
        self.config = config
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.runs = runs
        self.snapshot = dict(snapshot or {})
        self.context_sources = list(context_sources)
        self.history_source = history_source
        self.after_turn = list(after_turn)
        self.gate = gate
        self.broker = broker
        self.audit = audit
        self.tool_scope = tool_scope
        self.intent = intent  # the intent layer: household commands without a model call
        # Told of each turn's text and member as it begins, before the intent step: context
        # sources start slow work early (memory embeds the question). They must not block.
        self.foresee = list(foresee)
        self.stats = AgentStats()
        self._current_scope: anyio.CancelScope | None = None
        self._member = ""  # whose conversation the engine holds prepared
        self._prepares: bool | None = None  # does the provider prepare anything (once tried)
        self._prepared_clock = ""  # the clock line the last preparation ended with

    # -- the consumer -------------------------------------------------------------------

    async def run(self, inbox: Inbox) -> None:
        """Consume interrupts until the inbox closes or the task is cancelled."""
        send, receive = anyio.create_memory_object_stream[Interrupt](math.inf)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._intake, inbox, send)
            tg.start_soon(self._keep_clock_warm, receive)
            async with receive:
                async for interrupt in receive:
                    await self.serve(interrupt)
                    if not receive.statistics().current_buffer_used:
                        tg.start_soon(self.prepare_next, interrupt.member)

    async def _intake(self, inbox: Inbox, send: anyio.abc.ObjectSendStream[Interrupt]) -> None:
        async with send, inbox.receive:
            async for interrupt in inbox.receive:
                if interrupt.cancel_running and self._current_scope is not None:
                    log.info("turn.superseded", turn_id=self.stats.current_turn)
                    self._current_scope.cancel()
                await send.send(interrupt)

    async def prepare_next(self, member: str | None = None) -> bool:
        """While idle, let a local engine evaluate what the next prompt starts with: the
        stable prefix, the history that now ends with this turn's answer, and the clock
        line. The next turn then pays only for its own sections and words; a request
        arriving first stops it. False: nothing was prepared (no local engine). `member`:
        whose conversation (default: the one prepared last)."""
        member = self._member = self._member if member is None else member
        try:
            history = await self._history(member)
            clock = self.prompt.clock(self.clock.now())
            messages = [Message("system", self.prompt.stable_prefix()), *history, clock]
            warmed = await self.provider.warm(messages, self.registry.definitions())
            self._prepares = warmed is not None
            if warmed is not None:
                if not getattr(warmed, "halted", False):  # a request came first: not ready
                    self.stats.next_turns_prepared += 1
                    self._prepared_clock = clock.content
                return True
        except Exception as err:  # noqa: BLE001 - an optimisation; the next turn does the work
            log.warning("turn.prepare_next_failed", error=repr(err))
        return False

    async def prepare_if_stale(self) -> bool:
        """Prepare again if the minute turned since the last preparation (a start whose
        other parts took longer than the engine's): the first turn then evaluates only its
        own words, not the clock line's new minute too. True: it prepared."""
        if self._prepares and self.prompt.clock(self.clock.now()).content != self._prepared_clock:
            return await self.prepare_next()
        return False

    async def _keep_clock_warm(self, queued: MemoryObjectReceiveStream[Interrupt]) -> None:
        """The prepared state ends with the clock line, which changes by the minute: while
        the agent is idle, each new minute is evaluated into it (the clock line alone, some
        30 tokens: the rest is already there), so the first words after a quiet hour are
        answered as fast as a follow-up. Stops for a provider that prepares nothing."""
        if self._prepares is None:  # nobody prepared the start (App.warm does): do it now
            await self.prepare_next()
        if not self._prepares:
            return
        while True:
            now = self.clock.now()
            await anyio.sleep(60.05 - now.second - now.microsecond / 1e6)
            if self.stats.current_turn is None and not queued.statistics().current_buffer_used:
                await self.prepare_next()

    async def _history(self, member: str) -> list[Message]:
        if self.history_source is not None:
            return await self.history_source(member)
        return [
            Message(m.role, m.content)  # type: ignore[arg-type]
            for m in await self.conversation.recent(self.config.history_turns)
        ]

    async def serve(self, interrupt: Interrupt) -> None:
        """Run one turn to its end, whatever happens, and close its reply handle."""
        reply = interrupt.reply
        state = _TurnState()
        started = time.monotonic()
        self.stats.turns_started += 1
        self.stats.current_turn = interrupt.turn_id
        bind_keys(turn_id=interrupt.turn_id, channel=interrupt.channel)
        if self.runs is not None:
            self.runs.begin(
                interrupt.turn_id, channel=interrupt.channel, device_id=interrupt.device_id,
                member=interrupt.member, text=interrupt.text, provider=self.provider.name,
                model=self.provider.model, snapshot=self.snapshot, cancel=reply.cancel,
            )
        outcome: TurnDone | TurnFailed | None = None
        try:
            with anyio.CancelScope() as scope:
                self._current_scope = scope
                async with anyio.create_task_group() as tg:
                    tg.start_soon(_cancel_when_set, reply.cancel_requested, scope)
                    with anyio.move_on_after(self.config.turn_timeout) as timeout_scope:
                        outcome = await self._turn(interrupt, state)
                    if timeout_scope.cancelled_caught:
                        # Keep what was generated: it is the answer, cut short.
                        log.warning("turn.timeout", timeout_s=self.config.turn_timeout)
                        state.finish = "length"
                        outcome = self._done(interrupt, state)
                        await self._record(interrupt, outcome.text)
                    tg.cancel_scope.cancel()
        except Exception as err:  # noqa: BLE001 - a broken turn must not stop the agent
            log.exception("turn.crashed")
            outcome = TurnFailed(interrupt.turn_id, f"internal error: {type(err).__name__}", "internal")
        finally:
            # Runs on cancellation too (a newer interrupt, the asker leaving, shutdown):
            # the asker always gets a final event and its stream is closed.
            self._current_scope = None
            self.stats.current_turn = None
            if outcome is None:
                state.finish = "cancelled"
                outcome = self._done(interrupt, state)
            with anyio.CancelScope(shield=True):
                if isinstance(outcome, TurnFailed):
                    self.stats.turns_failed += 1
                    self.stats.last_error = outcome.message
                elif outcome.finish_reason == "cancelled":
                    self.stats.turns_cancelled += 1
                else:
                    self.stats.turns_completed += 1
                await self._emit(interrupt, outcome)
                reply.close()
        log.info(
            "turn.finished",
            outcome=outcome.type if isinstance(outcome, TurnFailed) else outcome.finish_reason,
            duration_ms=round((time.monotonic() - started) * 1000, 1),
            tokens_in=state.prompt_tokens,
            tokens_out=state.completion_tokens,
            provider=self.provider.name,
            model=self.provider.model,
        )
        unbind_keys("turn_id", "channel")

    async def _emit(self, interrupt: Interrupt, event: AgentEvent) -> bool:
        """Record the event on the turn's run, then deliver it to the asker."""
        if self.runs is not None:
            self.runs.event(interrupt.turn_id, event)
        return await interrupt.reply.emit(event)

    def _confirmer_for(self, interrupt: Interrupt) -> Confirmer | None:
        """How a "confirm" permission is asked on this turn's channel, if it can be: the
        request goes out as an event and the channel brings the answer to the broker."""
        if self.broker is None:
            return None
        # An asker that cannot answer may still be answered for elsewhere (the dashboard's
        # pending list); with no one there, a confirm-class tool is refused.
        elsewhere = not interrupt.capabilities.confirms
        if elsewhere and not self.broker.answerable_elsewhere(interrupt.member):
            return None

        async def notify(request: PermissionRequest) -> None:
            if self.runs is not None:
                self.runs.set_status(interrupt.turn_id, "waiting_permission")
            if elsewhere:
                await self._emit(interrupt, TurnNotice(
                    f"{request.tool} waits for confirmation on the dashboard", "permission_elsewhere"))
                return
            await self._emit(interrupt, PermissionRequested(
                request.request_id, request.tool, request.permission, dict(request.arguments),
            ))

        inner = self.broker.confirmer_for(interrupt.turn_id, notify)
        runs = self.runs

        class _Confirmer:
            async def confirm(self, request: PermissionRequest) -> Answer:
                try:
                    answer = await inner.confirm(request)
                finally:
                    if runs is not None:
                        runs.set_status(interrupt.turn_id, "running")
                if runs is not None:
                    runs.note(interrupt.turn_id, "permission_decision",
                              {"request_id": request.request_id, "tool": request.tool, "decision": answer})
                return answer

        return _Confirmer()

    async def _gather_context(self, interrupt: Interrupt) -> list[tuple[str, str]]:
        """Prompt sections from memory and knowledge, fetched concurrently; a failing
        source is logged and left out, never the end of the turn."""
        sections: list[tuple[str, str] | None] = [None] * len(self.context_sources)

        async def fetch(index: int, source: ContextSource) -> None:
            try:
                sections[index] = await source(interrupt.text, interrupt.member)
            except Exception as err:  # noqa: BLE001 - context is optional, the turn is not
                log.warning("turn.context_source_failed", source=getattr(source, "__name__", "?"), error=repr(err))

        async with anyio.create_task_group() as tg:
            for index, source in enumerate(self.context_sources):
                tg.start_soon(fetch, index, source)
        return [s for s in sections if s is not None and s[1].strip()]

    def _done(self, interrupt: Interrupt, state: _TurnState) -> TurnDone:
        return TurnDone(
            interrupt.turn_id,
            "".join(state.answer),
            state.finish,  # type: ignore[arg-type]
            state.prompt_tokens,
            state.completion_tokens,
            self.provider.model,
        )

    # -- one turn -----------------------------------------------------------------------

    async def _turn(self, interrupt: Interrupt, state: _TurnState) -> TurnDone | TurnFailed:
        await self._emit(interrupt, TurnStarted(interrupt.turn_id))
        for begin in self.foresee:
            try:
                begin(interrupt.text, interrupt.member)
            except Exception as err:  # noqa: BLE001 - a head start, never the end of the turn
                log.warning("turn.foresee_failed", source=getattr(begin, "__name__", "?"), error=repr(err))
        offered = await self._intent_step(interrupt, state)
        if isinstance(offered, TurnDone):
            return offered
        state.mark("intent")
        history = await self._history(interrupt.member)
        state.mark("history")
        sections = await self._gather_context(interrupt)
        state.mark("context")
        built = self.prompt.build(
            user_text=interrupt.text,
            history=history,
            now=self.clock.now(),
            memory_sections=sections,
            turn_context=interrupt.context,
        )
        messages = list(built.messages)
        tools = self.registry.definitions() if offered is None else offered
        if interrupt.client_tools is not None:  # the client's own tools join this turn's
            tools += interrupt.client_tools.definitions
        ctx = ToolContext(
            turn_id=interrupt.turn_id,
            channel=interrupt.channel,
            device_id=interrupt.device_id,
            now=self.clock.now,
            member=interrupt.member,
        )
        state.mark("prompt")
        allowed = await self.tool_scope(interrupt.text) if self.tool_scope is not None else None
        state.mark("scope")
        max_rounds = self.config.max_tool_rounds
        ran: list[ToolResult] = []
        shown = ""
        for round_no in range(max_rounds + 1):
            last_round = round_no == max_rounds
            if last_round:
                messages.append(Message("user", FINAL_ANSWER_NOTE))
            request = ChatRequest(
                messages=tuple(messages),
                tools=tools,
                tool_choice="none" if last_round else "auto",
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                stable_prefix_chars=built.stable_prefix_chars,
            )
            before = len(state.answer)
            try:
                text, calls = await self._generate(request, interrupt, state, round_no)
            except ProviderError as err:
                log.warning("turn.provider_failed", error=str(err), kind=err.kind)
                return TurnFailed(interrupt.turn_id, str(err), err.kind)
            shown = "".join(state.answer[before:])
            if last_round and calls:
                log.info("turn.tool_rounds_exhausted", ignored_calls=len(calls))
                calls = []
            if not calls:
                break
            # Tool output is data: a call it seems to have asked for needs the user's yes.
            # (the prompt's memory and knowledge sections are tool output too)
            tainted = untrusted_calls(calls, [*untrusted_sections(sections, TRUSTED_SECTIONS, OWN_LINES), *ran], interrupt.text)
            results = await self._run_tools(calls, ctx, interrupt, tainted, allowed)
            for r in results:
                if r.call_id in tainted and not r.ok:
                    await self._show(interrupt, state, refusal_note(r.name, tainted[r.call_id], interrupt.text))
            ran += results
            messages.append(Message("assistant", text, tool_calls=tuple(calls)))
            messages += [
                Message("tool", r.content, tool_call_id=r.call_id, name=r.name, error=not r.ok)
                for r in results
            ]
        if ran and not shown.strip():
            # The model's last reply said nothing the user can see: the actions' own
            # words are the answer.
            text = _results_answer(ran)
            await self._show(interrupt, state, ("\n" + text) if "".join(state.answer).strip() else text)
        done = self._done(interrupt, state)
        await self._record(interrupt, done.text)
        return done

    async def _intent_step(self, interrupt: Interrupt, state: _TurnState) -> TurnDone | tuple[ToolDef, ...] | None:
        """The intent layer, before the model: it answers the turn itself (the action's
        result text, or its own words), or says what the model is offered. The run's
        `intent` entry records which path answered."""
        if self.intent is None or interrupt.client_tools is not None:
            # A client that sends its own tools (Home Assistant) expects the model to use them.
            return None
        try:
            route = await self.intent.route(interrupt.text, interrupt.member, interrupt.channel,
                                            self.registry.definitions())
        except Exception as err:  # noqa: BLE001 - the model answers when the layer cannot
            log.warning("turn.intent_failed", error=repr(err))
            return None
        if self.runs is not None:
            self.runs.note(interrupt.turn_id, "intent", route.trace())
        if route.path != "intent":
            self.intent.remember_text(interrupt.text, interrupt.member, interrupt.channel)
            return route.tools
        text = route.answer or ""
        if route.calls:
            ctx = ToolContext(turn_id=interrupt.turn_id, channel=interrupt.channel, device_id=interrupt.device_id,
                              now=self.clock.now, member=interrupt.member, language=route.language)
            results = await self._run_tools(route.calls, ctx, interrupt)
            text = self.intent.answered(route, results, interrupt.member, interrupt.channel, interrupt.text)
        await self._show(interrupt, state, text)
        done = self._done(interrupt, state)
        await self._record(interrupt, done.text)
        return done

    async def _record(self, interrupt: Interrupt, answer: str) -> None:
        """Persist the exchange, then let memory learn from it; memory failing to learn
        never costs the user the answer."""
        with anyio.CancelScope(shield=True):
            await self.conversation.record_exchange(
                interrupt.turn_id, interrupt.channel, interrupt.device_id, interrupt.text,
                answer.strip(), interrupt.member,
            )
            for hook in self.after_turn:
                try:
                    await hook(interrupt, answer.strip())
                except Exception as err:  # noqa: BLE001 - the exchange is already stored
                    log.warning("turn.after_turn_failed", hook=getattr(hook, "__name__", "?"), error=repr(err))

    async def _show(self, interrupt: Interrupt, state: _TurnState, text: str) -> None:
        """Part of the answer: kept for the record and streamed to the asker."""
        if text:
            state.answer.append(text)
            if not await self._emit(interrupt, AnswerDelta(text)):
                interrupt.reply.cancel()  # the asker is gone: stop spending compute

    async def _generate(
        self, request: ChatRequest, interrupt: Interrupt, state: _TurnState, round_no: int
    ) -> tuple[str, list[ToolCall]]:
        """Stream one model call; returns its text and the tool calls it asked for."""
        raw: list[str] = []
        calls: list[ToolCall] = []
        started = time.monotonic()
        usage = Usage(0, 0)
        finish = "error"

        async def show(text: str) -> None:
            await self._show(interrupt, state, text)

        first_text: float | None = None
        try:
            async with aclosing(self.provider.stream(request)) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        if first_text is None:
                            first_text = time.monotonic()
                        raw.append(event.text)
                        await show(event.text)
                    elif isinstance(event, ToolCallEvent):
                        calls.append(event.call)
                    elif isinstance(event, Usage):
                        usage = event
                        state.prompt_tokens += event.prompt_tokens
                        state.completion_tokens += event.completion_tokens
                    elif isinstance(event, StreamError):
                        finish = event.kind
                        raise ProviderError(event.message, retryable=event.retryable, kind=event.kind)
                    elif isinstance(event, Notice):
                        await self._emit(interrupt, TurnNotice(event.text, event.kind))
                    else:
                        finish = event.finish_reason
                        state.finish = "length" if event.finish_reason == "length" else "stop"
        finally:
            if self.runs is not None:
                self.runs.note(interrupt.turn_id, "model_call", {
                    "round": round_no, "provider": self.provider.name, "model": self.provider.model,
                    "duration_ms": round((time.monotonic() - started) * 1000, 1),
                    "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                    "cached_tokens": usage.cached_tokens, "tools_offered": len(request.tools),
                    "tool_calls": len(calls), "finish": finish,
                    "first_text_ms": None if first_text is None else round((first_text - started) * 1000, 1),
                    **({"turn_ms": {**state.marks, "call": round((started - state.started) * 1000, 1)}}
                       if round_no == 0 else {}),
                })
        return "".join(raw), calls

    async def _run_tools(
        self, calls: list[ToolCall], ctx: ToolContext, interrupt: Interrupt,
        tainted: dict[str, str] | None = None,
        allowed: frozenset[str] | None = None,
    ) -> list[ToolResult]:
        for call in calls:
            await self._emit(interrupt, ToolCallStarted(call.id, call.name, call.arguments))
        results: list[ToolResult | None] = [None] * len(calls)

        confirmer = self._confirmer_for(interrupt)

        async def run_one(index: int, call: ToolCall) -> None:
            if allowed is not None and call.name not in allowed:
                results[index] = ToolResult(call.id, call.name, False, (
                    f"error: {call.name} is not among the tools of the skill guiding this request "
                    f"({', '.join(sorted(allowed)) or 'none'}); it was not run."))
                return
            results[index] = await execute_guarded(
                self.registry, call, ctx, gate=self.gate, audit=self.audit, confirmer=confirmer,
                untrusted_source=(tainted or {}).get(call.id, ""),
            )

        client = interrupt.client_tools
        theirs = {d.name for d in client.definitions} if client is not None else set()

        async def run_client(picked: list[tuple[int, ToolCall]]) -> None:
            # The client runs these and sends the results back; the turn waits here.
            assert client is not None
            started = time.monotonic()
            outcomes = await client.call([call for _, call in picked])
            duration = round((time.monotonic() - started) * 1000, 2)
            for (index, call), (ok, content) in zip(picked, outcomes, strict=True):
                results[index] = ToolResult(call.id, call.name, ok, content, duration)

        async with anyio.create_task_group() as tg:
            picked = [(i, c) for i, c in enumerate(calls) if c.name in theirs]
            if picked:
                tg.start_soon(run_client, picked)
            for index, call in enumerate(calls):
                if call.name not in theirs:
                    tg.start_soon(run_one, index, call)
        done = [r for r in results if r is not None]
        for result in done:
            display = result.display.as_dict() if result.display is not None else None
            await self._emit(
                interrupt,
                ToolCallFinished(
                    result.call_id, result.name, result.ok, result.content, result.duration_ms, display
                ),
            )
        return done


async def _cancel_when_set(event: anyio.Event, scope: anyio.CancelScope) -> None:
    await event.wait()
    log.info("turn.cancel_requested")
    scope.cancel()


def _results_answer(results: list[ToolResult]) -> str:
    """The actions' own words as the answer: what succeeded, else what went wrong."""
    ok = [r.content.strip() for r in results if r.ok and r.content.strip()]
    return "\n".join(ok or [r.content.strip() for r in results if r.content.strip()])
