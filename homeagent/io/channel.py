"""The `Channel` protocol: what every way in and out of the house promises the agent.

A channel adapter (the OpenAI endpoint, `/api/chat`, runs, the console, and later Home
Assistant, Wyoming satellites, the browser, push) turns its input into `Interrupt`s on
the agent's inbox and carries the turn's events back. What a channel can do is declared
once in its `Capabilities`; the agent reads the capabilities an interrupt carries and
never a channel's name, so adding a channel touches no agent code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Capabilities:
    """What a channel can do for a turn.

    streams:  the answer can be shown as it is generated (else it arrives whole).
    confirms: the asker can answer a permission request during the turn (the channel
              shows `PermissionRequested` and sends the answer to the permission broker).
    receives_unasked: the channel can carry a message the agent starts itself (a
              reminder, a notice), through `Channel.deliver`.
    """

    streams: bool = True
    confirms: bool = False
    receives_unasked: bool = False


# A request that only streams: the default for an interrupt whose channel says nothing.
STREAM_ONLY = Capabilities()


@dataclass(frozen=True)
class OutboundMessage:
    """A message the agent starts itself, for a channel that `receives_unasked`."""

    text: str
    member: str = ""
    device_id: str = ""
    kind: str = "message"  # "reminder", "notice", …
    # What it refers to ("reminder:12"), the moment it is about (ISO 8601), and whether it
    # comes late (it fell due while the daemon was down): for channels that show more.
    ref: str = ""
    due: str = ""
    late: bool = False


@runtime_checkable
class Channel(Protocol):
    """One way in and out. `deliver` returns whether the message reached someone."""

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities: ...

    async def deliver(self, message: OutboundMessage) -> bool: ...
