"""The browser dashboard as a channel: it streams, and it can confirm.

The dashboard talks through `/api/chat` for its own turns (answering their permission
requests in the stream), and besides keeps a pending-permissions list open: whatever
channel a confirm-class call came from (Home Assistant, an OpenAI client), a member who
has the dashboard open can confirm or deny it there. The page polls that list; each poll
says "someone is here" for its reader, and `present(member)` tells the permission broker
whether a request of that member can be answered now.

Who may answer what: a member's page answers that member's requests and the household's;
the household (admin) token's page answers all.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.members import visible_to

BROWSER_CAPABILITIES = Capabilities(streams=True, confirms=True, receives_unasked=False)
ADMIN = None  # the reader of the household token: sees and answers everything


class BrowserChannel:
    name = "browser"
    capabilities = BROWSER_CAPABILITIES

    def __init__(self, *, window: float = 20.0, now: Callable[[], float] = time.monotonic) -> None:
        self._window = window
        self._now = now
        self._seen: dict[str | None, float] = {}

    async def deliver(self, message: OutboundMessage) -> bool:
        return False  # pushed messages reach the page through the push route, not here

    def seen(self, reader: str | None) -> None:
        """A page of `reader` (a member's name; None for the household token) is open."""
        self._seen[reader] = self._now()

    def present(self, member: str) -> bool:
        """Whether an open page may answer a request of `member` ("" = the household's)."""
        horizon = self._now() - self._window
        return any(
            at >= horizon and (reader is ADMIN or visible_to(member, reader))
            for reader, at in self._seen.items()
        )
