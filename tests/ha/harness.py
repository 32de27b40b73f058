"""A real Home Assistant for the tests: generated configuration, headless start, onboarding.

`HomeAssistantProcess` writes a configuration with template lights (among them a
"Kitchen Light"), switches, a thermostat (generic_thermostat on a template sensor), a
lock, a garage door, a scene and a script, starts `hass -c DIR --skip-pip` from the venv
`setup_ha_venv.sh` builds, on a free loopback port, onboards the owner through the HTTP
API (`/api/onboarding/users`, then `/auth/token` with the auth code), and mints a
long-lived token over the WebSocket (`auth/long_lived_access_token`). `stop()` and
`start()` again keep the same configuration directory, so a restart is a restart.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import aiohttp

HA_VERSION = os.environ.get("HOMEAGENT_HA_VERSION", "2025.4.4")
HERE = Path(__file__).resolve().parent


def venv_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "homeagent" / f"ha-{HA_VERSION}"
    return Path(os.environ.get("HOMEAGENT_HA_VENV", default))


def ensure_venv() -> Path:
    """The Home Assistant venv, built (or found in the cache) by setup_ha_venv.sh."""
    venv = venv_dir()
    if not (venv / ".homeagent-ready").exists():
        subprocess.run(["bash", str(HERE / "setup_ha_venv.sh")], check=True)
    return venv


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _bool(name: str) -> str:
    return f"{{{{ is_state('input_boolean.{name}', 'on') }}}}"


def _toggle(name: str, on: str, off: str) -> dict[str, Any]:
    return {
        on: {"action": "input_boolean.turn_on", "target": {"entity_id": f"input_boolean.{name}"}},
        off: {"action": "input_boolean.turn_off", "target": {"entity_id": f"input_boolean.{name}"}},
    }


def configuration(port: int) -> dict[str, Any]:
    """A small house: only the integrations it needs, so Home Assistant starts fast."""
    lights = {}
    for key, name in (("kitchen_light", "Kitchen Light"), ("living_room_lamp", "Living Room Lamp"),
                      ("bedroom_lamp", "Bedroom Lamp"), ("bedroom_ceiling", "Bedroom Ceiling")):
        lights[key] = {
            "unique_id": key, "friendly_name": name, "value_template": _bool(key),
            "level_template": f"{{{{ states('input_number.{key}_level') | int }}}}",
            **_toggle(key, "turn_on", "turn_off"),
            "set_level": [
                {"action": "input_number.set_value", "target": {"entity_id": f"input_number.{key}_level"},
                 "data": {"value": "{{ brightness }}"}},
                {"action": "input_boolean.turn_on", "target": {"entity_id": f"input_boolean.{key}"}},
            ],
        }
    booleans = [*lights, "coffee_maker", "heater", "front_door_locked", "garage_open", "speaker_on", "speaker_playing"]
    return {
        "homeassistant": {
            "name": "Test Home", "latitude": 31.23, "longitude": 121.47, "elevation": 4,
            "unit_system": "metric", "time_zone": "UTC", "currency": "CNY", "country": "CN",
            "internal_url": f"http://127.0.0.1:{port}",
        },
        "http": {"server_host": "127.0.0.1", "server_port": port},
        "api": {}, "websocket_api": {}, "onboarding": {}, "config": {}, "conversation": {},
        "logger": {"default": "warning"},
        "input_boolean": {name: {"name": name} for name in booleans},
        "input_number": {
            **{f"{key}_level": {"min": 0, "max": 255, "step": 1, "initial": 128} for key in lights},
            "living_room_temp": {"min": 0, "max": 40, "step": 0.5, "initial": 21.5},
            "speaker_volume": {"min": 0, "max": 1, "step": 0.01, "initial": 0.3},
        },
        # A speaker built from helpers: the media intents (pause, next, volume) need one.
        "media_player": [{"platform": "universal", "name": "Living Room Speaker", "unique_id": "living_room_speaker",
                          "state_template": "{{ 'off' if is_state('input_boolean.speaker_on', 'off') else "
                                            "('playing' if is_state('input_boolean.speaker_playing', 'on') else 'paused') }}",
                          "attributes": {"volume_level": "input_number.speaker_volume"},
                          "commands": {
                              **_toggle("speaker_on", "turn_on", "turn_off"),
                              **_toggle("speaker_playing", "media_play", "media_pause"),
                              "media_next_track": {"action": "input_boolean.turn_on", "target": {"entity_id": "input_boolean.speaker_playing"}},
                              "media_previous_track": {"action": "input_boolean.turn_on", "target": {"entity_id": "input_boolean.speaker_playing"}},
                              "volume_set": {"action": "input_number.set_value", "target": {"entity_id": "input_number.speaker_volume"},
                                             "data": {"value": "{{ volume_level }}"}},
                          }}],
        "light": [{"platform": "template", "lights": lights}],
        "switch": [{"platform": "template", "switches": {
            "coffee_maker": {"unique_id": "coffee_maker", "friendly_name": "Coffee Maker",
                             "value_template": _bool("coffee_maker"), **_toggle("coffee_maker", "turn_on", "turn_off")},
            "heater": {"unique_id": "heater", "friendly_name": "Heater Relay",
                       "value_template": _bool("heater"), **_toggle("heater", "turn_on", "turn_off")},
        }}],
        "sensor": [{"platform": "template", "sensors": {
            "living_room_temperature": {
                "unique_id": "living_room_temperature", "friendly_name": "Living Room Temperature",
                "unit_of_measurement": "°C", "device_class": "temperature",
                "value_template": "{{ states('input_number.living_room_temp') | float }}",
            },
        }}],
        "climate": [{"platform": "generic_thermostat", "name": "Living Room Thermostat",
                     "unique_id": "living_room_thermostat", "heater": "switch.heater",
                     "target_sensor": "sensor.living_room_temperature", "target_temp": 20,
                     "min_temp": 10, "max_temp": 30}],
        "lock": [{"platform": "template", "name": "Front Door", "unique_id": "front_door",
                  "value_template": _bool("front_door_locked"),
                  **_toggle("front_door_locked", "lock", "unlock")}],
        "cover": [{"platform": "template", "covers": {"garage_door": {
            "unique_id": "garage_door", "friendly_name": "Garage Door", "device_class": "garage",
            "value_template": _bool("garage_open"), **_toggle("garage_open", "open_cover", "close_cover"),
        }}}],
        "scene": [{"id": "movie_night", "name": "Movie Night", "entities": {
            "input_boolean.living_room_lamp": "off", "input_boolean.kitchen_light": "off"}}],
        "script": {"good_night": {"alias": "Good Night", "sequence": [
            {"action": "input_boolean.turn_off", "target": {"entity_id": [f"input_boolean.{k}" for k in lights]}},
        ]}},
    }


class HomeAssistantProcess:
    """One Home Assistant, started and stopped by the tests."""

    def __init__(self, config_dir: Path, *, port: int | None = None, env: dict[str, str] | None = None):
        self.config_dir = config_dir
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.venv = ensure_venv()
        self.proc: subprocess.Popen[bytes] | None = None
        self.token = ""
        self.env = env or {}  # more environment for hass (e.g. OPENAI_BASE_URL for a capture)
        self.start_seconds = 0.0
        self._log = None

    def write_config(self) -> None:
        import yaml

        self.config_dir.mkdir(parents=True, exist_ok=True)
        text = yaml.safe_dump(configuration(self.port), allow_unicode=True, sort_keys=False)
        (self.config_dir / "configuration.yaml").write_text(text, encoding="utf-8")

    def start(self, timeout: float = 240) -> float:
        """Start and wait until the API answers; returns the seconds it took."""
        if not (self.config_dir / "configuration.yaml").exists():
            self.write_config()
        started = time.monotonic()
        self._log = open(self.config_dir / "hass.out", "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [str(self.venv / "bin" / "hass"), "-c", str(self.config_dir), "--skip-pip"],
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True, env={**os.environ, **self.env},
        )
        deadline = started + timeout
        while time.monotonic() < deadline:
            if (code := self.proc.poll()) is not None:
                self.stop()
                raise RuntimeError(f"hass exited with {code}; see {self.config_dir / 'hass.out'}")
            if self._answers():
                self.start_seconds = time.monotonic() - started
                return self.start_seconds
            time.sleep(0.25)
        self.stop()  # never leave a half-started Home Assistant behind
        raise TimeoutError(f"Home Assistant did not answer on {self.url} within {timeout} s")

    def _answers(self) -> bool:
        import urllib.error
        import urllib.request

        try:
            if not self.token:  # before onboarding: the onboarding view answers
                with urllib.request.urlopen(f"{self.url}/api/onboarding", timeout=1) as resp:
                    return resp.status == 200
            # Onboarded: wait until every integration has started (core state RUNNING).
            request = urllib.request.Request(f"{self.url}/api/config", headers={"Authorization": f"Bearer {self.token}"})
            with urllib.request.urlopen(request, timeout=1) as resp:
                return json.loads(resp.read()).get("state") == "RUNNING"
        except (OSError, ValueError):
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    # -- onboarding and admin calls ----------------------------------------------

    async def onboard(self) -> str:
        """Create the owner, exchange the auth code, mint a long-lived token."""
        client_id = f"{self.url}/"
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{self.url}/api/onboarding/users", json={
                "client_id": client_id, "name": "Owner", "username": "owner",
                "password": "homeagent-test-pw", "language": "en",
            }) as resp:  # fmt: skip
                resp.raise_for_status()
                code = (await resp.json())["auth_code"]
            async with http.post(f"{self.url}/auth/token", data={
                "grant_type": "authorization_code", "code": code, "client_id": client_id,
            }) as resp:  # fmt: skip
                resp.raise_for_status()
                access = (await resp.json())["access_token"]
            headers = {"Authorization": f"Bearer {access}"}
            # core_config is left out: it would set up weather, radio and TTS integrations.
            for step, body in (("analytics", {}), ("integration", {"client_id": client_id, "redirect_uri": f"{self.url}/?auth_callback=1"})):
                async with http.post(f"{self.url}/api/onboarding/{step}", json=body, headers=headers) as resp:
                    await resp.read()
        self.token = await self.ws(access, {"type": "auth/long_lived_access_token",
                                            "client_name": "homeagent-tests", "lifespan": 30})
        return self.token

    async def ws(self, token: str, *commands: dict[str, Any]) -> Any:
        """Run WebSocket commands in order; returns the last result (raises on an error)."""
        result: Any = None
        async with aiohttp.ClientSession() as http, http.ws_connect(f"{self.url}/api/websocket") as ws:
            await ws.receive_json()
            await ws.send_json({"type": "auth", "access_token": token})
            if (await ws.receive_json()).get("type") != "auth_ok":
                raise RuntimeError("Home Assistant refused the token")
            for i, command in enumerate(commands, start=1):
                await ws.send_json({"id": i, **command})
                while True:
                    msg = await ws.receive_json()
                    if msg.get("id") == i and msg.get("type") == "result":
                        break
                if not msg.get("success"):
                    raise RuntimeError(f"{command['type']} failed: {json.dumps(msg.get('error'))}")
                result = msg.get("result")
        return result

    async def admin(self, *commands: dict[str, Any]) -> Any:
        return await self.ws(self.token, *commands)

    async def rest(self, method: str, path: str, body: Any = None) -> Any:
        async with aiohttp.ClientSession() as http, http.request(
            method, f"{self.url}{path}", json=body, headers={"Authorization": f"Bearer {self.token}"},
            timeout=aiohttp.ClientTimeout(total=120),
        ) as resp:
            text = await resp.text()
            if resp.status >= 400:
                raise RuntimeError(f"{method} {path}: {resp.status} {text}")
            return json.loads(text) if text else None

    async def state(self, entity_id: str) -> dict[str, Any]:
        return await self.rest("GET", f"/api/states/{entity_id}")

    async def furnish(self) -> None:
        """Areas (with Chinese aliases), entity aliases and the expose list of the test house."""
        # Onboarding already made Kitchen, Living Room and Bedroom; the others are added.
        existing = {a["name"]: a["area_id"] for a in await self.admin({"type": "config/area_registry/list"})}
        areas = {}
        for name, aliases in (("Kitchen", ["厨房"]), ("Living Room", ["客厅"]), ("Bedroom", ["卧室"]),
                              ("Garage", ["车库"]), ("Entrance", ["玄关"])):
            if name in existing:
                await self.admin({"type": "config/area_registry/update", "area_id": existing[name], "aliases": aliases})
                areas[name] = existing[name]
            else:
                created = await self.admin({"type": "config/area_registry/create", "name": name, "aliases": aliases})
                areas[name] = created["area_id"]
        placement = {
            "light.kitchen_light": ("Kitchen", ["厨房灯"]), "switch.coffee_maker": ("Kitchen", ["咖啡机"]),
            "light.living_room_lamp": ("Living Room", ["落地灯", "sofa lamp"]),
            "climate.living_room_thermostat": ("Living Room", ["空调"]),
            "media_player.living_room_speaker": ("Living Room", ["音箱"]),
            "sensor.living_room_temperature": ("Living Room", []),
            "light.bedroom_lamp": ("Bedroom", ["床头灯"]), "light.bedroom_ceiling": ("Bedroom", ["吊灯"]),
            "cover.garage_door": ("Garage", ["车库门"]), "lock.front_door": ("Entrance", ["前门", "大门"]),
        }
        for entity_id, (area, aliases) in placement.items():
            await self.admin({"type": "config/entity_registry/update", "entity_id": entity_id,
                              "area_id": areas[area], "aliases": aliases})
        # A shopping list (a todo entity: the list intents need one), as onboarding would add it.
        flow = await self.rest("POST", "/api/config/config_entries/flow", {"handler": "shopping_list"})
        if flow.get("type") == "form":
            await self.rest("POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {})
        # Locks are not exposed by default; the heater relay stays hidden from assistants.
        await self.admin(
            {"type": "homeassistant/expose_entity", "assistants": ["conversation"],
             "entity_ids": ["lock.front_door", "script.good_night"], "should_expose": True},
            {"type": "homeassistant/expose_entity", "assistants": ["conversation"],
             "entity_ids": ["switch.heater"], "should_expose": False},
        )
