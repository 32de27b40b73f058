"""`ActionDialect`: a provider whose model cannot call functions, seen as one that can.

Above the llm layer every request is a native one: tools, a `tool_choice`, assistant
messages carrying `tool_calls` and `tool` messages carrying results. The wrapper converts
at this edge, in both directions:

- the request: the stable head of the system message gains the dialect's instructions
  and example dialogues (`prompt.render_protocol`, the same text on every turn, so a
  local engine keeps its cached state); the actions offered for this message (the
  selector's top k, none for small talk) are appended to the turn's system message;
  earlier calls become `[ACTION]` blocks (the model's own bytes when it wrote them) and
  results one `[RESULTS]` message. An engine with grammars gets, on the first round of a
  message that clearly asks for an action (or under `tool_choice="required"`), a grammar
  that admits only well-formed blocks for the offered actions with values copied from
  the user's words;
- the reply: blocks are held back from the streamed text and come out as
  `ToolCallEvent`s at the end, so the caller runs them like any function call.

With `results_answer_local`, an engine with grammars is not asked to phrase results it
tends to garble: once the calls have run, the wrapper answers with the results' own text.

When the inner provider does call functions (an Ollama model that has tools), requests
pass through untouched; the check is made per request, since such a provider can learn
mid-run that its model has none.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, replace

import anyio

from homeagent.llm.base import (
    ChatRequest,
    Message,
    Provider,
    ProviderBase,
    ProviderEvent,
    ProviderStatus,
    StreamDone,
    TextDelta,
    ToolCallEvent,
    ToolDef,
    Warmed,
)
from homeagent.llm.dialect.blocks import (
    ActionStreamFilter,
    extract_actions,
    quote_protocol,
    render_block,
    render_results,
)
from homeagent.llm.dialect.grammar import action_grammar, copy_constrained, instruction_terms
from homeagent.llm.dialect.prompt import render_offered, render_protocol
from homeagent.llm.dialect.select import ActionSelector
from homeagent.log import get_logger
from homeagent.numbers import numbers_in

log = get_logger("homeagent.llm.dialect")

# An action is offered when it scores at least this, and at least this share of the best.
OFFER_MIN_SCORE = 0.06
OFFER_RELATIVE = 0.3
_RAW_KEPT = 16  # the model's own replies kept for re-sending its blocks byte for byte


@dataclass(frozen=True)
class DialectSettings:
    """How tools are offered to a model that reads them (the `actions.*` config keys)."""

    top_k: int = 8  # actions offered per message
    top_k_local: int = 1  # … to an engine with grammars, which chooses worse than the selector
    force_threshold: float = 0.0  # relevance from which the first reply must be a block; 0: never
    results_answer_local: bool = False  # an engine with grammars answers with the results' text


class ActionDialect(ProviderBase):
    def __init__(
        self,
        inner: Provider,
        settings: DialectSettings | None = None,
        selector: ActionSelector | None = None,
    ):
        self.inner = inner
        self.settings = settings or DialectSettings()
        self.selector = selector or ActionSelector()
        self._protocol: tuple[tuple[str, ...], str] = ((), "")
        # The tools whose protocol heads every system message (what the engine was primed
        # with): the same head for every turn, whatever the turn is offered, so a local
        # engine's cached prefix and the history it prepared while idle are reused.
        self._head_tools: tuple[ToolDef, ...] = ()
        self._raw: OrderedDict[str, str] = OrderedDict()

    # -- what callers see: the inner provider, speaking native tool calls ------------------

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.inner.name

    @property
    def model(self) -> str:  # type: ignore[override]
        return self.inner.model

    @property
    def supports_tools(self) -> bool:  # type: ignore[override]
        return self.inner.supports_tools

    @property
    def supports_grammar(self) -> bool:  # type: ignore[override]
        return self.inner.supports_grammar

    @property
    def available(self) -> bool:
        return self.inner.available

    def status(self) -> ProviderStatus:
        return self.inner.status()

    async def start(self) -> None:
        await self.inner.start()

    async def probe(self) -> str:
        return await self.inner.probe()

    async def aclose(self) -> None:
        await self.inner.aclose()

    # -- the stable prefix and idle preparation -------------------------------------------

    def _translates(self, request: ChatRequest) -> bool:
        if self.inner.supports_tools:
            return False
        # Once primed with a protocol, every request carries it (small talk too: offered
        # nothing, it still starts with the primed head).
        return bool(request.tools) or bool(self._head_tools) or any(
            m.tool_calls or m.role == "tool" for m in request.messages)

    def _protocol_text(self, tools: Sequence[ToolDef]) -> str:
        names = tuple(t.name for t in tools)
        if names != self._protocol[0]:
            self._protocol = (names, render_protocol(tools) if tools else "")
        return self._protocol[1]

    def stable_prefix(self, stable_prefix: str, tools: Sequence[ToolDef]) -> str:
        """The system message's stable head as the model reads it."""
        protocol = self._protocol_text(tools)
        return f"{stable_prefix}\n\n{protocol}" if protocol and stable_prefix else stable_prefix or protocol

    async def prime(self, stable_prefix: str, tools: Sequence[ToolDef] = ()) -> None:
        if self.inner.supports_tools:
            await self.inner.prime(stable_prefix, tools)
            return
        self._head_tools = tuple(tools)
        async with anyio.create_task_group() as tg:
            # Both off the loop and at once: the first turn pays for neither.
            tg.start_soon(self.inner.prime, self.stable_prefix(stable_prefix, tools))
            if tools:
                tg.start_soon(self.selector.prepare, tools)

    async def warm(self, messages: Sequence[Message], tools: Sequence[ToolDef] = ()) -> Warmed | None:
        if self.inner.supports_tools or not messages:
            return await self.inner.warm(messages, tools)
        head, *rest = messages
        if head.role == "system" and (self._head_tools or tools):
            head = Message("system", self.stable_prefix(head.content, self._head_tools or tools))
        return await self.inner.warm([head, *self._in_dialect(rest)])

    # -- one request ---------------------------------------------------------------------

    def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        if not self._translates(request):
            return self.inner.stream(request)
        return self._stream(request)

    async def _stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        local = self.inner.supports_grammar
        if local and self.settings.results_answer_local and request.messages[-1].role == "tool":
            # The calls have run: their own words are the answer (see the module doc).
            for event in _results_reply(request.messages):
                yield event
            return
        translated = await self.translate(request)
        shown = ActionStreamFilter()
        raw: list[str] = []
        async with aclosing(self.inner.stream(translated)) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    raw.append(event.text)
                    if text := shown.feed(event.text):
                        yield TextDelta(text)
                elif isinstance(event, StreamDone):
                    if rest := shown.finish():
                        yield TextDelta(rest)
                    parsed = extract_actions("".join(raw))
                    for problem in parsed.errors:
                        log.info("tool.action.unparsable", problem=problem)
                    # Only what this request offers: the head's protocol names every
                    # action, but a turn offered none (small talk) or a few calls those.
                    offered = {t.name for t in request.tools}
                    calls = [c for c in parsed.calls if c.name in offered]
                    for call in parsed.calls:
                        if call.name not in offered:
                            log.info("tool.action.not_offered", tool=call.name)
                    if calls:
                        self._keep_raw(calls[0].id, "".join(raw))
                    for call in calls:
                        yield ToolCallEvent(call)
                    yield StreamDone("tool_calls" if calls else event.finish_reason)
                else:
                    yield event

    async def translate(self, request: ChatRequest) -> ChatRequest:
        """The request as the model is sent it (also for benches and debugging)."""
        messages = list(request.messages)
        user_at = _user_index(messages)
        user_text = messages[user_at].content if user_at >= 0 else ""
        offered, top = await self._offer(user_text, request)
        section = render_offered(offered)
        stable = request.stable_prefix_chars
        marked: list[Message] = []
        for i, m in enumerate(messages):
            if i == user_at and section:
                # A message of its own, just before the user's words: what precedes it
                # (the history, the clock) is what the engine has prepared while idle.
                marked.append(Message("system", section))
            content = m.content
            if m.role == "system":
                # Knowledge and memory in the prompt are data: no block in them reads as one.
                keep = stable if i == 0 else 0
                content = content[:keep] + quote_protocol(content[keep:])
            if i == 0 and m.role == "system" and (self._head_tools or request.tools):
                head = self.stable_prefix(content[:stable], self._head_tools or request.tools)
                content, stable = head + content[stable:], len(head)
            marked.append(m if content == m.content else replace(m, content=content))
        out = self._in_dialect(marked)
        grammar = None
        first_round = user_at == len(messages) - 1
        if self.inner.supports_grammar and first_round and offered and request.tool_choice != "none":
            force = self.settings.force_threshold and top >= self.settings.force_threshold
            if force or request.tool_choice == "required":
                grammar = copy_constrained(
                    action_grammar(offered, mode="action"), user_text, numbers_in(user_text),
                    exclude=instruction_terms(offered),
                )
        return replace(request, messages=tuple(out), tools=(), stable_prefix_chars=stable, grammar=grammar)

    async def _offer(self, text: str, request: ChatRequest) -> tuple[list[ToolDef], float]:
        """The actions offered for this message: the top k by relevance, less those far
        weaker than the best; none for small talk or under `tool_choice="none"`. Every
        offered action costs the engine tens of prompt tokens, and an action in sight
        invites a small model to call it."""
        if not request.tools or not text:
            return [], 0.0
        ranking = await anyio.to_thread.run_sync(self.selector.rank, text, request.tools)
        if ranking.chat and request.tool_choice != "required":
            return [], 0.0
        k = self.settings.top_k_local if self.inner.supports_grammar else self.settings.top_k
        scored = ranking.scored[:k]
        if not scored:
            return [], 0.0
        floor = max(OFFER_MIN_SCORE, OFFER_RELATIVE * scored[0][1])
        return [spec for spec, score in scored if score >= floor], scored[0][1]

    # -- history in the dialect's form ------------------------------------------------------

    def _keep_raw(self, first_call_id: str, text: str) -> None:
        self._raw[first_call_id] = text
        while len(self._raw) > _RAW_KEPT:
            self._raw.popitem(last=False)

    def _assistant_text(self, m: Message) -> str:
        """An assistant message with calls as the model wrote it, else as blocks."""
        raw = self._raw.get(m.tool_calls[0].id)
        if raw is not None:
            return raw
        blocks = "\n".join(render_block(c.name, _arguments(c.arguments)) for c in m.tool_calls)
        return f"{m.content.rstrip()}\n{blocks}" if m.content.strip() else blocks

    def _in_dialect(self, messages: Sequence[Message]) -> list[Message]:
        """Native history as the model reads it: calls as blocks, each round's results
        as one `[RESULTS]` message."""
        out: list[Message] = []
        results: list[str] = []
        for m in messages:
            if m.role == "tool":
                results.append(f"- {m.name or 'tool'}: {quote_protocol(m.content)}")
                continue
            if results:
                out.append(Message("user", render_results(results)))
                results.clear()
            out.append(Message("assistant", self._assistant_text(m)) if m.role == "assistant" and m.tool_calls else m)
        if results:
            out.append(Message("user", render_results(results)))
        return out

