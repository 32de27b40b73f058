"""The notification channel sends a member's message to that member's target only."""

from __future__ import annotations

import pytest

from homeagent.io.channel import Channel, OutboundMessage
from homeagent.io.notify import NotifyChannel

pytestmark = pytest.mark.anyio


class Service:
    """A notification service that keeps what it was asked to send (the far side of the edge)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str]] = []

    async def notify(self, target: str, title: str, text: str) -> bool:
        self.sent.append((target, title, text))
        return True


async def test_messages_go_to_their_members_target_and_no_other():
    service = Service()
    channel = NotifyChannel("home_assistant", service, {"alice": "mobile_app_alice", "": "family_speaker"})
    assert isinstance(channel, Channel) and channel.capabilities.receives_unasked
    assert await channel.deliver(OutboundMessage("Reminder: pills", member="alice", kind="reminder"))
    assert not await channel.deliver(OutboundMessage("Reminder: bob's call", member="bob", kind="reminder"))
    assert await channel.deliver(OutboundMessage("今天是妈妈的生日", kind="reminder"))
    assert service.sent == [("mobile_app_alice", "HomeAgent 提醒 / reminder", "Reminder: pills"),
                            ("family_speaker", "HomeAgent 提醒 / reminder", "今天是妈妈的生日")]
