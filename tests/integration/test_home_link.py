"""The link when Home Assistant is not there: the daemon works, the tools say so plainly."""

from __future__ import annotations

import anyio
import pytest

from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from tests.conftest import free_port
from tests.integration.helpers import running_app, text_of, turn

pytestmark = pytest.mark.anyio


async def test_unreachable_home_assistant_keeps_the_daemon_working(make_config):
    port = free_port()  # nothing listens there
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("home_status", {})]), "Home Assistant is not reachable right now.",
        "Hello!",
    ])  # fmt: skip
    config = make_config(
        home_assistant={"url": f"http://127.0.0.1:{port}", "token": "t" * 30, "reconnect_min": "0.05s",
                        "reconnect_max": "0.2s"},
        daemon={"check_interval": 0, "heartbeat_interval": 0}, knowledge={"watch": False},
    )  # fmt: skip
    async with running_app(config, provider=provider, http=True) as app:
        assert app.home is not None
        with anyio.fail_after(10):
            while app.home.status()["state"] != "unreachable":
                await app.home.wait_changed()
        events = await turn(app, "what is on at home?")
        assert text_of(events) == "Home Assistant is not reachable right now."
        result = next(m.content for m in provider.requests[-1].messages if m.role == "tool")
        assert f"Home Assistant at http://127.0.0.1:{port} is unavailable" in result
        assert "cannot be reached" in result
        assert text_of(await turn(app, "hi")) == "Hello!"  # the rest of the daemon is unaffected
        status = app.home.status()
        assert status["connects"] == 0 and "Connect" in status["detail"]
        assert "t" * 30 not in str(status)


async def test_the_link_backs_off_doubling_up_to_the_max():
    from homeagent.home import HomeLink, LinkSettings
    from homeagent.llm.credentials import Secret

    link = HomeLink(LinkSettings(f"http://127.0.0.1:{free_port()}", reconnect_min=0.01, reconnect_max=0.04), Secret("t"))
    waits: list[float] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(link.run)
        with anyio.fail_after(10):
            while len(waits) < 5:
                await link.wait_changed()
                if link.status()["retry_in_s"]:  # set once per failed attempt, for its wait
                    waits.append(link.status()["retry_in_s"])
        tg.cancel_scope.cancel()
    assert waits[:3] == [0.01, 0.02, 0.04] and set(waits[3:]) == {0.04}
