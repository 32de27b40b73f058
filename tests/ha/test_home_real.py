"""HomeAgent's device tools against a real Home Assistant (2025.4, started by conftest).

(b) the scripted provider drives the device tools, which switch entities over the API;
HomeAgent's state cache follows a change made in Home Assistant. A question about state
makes no service call (Home Assistant's own `call_service` events are watched). Entity
resolution in Chinese and English, the question back when two match, the confirm class of
locks and covers. (c) Home Assistant stopped mid-test: the turn still answers, plainly,
and the link comes back when it restarts.
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import pytest

from homeagent.home import HomeLink
from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from tests.ha.harness import HomeAssistantProcess
from tests.integration.helpers import running_app, text_of, turn

# The first test may build the venv (when `make ha-venv` did not) and start Home Assistant.
pytestmark = [pytest.mark.anyio, pytest.mark.home_assistant, pytest.mark.timeout(900)]


def _config(make_config, ha: HomeAssistantProcess, **extra: Any):
    return make_config(
        home_assistant={"url": ha.url, "token": ha.token, "reconnect_min": "0.2s", "reconnect_max": "1s"},
        daemon={"check_interval": 0, "heartbeat_interval": 0}, knowledge={"watch": False}, **extra,
    )


async def connected(link: HomeLink, seconds: float = 60) -> None:
    with anyio.fail_after(seconds):
        while not link.connected:
            await link.wait_changed()


async def until(link: HomeLink, check, seconds: float = 5) -> None:
    """Wait (event-driven, no polling sleep) until `check(house)` holds."""
    with anyio.fail_after(seconds):
        while not check(link.house()):
            await link.wait_changed()


def tool_results(provider: ScriptedProvider) -> list[str]:
    return [m.content for r in provider.requests for m in r.messages if m.role == "tool"]


@asynccontextmanager
async def service_calls(ha: HomeAssistantProcess):
    """Every `call_service` event Home Assistant fires while the block runs."""
    seen: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as http, http.ws_connect(f"{ha.url}/api/websocket") as ws:
        await ws.receive_json()
        await ws.send_json({"type": "auth", "access_token": ha.token})
        assert (await ws.receive_json())["type"] == "auth_ok"
        await ws.send_json({"id": 1, "type": "subscribe_events", "event_type": "call_service"})
        assert (await ws.receive_json())["success"]

        marker_seen = anyio.Event()

        async def collect() -> None:
            async for msg in ws:
                data = json.loads(msg.data)
                if data.get("type") == "event":
                    seen.append(data["event"]["data"])
                    if data["event"]["data"].get("service_data", {}).get("entity_id") == "input_boolean.heater":
                        marker_seen.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(collect)
            yield seen
            # A marker call makes sure every earlier event has arrived before we stop.
            await ha.rest("POST", "/api/services/input_boolean/turn_on", {"entity_id": "input_boolean.heater"})
            with anyio.fail_after(10):
                await marker_seen.wait()
            tg.cancel_scope.cancel()
    seen[:] = [c for c in seen if c.get("service_data", {}).get("entity_id") != "input_boolean.heater"]


async def test_device_tools_switch_entities_and_the_cache_follows_home_assistant(home_assistant, make_config):
    ha = home_assistant
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("home_turn_on", {"name": "kitchen light"})]),
        ScriptedReply(text="The kitchen light is on."),
        ScriptedReply(tool_calls=[("home_set", {"name": "客厅的灯", "brightness": 40})]),
        ScriptedReply(text="客厅的灯调到40%了。"),
    ])  # fmt: skip
    async with running_app(_config(make_config, ha), provider=provider, http=True) as app:
        assert app.home is not None
        await connected(app.home)
        events = await turn(app, "turn on the kitchen light")
        assert text_of(events) == "The kitchen light is on."
        assert (await ha.state("light.kitchen_light"))["state"] == "on"
        assert "Kitchen Light is now on" in tool_results(provider)[-1]

        await turn(app, "把客厅的灯调到40%")
        lamp = await ha.state("light.living_room_lamp")
        assert lamp["state"] == "on" and round(lamp["attributes"]["brightness"] * 100 / 255) == 40

        # A change made in Home Assistant reaches HomeAgent's cache by its state_changed event.
        await ha.rest("POST", "/api/services/light/turn_off", {"entity_id": "light.kitchen_light"})
        await until(app.home, lambda h: h.get("light.kitchen_light").state == "off")
        # Only exposed entities: the heater relay is hidden from assistants, inputs are not exposed.
        house = app.home.house()
        assert "switch.heater" not in house.entities and "input_boolean.kitchen_light" not in house.entities
        assert {"light.kitchen_light", "lock.front_door", "cover.garage_door", "script.good_night"} <= set(house.entities)


async def test_a_question_about_state_calls_no_service(home_assistant, make_config):
    ha = home_assistant
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("home_status", {"name": "kitchen light"})]),
        ScriptedReply(text="It is off."),
        ScriptedReply(tool_calls=[("home_status", {})]),
        ScriptedReply(text="Here is the house."),
    ])  # fmt: skip
    async with running_app(_config(make_config, ha), provider=provider, http=True) as app:
        await connected(app.home)
        async with service_calls(ha) as calls:
            await turn(app, "is the kitchen light on?")
            await turn(app, "家里现在什么开着？温度多少？")
        assert calls == []
        kitchen, summary = tool_results(provider)[-2:]
        assert kitchen.startswith("Kitchen Light (light, Kitchen):")
        assert "Living Room Thermostat (climate)" in summary and "Living Room Temperature: 21.5 °C" in summary


async def test_two_matches_ask_back_and_change_nothing(home_assistant, make_config):
    ha = home_assistant
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("home_turn_on", {"name": "卧室的灯"})]),
        ScriptedReply(text="卧室有两盏灯，要开哪一盏？"),
    ])  # fmt: skip
    async with running_app(_config(make_config, ha), provider=provider, http=True) as app:
        await connected(app.home)
        async with service_calls(ha) as calls:
            await turn(app, "打开卧室的灯")
        assert calls == []
        result = tool_results(provider)[-1]
        assert "Bedroom Ceiling" in result and "Bedroom Lamp" in result and "哪一个" in result


async def test_locks_and_garage_doors_ask_first(home_assistant, make_config):
    ha = home_assistant
    before = (await ha.state("lock.front_door"))["state"]
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("home_secure", {"name": "前门", "action": "lock"})]),
        ScriptedReply(text="需要你确认。"),
        ScriptedReply(tool_calls=[("home_turn_on", {"name": "garage door"})]),
        ScriptedReply(text="That one goes through home_secure."),
    ])  # fmt: skip
    async with running_app(_config(make_config, ha), provider=provider, http=True) as app:
        await connected(app.home)
        await turn(app, "把前门锁上")
        await turn(app, "open the garage door")
    results = tool_results(provider)
    assert "confirmation" in results[0]
    assert "use home_secure" in results[1]
    assert (await ha.state("lock.front_door"))["state"] == before
    assert (await ha.state("cover.garage_door"))["state"] == "closed"

    # With the rule changed to allow, the same call locks the real lock.
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("home_secure", {"name": "front door", "action": "lock"})]), "Locked.",
    ])
    config = _config(make_config, ha, permissions={"tools": ["home_secure=allow"]})
    async with running_app(config, provider=provider, http=True) as app:
        await connected(app.home)
        await turn(app, "lock the front door")
    assert (await ha.state("lock.front_door"))["state"] == "locked"


async def test_home_assistant_stopped_mid_test_then_back(home_assistant, make_config):
    ha = home_assistant
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("home_status", {"name": "kitchen light"})]), "Home Assistant is down right now.",
        ScriptedReply(tool_calls=[("home_turn_on", {"name": "coffee maker"})]), "Coffee is on.",
    ])  # fmt: skip
    async with running_app(_config(make_config, ha), provider=provider, http=True) as app:
        await connected(app.home)
        port = app.health.port
        await anyio.to_thread.run_sync(ha.stop)
        with anyio.fail_after(30):
            while app.home.connected:
                await app.home.wait_changed()
        events = await turn(app, "is the kitchen light on?")
        assert text_of(events) == "Home Assistant is down right now."
        assert "is unavailable" in tool_results(provider)[-1]
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/healthz") as resp:
            health = await resp.json()
        assert health["home_assistant"]["state"] in ("unreachable", "connecting")
        assert health["status"] == "ok"  # the daemon keeps working

        await anyio.to_thread.run_sync(ha.start)
        await connected(app.home)
        await until(app.home, lambda h: "switch.coffee_maker" in h.entities, seconds=30)
        await turn(app, "turn on the coffee maker")
        assert (await ha.state("switch.coffee_maker"))["state"] == "on"
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/healthz") as resp:
            health = await resp.json()
        assert health["home_assistant"]["state"] == "connected" and health["home_assistant"]["connects"] >= 2
        assert ha.token not in json.dumps(health)


async def test_home_assistant_ollama_integration_sends_its_tools(home_assistant):
    """The capture behind bench/data/ha_tools_ollama_*.json, redone against this run's HA."""
    from tests.ha.capture import CapturingOllama, capture, configure_ollama

    ha = home_assistant
    await ha.rest("POST", "/api/services/light/turn_off", {"entity_id": "light.kitchen_light"})
    fake = CapturingOllama()
    await fake.start()
    try:
        agent = await configure_ollama(ha, fake.url)
        exchange = await capture(ha, fake, agent, "turn on the kitchen light")
    finally:
        await fake.stop()
    first, second = exchange["requests"]
    names = {t["function"]["name"] for t in first["tools"]}
    committed = json.loads((Path(__file__).parents[2] / "bench/data/ha_tools_ollama_2025.4.4.json").read_text())
    assert names == {t["function"]["name"] for t in committed["tools"]}
    assert {"HassTurnOn", "HassTurnOff", "HassLightSet", "GetLiveContext"} <= names
    assert first["keep_alive"] == "-1.0s" and first["options"] == {"num_ctx": 8192.0}
    assert "Kitchen Light" in first["messages"][0]["content"]
    # Home Assistant ran the tool call itself and posted its result in a second round.
    assert second["messages"][-1]["role"] == "tool" and "light.kitchen_light" in second["messages"][-1]["content"]
    assert "content" not in second["messages"][-2]
    assert (await ha.state("light.kitchen_light"))["state"] == "on"


