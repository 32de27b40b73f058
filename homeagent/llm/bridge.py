"""Running a request built for native function calling on a provider without it.

The agent decides per turn, from `provider.supports_tools`, whether to offer tools
natively or through the `[ACTION]` prompt protocol. When the router has to move a native
request to a provider that cannot call functions (the cloud failed mid-turn, the budget
ran out, an Ollama model turned out to lack tools), this module translates, so the agent
never notices:

- the request: the tool catalog goes into the system prompt right after its stable head
  (or the whole `[ACTION]` stable prefix is swapped in, when the prompt builder's is
  known, so the local engine's cached prefix still matches); earlier native tool calls
  become `[ACTION]` blocks and tool results become one `[RESULTS]` message, exactly as
  the agent writes them for `[ACTION]` models;
- the reply: `[ACTION]` blocks are held back from the streamed text and come out as
  native `ToolCallEvent`s at the end, so the agent runs them like any function call.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

from homeagent.llm.base import (
    ChatRequest,
    Message,
    ProviderEvent,
    StreamDone,
    TextDelta,
    ToolCallEvent,
)
from homeagent.tools.action_protocol import (
    ActionStreamFilter,
    extract_actions,
    render_catalog,
    render_results,
)


def is_native(request: ChatRequest) -> bool:
    """Whether the request uses native function calling (tools offered, or in the history)."""
    return bool(request.tools) or any(m.tool_calls or m.role == "tool" for m in request.messages)


def _action_block(name: str, arguments: str) -> str:
    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        args = {}
    body = {"name": name, **args} if isinstance(args, dict) else {"name": name, "arguments": args}
    return f"[ACTION]\n{json.dumps(body, ensure_ascii=False)}\n[/ACTION]"


def to_action_request(
    request: ChatRequest, action_prefix: Callable[[], str] | None = None
) -> ChatRequest:
    """The same request in the `[ACTION]` protocol's form."""
    messages: list[Message] = []
    stable = request.stable_prefix_chars
    results: list[str] = []

    def flush_results() -> None:
        if results:
            messages.append(Message("user", render_results(results)))
            results.clear()

    for i, m in enumerate(request.messages):
        if m.role == "tool":
            results.append(f"- {m.name or 'tool'}: {m.content}")
            continue
        flush_results()
        if i == 0 and m.role == "system" and request.tools:
            head, rest = m.content[:stable], m.content[stable:]
            if action_prefix is not None:
                head = action_prefix()
            else:
                catalog = render_catalog([(t.name, t.description, dict(t.parameters)) for t in request.tools])
                head = f"{head}\n\n{catalog}" if head else catalog
            messages.append(Message("system", head + rest))
            stable = len(head)
        elif m.role == "assistant" and m.tool_calls:
            blocks = "\n".join(_action_block(c.name, c.arguments) for c in m.tool_calls)
            text = f"{m.content.rstrip()}\n{blocks}" if m.content.strip() else blocks
            messages.append(Message("assistant", text))
        else:
            messages.append(m)
    flush_results()
    return replace(request, messages=tuple(messages), tools=(), stable_prefix_chars=stable)


async def action_calls(events: AsyncIterator[ProviderEvent]) -> AsyncIterator[ProviderEvent]:
    """A provider's `[ACTION]` reply as native events: text without blocks, then the calls."""
    shown = ActionStreamFilter()
    raw: list[str] = []
    async for event in events:
        if isinstance(event, TextDelta):
            raw.append(event.text)
            text = shown.feed(event.text)
            if text:
                yield TextDelta(text)
        elif isinstance(event, StreamDone):
            rest = shown.finish()
            if rest:
                yield TextDelta(rest)
            parsed = extract_actions("".join(raw))
            for call in parsed.calls:
                yield ToolCallEvent(call)
            yield StreamDone("tool_calls" if parsed.calls else event.finish_reason)
        else:
            yield event
