"""The `echo` provider: streams the turn's user message back, word by word.

For wiring checks of a running daemon (channels, HTTP, SSE) without a model: the reply
is exactly the text the user sent, not the built prompt.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

import anyio

from homeagent.llm.base import (
    ChatRequest,
    ProviderBase,
    ProviderEvent,
    ProviderStatus,
    StreamDone,
    TextDelta,
    Usage,
)
from homeagent.llm.testing import split_words


class EchoProvider(ProviderBase):
    name = "echo"
    supports_tools = False
    supports_grammar = False

    def __init__(self, model: str = "echo", delay: float = 0.0):
        self.model = model
        self._delay = delay

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        user = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        pieces = split_words(user)
        for piece in pieces:
            if self._delay:
                await anyio.sleep(self._delay)
            else:
                await anyio.lowlevel.checkpoint()
            yield TextDelta(piece)
        yield Usage(prompt_tokens=len(split_words(user)), completion_tokens=len(pieces))
        yield StreamDone("stop")

    def status(self) -> ProviderStatus:
        return ProviderStatus(self.name, self.model, "ready", "echoes the user message")