async def test_doctor_reports_the_house(home_assistant, tmp_path):
    from homeagent.doctor import run_checks
    from tests.conftest import write_config

    def check(**ha: Any):
        path = write_config(tmp_path, home_assistant=ha)
        return next(c for c in run_checks(str(path), probe=True) if c.name == "home_assistant")

    good = await anyio.to_thread.run_sync(lambda: check(url=home_assistant.url, token=home_assistant.token))
    assert good.ok and "Home Assistant 2025.4.4, RUNNING" in good.detail
    bad = await anyio.to_thread.run_sync(lambda: check(url=home_assistant.url, token="not-a-token"))
    assert not bad.ok and "refused the access token" in bad.detail and "not-a-token" not in bad.detail + bad.fix
    down = await anyio.to_thread.run_sync(lambda: check(url="http://127.0.0.1:9", token="x" * 20))
    assert not down.ok and "cannot be reached" in down.detail


async def test_a_refused_token_is_reported_plainly(home_assistant, make_config):
    ha = home_assistant
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("home_turn_on", {"name": "kitchen light"})]), "Sorry."])
    config = make_config(home_assistant={"url": ha.url, "token": "wrong-token-value"},
                         daemon={"check_interval": 0, "heartbeat_interval": 0}, knowledge={"watch": False})
    async with running_app(config, provider=provider, http=True) as app:
        with anyio.fail_after(30):
            while app.home.status()["state"] != "auth_failed":
                await app.home.wait_changed()
        await turn(app, "turn on the kitchen light")
        status = app.home.status()
    assert "refused HomeAgent's access token" in tool_results(provider)[-1]
    assert "wrong-token-value" not in json.dumps(status) + tool_results(provider)[-1]


async def test_thermostat_script_and_speaker(home_assistant, make_config):
    ha = home_assistant
    await ha.rest("POST", "/api/services/light/turn_on", {"entity_id": "light.bedroom_lamp"})
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("home_set", {"name": "空调", "temperature": 23})]), "好的，23度。",
        ScriptedReply(tool_calls=[("home_set", {"name": "speaker", "volume": 55})]), "Volume 55.",
        ScriptedReply(tool_calls=[("home_run", {"name": "good night"})]), "Good night.",
    ])  # fmt: skip
    async with running_app(_config(make_config, ha), provider=provider, http=True) as app:
        await connected(app.home)
        await turn(app, "把空调调到23度")
        await turn(app, "set the speaker volume to 55")
        await turn(app, "good night")
        await until(app.home, lambda h: h.get("light.bedroom_lamp").state == "off")
    results = tool_results(provider)
    assert "target 23" in results[0], results[0]
    assert (await ha.state("climate.living_room_thermostat"))["attributes"]["temperature"] == 23
    assert (await ha.state("input_number.speaker_volume"))["state"] == "0.55"
    assert results[2] == "started Good Night (script)"