def _user_index(messages: Sequence[Message]) -> int:
    """Where the user's words are: the first user message after the last system message
    after the head (the turn's clock and sections), else the last user message (-1: none).
    Later user messages are the loop's own notes."""
    turn_at = max((i for i, m in enumerate(messages) if m.role == "system"), default=-1)
    if turn_at <= 0:
        users = [i for i, m in enumerate(messages) if m.role == "user"]
        return users[-1] if users else -1
    return next((i for i in range(turn_at + 1, len(messages)) if messages[i].role == "user"), -1)


def _arguments(text: str) -> dict:
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {"arguments": value}


def _results_reply(messages: Sequence[Message]) -> list[ProviderEvent]:
    """The answer made of the last round's results: what succeeded, else what went wrong."""
    start = len(messages)
    while start > 0 and messages[start - 1].role == "tool":
        start -= 1
    results = messages[start:]
    ok = [m.content.strip() for m in results if not m.error and m.content.strip()]
    text = "\n".join(ok or [m.content.strip() for m in results if m.content.strip()])
    said = start > 0 and messages[start - 1].content.strip()
    return [TextDelta(("\n" + text) if said and text else text), StreamDone("stop")]


def speak_native(
    provider: Provider, settings: DialectSettings | None = None, selector: ActionSelector | None = None
) -> Provider:
    """`provider` as one that takes native tool requests. The wrapper passes requests
    through while the model calls functions, so an engine that may learn mid-run that
    its model has none (Ollama) can be wrapped from the start."""
    return ActionDialect(provider, settings, selector)
