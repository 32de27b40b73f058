"""The link to Home Assistant: one WebSocket, a state cache kept current, service calls.

`HomeLink.run()` is a long-lived task (owned by the app's task group). It connects to
`<url>/api/websocket`, authenticates with the token, subscribes to `state_changed` and to
registry updates *before* reading the states (so no change falls between), reads the
expose list and the entity, device and area registries, and then applies every event to
its cache. When Home Assistant is unreachable or the connection drops, it retries with a
doubling wait (`reconnect_min` … `reconnect_max`); a refused token waits the longest.
The daemon never waits for it: `house()` is the last snapshot, `status()` says whether it
is current, and `call_service` raises `HomeUnavailable` with a plain message when the
link is down.

The token travels as a `Secret`; it is revealed only in the auth message and the REST
Authorization header, and never logged.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

import aiohttp
import anyio

from homeagent.errors import HomeUnavailable
from homeagent.home.house import Area, Entity, House, RegistryEntry, is_exposed, narrowed
from homeagent.llm.credentials import Secret
from homeagent.log import get_logger

log = get_logger("homeagent.home")

LinkState = Literal["connecting", "connected", "unreachable", "auth_failed"]
# Registries change rarely, and the expose list has no event of its own: read them again
# on a registry event and at this interval.
REFRESH_INTERVAL = 60.0


@dataclass(frozen=True)
class LinkSettings:
    url: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    connect_timeout: float = 5.0
    call_timeout: float = 10.0
    reconnect_min: float = 1.0
    reconnect_max: float = 30.0


class _AuthRefused(Exception):
    pass


class _Pending:
    def __init__(self) -> None:
        self.event = anyio.Event()
        self.message: Mapping[str, Any] = {}


class HomeLink:
    def __init__(
        self, settings: LinkSettings, token: Secret, *, missing_token: str = "", now: Callable[[], float] = time.time
    ):
        self.settings = settings
        self._token = token
        self._missing_token = missing_token or ("" if token else "no access token configured")
        self._now = now
        self._state: LinkState = "connecting"
        self._detail = "not connected yet"
        self._since = now()
        self._version = ""
        self._connects = 0
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._next_id = 1
        self._pending: dict[int, _Pending] = {}
        self._states: dict[str, dict[str, Any]] = {}
        self._registry: dict[str, RegistryEntry] = {}
        self._device_areas: dict[str, str] = {}
        self._areas: dict[str, Area] = {}
        self._listed: frozenset[str] = frozenset()
        self._expose_new = True
        self.problem = ""  # why nothing is visible although the link is up, if that is so
        self._retry_in = 0.0
        self._house = House()
        self._dirty = False
        self._changed = anyio.Event()
        self._refresh_wanted = anyio.Event()

    # -- what others read ----------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._state == "connected"

    def house(self) -> House:
        if self._dirty:  # rebuilt when read, not on every event of a busy house
            self._dirty = False
            self._house = self._build()
        return self._house

    def status(self) -> dict[str, Any]:
        """For /healthz and the doctor: state, since when, what is visible. No secrets."""
        return {
            "state": self._state,
            "url": self.settings.url,
            "detail": self._detail,
            "since": round(self._since, 3),
            "version": self._version,
            "entities": len(self.house().entities),
            "connects": self._connects,
            "retry_in_s": self._retry_in,
            **({"problem": self.problem} if self.problem else {}),
        }

    def unavailable(self) -> HomeUnavailable:
        """The plain error a device tool answers with while the link is down."""
        if self._state == "auth_failed":
            why = "it refused HomeAgent's access token (check home_assistant.token or the credential)"
        elif self._state == "connecting" and not self._connects:
            why = "HomeAgent has not connected to it yet"
        else:
            why = f"it cannot be reached ({self._detail})"
        return HomeUnavailable(
            f"Home Assistant at {self.settings.url} is unavailable: {why}. Devices cannot be "
            "read or controlled right now; HomeAgent retries in the background. "
            "Tell the user plainly. / 现在连不上 Home Assistant，暂时无法查看或控制设备。"
        )

    async def wait_changed(self) -> None:
        """Returns after the next change of the cache (a state, a registry, the link)."""
        await self._changed.wait()

    # -- the long-lived task -------------------------------------------------------

    async def run(self) -> None:
        if self._missing_token:
            self._set_state("auth_failed", self._missing_token)
            await anyio.sleep_forever()
        delay = self.settings.reconnect_min
        while True:
            connected_before = self._connects
            try:
                await self._session()
                self._set_state("unreachable", "the connection closed")
            except Exception as err:  # noqa: BLE001 - a failing link is retried, never a crash
                cause = _unwrap(err)
                if isinstance(cause, _AuthRefused):
                    self._set_state("auth_failed", str(cause))
                    delay = self.settings.reconnect_max
                else:
                    self._set_state("unreachable", _describe(cause))
            finally:
                self._ws = None
                self._fail_pending()
            if self._connects > connected_before and self._state != "auth_failed":
                delay = self.settings.reconnect_min
            log.info("home.link.retry", state=self._state, detail=self._detail, wait_s=delay)
            self._retry_in = delay
            self._notify()
            await anyio.sleep(delay)
            self._retry_in = 0.0
            delay = min(delay * 2, self.settings.reconnect_max)
            if self._state != "auth_failed":
                self._set_state("connecting", f"retrying {self.settings.url}")

    async def _session(self) -> None:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.settings.connect_timeout)
        url = self.settings.url.rstrip("/") + "/api/websocket"
        async with aiohttp.ClientSession(timeout=timeout) as session:
            with anyio.fail_after(self.settings.connect_timeout):
                ws = await session.ws_connect(url, heartbeat=30, max_msg_size=0)
            async with ws:
                with anyio.fail_after(self.settings.connect_timeout):
                    await self._authenticate(ws)
                self._ws = ws
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._read, ws, tg.cancel_scope)
                    await self._command({"type": "subscribe_events", "event_type": "state_changed"})
                    for event in ("entity_registry_updated", "area_registry_updated", "device_registry_updated"):
                        await self._command({"type": "subscribe_events", "event_type": event})
                    await self._load_registries()
                    states = await self._command({"type": "get_states"})
                    self._states = {s["entity_id"]: s for s in states or [] if isinstance(s, dict)}
                    self._connects += 1
                    self._rebuild()
                    self._set_state("connected", f"{len(self._states)} entities, {len(self.house().entities)} exposed")
                    log.info("home.link.connected", url=self.settings.url, version=self._version,
                             entities=len(self._states), exposed=len(self.house().entities))
                    tg.start_soon(self._refresher)

    async def _authenticate(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        hello = await ws.receive_json()
        if hello.get("type") != "auth_required":
            raise ValueError(f"unexpected first message {hello.get('type')!r}")
        await ws.send_json({"type": "auth", "access_token": self._token.reveal()})
        answer = await ws.receive_json()
        if answer.get("type") != "auth_ok":
            # HA's message never contains the token, but scrub it all the same.
            raise _AuthRefused(self._token.scrub(str(answer.get("message") or "invalid access token")))
        self._version = str(answer.get("ha_version", ""))

    async def _read(self, ws: aiohttp.ClientWebSocketResponse, scope: anyio.CancelScope) -> None:
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                if msg.type in (aiohttp.WSMsgType.ERROR, aiohttp.WSMsgType.CLOSE):
                    break
                continue
            try:
                data = json.loads(msg.data)
            except json.JSONDecodeError:
                continue
            for item in data if isinstance(data, list) else [data]:
                if isinstance(item, dict):
                    self._dispatch(item)
        scope.cancel()

    def _dispatch(self, message: Mapping[str, Any]) -> None:
        if message.get("type") == "event":
            event = message.get("event") or {}
            kind = event.get("event_type")
            if kind == "state_changed":
                data = event.get("data") or {}
                entity_id, new = data.get("entity_id"), data.get("new_state")
                if isinstance(entity_id, str):
                    if new is None:
                        self._states.pop(entity_id, None)
                    else:
                        self._states[entity_id] = new
                    self._rebuild()
            elif kind in ("entity_registry_updated", "area_registry_updated", "device_registry_updated"):
                self._refresh_wanted.set()
            return
        pending = self._pending.pop(int(message.get("id") or 0), None)
        if pending is not None:
            pending.message = message
            pending.event.set()

    async def _refresher(self) -> None:
        while True:
            with anyio.move_on_after(REFRESH_INTERVAL):
                await self._refresh_wanted.wait()
            self._refresh_wanted = anyio.Event()
            try:
                await self._load_registries()
            except HomeUnavailable as err:
                log.warning("home.registries.failed", error=str(err))
            self._rebuild()

    async def _load_registries(self) -> None:
        listed = await self._command({"type": "config/entity_registry/list"}) or []
        ids = [e["entity_id"] for e in listed if isinstance(e, dict) and "entity_id" in e]
        # The list leaves aliases out; the extended entries carry them.
        extended = await self._command({"type": "config/entity_registry/get_entries", "entity_ids": ids}) if ids else {}
        registry: dict[str, RegistryEntry] = {}
        for e in listed:
            if not isinstance(e, dict) or "entity_id" not in e:
                continue
            more = (extended or {}).get(e["entity_id"]) or {}
            decision = ((e.get("options") or {}).get("conversation") or {}).get("should_expose")
            registry[e["entity_id"]] = RegistryEntry(
                entity_id=e["entity_id"], aliases=tuple(a for a in more.get("aliases") or () if a),
                area_id=e.get("area_id"), device_id=e.get("device_id"),
                hidden=bool(e.get("hidden_by")), entity_category=e.get("entity_category"), name=e.get("name"),
                exposed=decision if isinstance(decision, bool) else None,
            )  # fmt: skip
        self._registry = registry
        devices = await self._command({"type": "config/device_registry/list"}) or []
        self._device_areas = {d["id"]: d["area_id"] for d in devices if isinstance(d, dict) and d.get("area_id")}
        areas = await self._command({"type": "config/area_registry/list"}) or []
        self._areas = {
            a["area_id"]: Area(a["area_id"], a.get("name") or a["area_id"], tuple(x for x in a.get("aliases") or () if x))
            for a in areas if isinstance(a, dict) and "area_id" in a
        }  # fmt: skip
        try:
            exposed = await self._command({"type": "homeassistant/expose_entity/list"}) or {}
            self._listed = frozenset(
                k for k, v in (exposed.get("exposed_entities") or {}).items() if (v or {}).get("conversation")
            )
            new = await self._command({"type": "homeassistant/expose_new_entities/get", "assistant": "conversation"})
            self._expose_new = bool((new or {}).get("expose_new", True))
            self.problem = ""
        except HomeUnavailable as err:
            # A non-admin token cannot read the expose list: see nothing rather than everything.
            log.warning("home.expose_list.unreadable", error=str(err))
            self._listed, self._expose_new = frozenset(), False
            self.problem = (
                "Home Assistant does not let this token read its expose list (an administrator's "
                "token is needed), so HomeAgent sees no devices"
            )
            self._registry = {k: replace(v, exposed=False) for k, v in self._registry.items()}

    def _rebuild(self) -> None:
        self._dirty = True
        self._notify()

    def _build(self) -> House:
        entities: dict[str, Entity] = {}
        s = self.settings
        for entity_id, state in self._states.items():
            attributes = state.get("attributes") or {}
            entry = self._registry.get(entity_id)
            if not is_exposed(entity_id, attributes, entry, self._listed, self._expose_new):
                continue
            if not narrowed(entity_id, s.include, s.exclude):
                continue
            area_id = entry.area_id if entry else None
            if area_id is None and entry is not None and entry.device_id:
                area_id = self._device_areas.get(entry.device_id)
            entities[entity_id] = Entity(
                entity_id=entity_id, state=str(state.get("state", "")), attributes=attributes,
                aliases=entry.aliases if entry else (), area=self._areas.get(area_id) if area_id else None,
                last_changed=str(state.get("last_changed", "")),
            )  # fmt: skip
        return House(entities, dict(self._areas))

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def _set_state(self, state: LinkState, detail: str) -> None:
        if state != self._state:
            self._since = self._now()
            log.info("home.link.state", state=state, detail=detail)
        self._state, self._detail = state, detail
        self._notify()

    def _fail_pending(self) -> None:
        pending, self._pending = self._pending, {}
        for p in pending.values():
            p.message = {"success": False, "error": {"code": "disconnected", "message": "connection lost"}}
            p.event.set()

    # -- commands ------------------------------------------------------------------

    async def _command(self, payload: Mapping[str, Any]) -> Any:
        ws = self._ws
        if ws is None or ws.closed:
            raise self.unavailable()
        msg_id, self._next_id = self._next_id, self._next_id + 1
        pending = self._pending[msg_id] = _Pending()
        try:
            await ws.send_json({"id": msg_id, **payload})
            with anyio.fail_after(self.settings.call_timeout):
                await pending.event.wait()
        except (TimeoutError, ConnectionError, aiohttp.ClientError, RuntimeError) as err:
            self._pending.pop(msg_id, None)
            raise HomeUnavailable(
                f"Home Assistant did not answer {payload.get('type')} in time ({_describe(err)})"
            ) from err
        answer = pending.message
        if not answer.get("success"):
            error = answer.get("error") or {}
            if error.get("code") == "disconnected":
                raise self.unavailable()
            raise HomeUnavailable(f"Home Assistant refused {payload.get('type')}: {error.get('message') or error}")
        return answer.get("result")

    async def call_service(
        self, domain: str, service: str, entity_ids: tuple[str, ...], data: Mapping[str, Any] | None = None
    ) -> None:
        """Call `domain.service` on the entities (a target); raises `HomeUnavailable` when down."""
        if not self.connected:
            raise self.unavailable()
        log.info("home.service.call", domain=domain, service=service, entities=list(entity_ids))
        await self._command({
            "type": "call_service", "domain": domain, "service": service,
            "service_data": dict(data or {}), "target": {"entity_id": list(entity_ids)},
        })  # fmt: skip

    async def notify(self, target: str, title: str, text: str) -> bool:
        """A notification through a `domain.service` such as notify.mobile_app_phone (the
        io Notifier protocol); False when Home Assistant is down or refuses it."""
        domain, _, service = target.partition(".")
        try:
            if not self.connected:
                raise self.unavailable()
            await self._command({
                "type": "call_service", "domain": domain, "service": service,
                "service_data": {"title": title, "message": text},
            })  # fmt: skip
        except Exception as err:  # noqa: BLE001 - a missed notification is logged, never raised
            log.warning("home.notify.failed", target=target, error=_describe(_unwrap(err)))
            return False
        log.info("home.notify.sent", target=target)
        return True


def _unwrap(err: BaseException) -> BaseException:
    while isinstance(err, BaseExceptionGroup) and len(err.exceptions) == 1:
        err = err.exceptions[0]
    return err


def _describe(err: BaseException) -> str:
    text = str(err).strip()
    return f"{type(err).__name__}: {text}" if text else type(err).__name__
