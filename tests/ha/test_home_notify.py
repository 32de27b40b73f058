"""Reminders reach people through Home Assistant's notify services (a real Home Assistant).

`home_assistant.notify` maps a member to a `domain.service`; the scheduler delivers a due
reminder to every channel that receives unasked messages, and the Home Assistant channel
sends a member's reminders to that member's service only. Here alice's service is
`persistent_notification.create`, whose notifications are read back over Home
Assistant's WebSocket API; bob has none, so his reminder never reaches Home Assistant.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import pytest

from homeagent.chat import ToolCall
from homeagent.clock import FakeClock
from homeagent.llm.testing import FunctionProvider
from homeagent.tools.registry import ToolContext
from tests.ha.harness import HomeAssistantProcess
from tests.ha.test_home_real import connected
from tests.integration.helpers import running_app

pytestmark = [pytest.mark.anyio, pytest.mark.home_assistant, pytest.mark.timeout(900)]

HOME = ZoneInfo("Asia/Shanghai")


async def notifications(ha: HomeAssistantProcess) -> list[dict[str, Any]]:
    """Home Assistant's persistent notifications as they stand now."""
    async with aiohttp.ClientSession() as http, http.ws_connect(f"{ha.url}/api/websocket") as ws:
        await ws.receive_json()
        await ws.send_json({"type": "auth", "access_token": ha.token})
        assert (await ws.receive_json())["type"] == "auth_ok"
        await ws.send_json({"id": 1, "type": "persistent_notification/subscribe"})
        while True:
            msg = json.loads((await ws.receive()).data)
            if msg.get("type") == "event":
                return list(msg["event"]["notifications"].values())


async def act(app, name: str, member: str, **args: Any) -> None:
    ctx = ToolContext(turn_id="t", channel="test", member=member)
    result = await app.tools.execute(ToolCall("c", name, json.dumps(args, ensure_ascii=False)), ctx)
    assert result.ok, result.content


async def test_a_members_reminder_becomes_their_home_assistant_notification(home_assistant, make_config):
    ha = home_assistant
    clock = FakeClock(datetime(2026, 3, 2, 8, 0, tzinfo=HOME))
    config = make_config(
        home_assistant={"url": ha.url, "token": ha.token, "notify": ["alice=persistent_notification.create"]},
        schedule={"check_interval": "1h"},
        daemon={"check_interval": 0, "heartbeat_interval": 0}, knowledge={"watch": False},
    )
    provider = FunctionProvider(lambda request: "好的。")
    async with running_app(config, provider=provider, clock=clock, http=True) as app:
        assert app.home is not None
        await connected(app.home)
        assert app.devices.channel("home_assistant") is not None
        await act(app, "create_task", "alice", content="给猫喂药 feed the cat", due="2026-03-02 08:01")
        await act(app, "create_task", "bob", content="bob's secret errand", due="2026-03-02 08:01")
        clock.advance(minutes=2)
        delivered = await app.scheduler.check()
        assert len(delivered) == 2
    messages = [n["message"] for n in await notifications(ha)]
    assert any("给猫喂药 feed the cat" in m for m in messages), messages
    assert not any("secret errand" in m for m in messages), messages


def test_a_notify_rule_names_member_and_service(make_config):
    from homeagent.errors import ConfigError

    with pytest.raises(ConfigError, match=r"home_assistant.notify\[0\]: expected member=domain.service"):
        make_config(home_assistant={"notify": ["alice:notify.phone"]})
    with pytest.raises(ConfigError, match="'alice' is named twice"):
        make_config(home_assistant={"notify": ["alice=notify.a", "alice=notify.b"]})
