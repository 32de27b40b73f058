"""A notification service as a channel: reminders out to phones through someone else.

Home Assistant's `notify.*` services (a phone's companion app, a speaker's TTS) are the
first: the `home_assistant` link implements `Notifier.notify(target, title, text)` and
the composition root registers `NotifyChannel("home_assistant", notifier, targets)`
when that section is configured (with nothing configured there is no such channel).
`targets` maps a member to the service that reaches that member's devices, "" to the
household's (e.g. {"alice": "mobile_app_alice_phone", "": "family_speakers"}): a
member's message goes to that member's target only, never to another member's, and a
household message to the household's target.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from homeagent.io.channel import Capabilities, OutboundMessage

NOTIFY_CAPABILITIES = Capabilities(streams=False, confirms=False, receives_unasked=True)
TITLES = {"reminder": "HomeAgent 提醒 / reminder", "notice": "HomeAgent"}


class Notifier(Protocol):
    """One call to a notification service; True when the service accepted it."""

    async def notify(self, target: str, title: str, text: str) -> bool: ...


class NotifyChannel:
    capabilities = NOTIFY_CAPABILITIES

    def __init__(self, name: str, notifier: Notifier, targets: Mapping[str, str]) -> None:
        self.name = name
        self._notifier = notifier
        self._targets = dict(targets)

    async def deliver(self, message: OutboundMessage) -> bool:
        target = self._targets.get(message.member)
        if not target:
            return False  # nobody of this member's is reachable here
        return await self._notifier.notify(target, TITLES.get(message.kind, "HomeAgent"), message.text)
