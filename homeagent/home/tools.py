"""The device tools: the house as HomeAgent's hands.

`home_status` reads (a live summary by area, or one device's state) and never calls a
service, so a question about state can never change it. `home_turn_on`, `home_turn_off`,
`home_toggle`, `home_set` (brightness, colour, colour temperature, target temperature,
volume) and `home_run` (scenes, scripts) are write-class: allowed by default. Locks,
alarms, garage doors and other covers (`home_assistant.confirm_domains`) are refused by
those and go through `home_secure`, which the default policy confirms first.

Every tool resolves the words it is given with `House.resolve`; two matches make a short
question back instead of a guess. While the link is down every tool answers plainly that
Home Assistant is unavailable.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import anyio

from homeagent.errors import ToolError
from homeagent.home.house import Entity, House
from homeagent.home.link import HomeLink
from homeagent.tools.registry import Permission, ToolContext, ToolSpec

# Policy defaults the composition root puts before the user's permissions.tools.
PERMISSION_DEFAULTS: tuple[str, ...] = ("home_secure=confirm",)

ON_OFF_DOMAINS = frozenset({
    "light", "switch", "fan", "media_player", "climate", "humidifier", "input_boolean", "siren",
    "water_heater", "automation",
})  # fmt: skip
COLOURS = {
    "红": "red", "绿": "green", "蓝": "blue", "黄": "yellow", "白": "white", "紫": "purple",
    "橙": "orange", "粉": "pink", "青": "cyan", "暖白": "navajowhite",
}  # fmt: skip
# Settle: how long a tool waits for Home Assistant's state_changed before it reports.
SETTLE_SECONDS = 2.0

NAME = {"type": "string", "description": "设备名、别名或“房间+设备”，如“客厅的灯” / device name, alias or area + kind, e.g. 'kitchen light'"}
AREA = {"type": "string", "description": "房间，可省略 / area, optional"}
ALL = {"type": "boolean", "description": "匹配到多个设备时全部操作 / act on every match (e.g. all lights in an area)"}


def _state_text(e: Entity) -> str:
    a = e.attributes
    unit = a.get("unit_of_measurement") or ""
    if e.domain == "light" and e.state == "on" and a.get("brightness") is not None:
        return f"on, brightness {round(int(a['brightness']) * 100 / 255)}%"
    if e.domain == "climate":
        parts = [e.state]
        if a.get("current_temperature") is not None:
            parts.append(f"now {a['current_temperature']}°")
        if a.get("temperature") is not None:
            parts.append(f"target {a['temperature']}°")
        return ", ".join(parts)
    if e.domain == "cover" and a.get("current_position") is not None:
        return f"{e.state}, position {a['current_position']}%"
    if e.domain == "media_player" and a.get("media_title"):
        return f"{e.state}: {a['media_title']}"
    return f"{e.state}{' ' + unit if unit else ''}"


def _notable(e: Entity) -> str | None:
    """One line for the live summary, or None when the entity is in its quiet state."""
    d, s, a = e.domain, e.state, e.attributes
    if s in ("unavailable", "unknown"):
        return f"{e.name}: {s}"
    if d in ("light", "switch", "fan", "humidifier", "input_boolean") and s == "on":
        return f"{e.name} ({d}): {_state_text(e)}"
    if d == "media_player" and s not in ("off", "idle", "standby"):
        return f"{e.name} (media): {_state_text(e)}"
    if d == "climate":
        return f"{e.name} (climate): {_state_text(e)}"
    if d == "sensor" and a.get("device_class") in ("temperature", "humidity"):
        return f"{e.name}: {_state_text(e)}"
    if d == "cover" and s != "closed":
        return f"{e.name} (cover): {_state_text(e)}"
    if d == "lock" and s != "locked":
        return f"{e.name} (lock): {s}"
    if d == "alarm_control_panel":
        return f"{e.name} (alarm): {s}"
    if d == "binary_sensor" and s == "on":
        return f"{e.name}: on"
    return None


def live_context(house: House, area: str = "") -> str:
    """What is on, temperatures, open covers, unlocked doors: grouped by area."""
    groups: dict[str, list[str]] = {}
    quiet: dict[str, int] = {}
    wanted = house.area_in(area.lower())[0] if area else None
    if area and wanted is None:
        names = ", ".join(sorted(a.name for a in house.areas.values())) or "none"
        raise ToolError(f"no area called {area!r}; the areas are: {names}")
    for e in sorted(house.entities.values(), key=lambda x: x.name):
        if wanted is not None and (e.area is None or e.area.area_id != wanted.area_id):
            continue
        where = e.area.name if e.area else "No area"
        line = _notable(e)
        if line is None:
            quiet[where] = quiet.get(where, 0) + 1
        else:
            groups.setdefault(where, []).append(line)
    if not groups and not quiet:
        return "Home Assistant exposes no devices to HomeAgent" + (f" in {area}" if area else "") + "."
    out = []
    for where in sorted(set(groups) | set(quiet)):
        lines = groups.get(where, [])
        tail = f" ({quiet[where]} other devices off/closed/locked)" if quiet.get(where) else ""
        out.append(f"{where}:{tail}" + "".join(f"\n- {line}" for line in lines))
    return "\n".join(out)


class DeviceTools:
    """The executors, bound to one link and the confirm domains."""

    def __init__(self, link: HomeLink, confirm_domains: Iterable[str]):
        self.link = link
        self.confirm_domains = frozenset(confirm_domains)

    def _house(self) -> House:
        if not self.link.connected:
            raise self.link.unavailable()
        return self.link.house()

    def _targets(self, args: dict[str, Any], *, domains: Iterable[str] = (), secure: bool = False) -> tuple[Entity, ...]:
        house = self._house()
        found = house.resolve(args.get("name", ""), area=args.get("area", ""), domains=domains,
                              many=bool(args.get("all")))
        if not found.entities and self.link.problem:
            raise ToolError(self.link.problem)
        if not found.entities:
            what = " ".join(x for x in (args.get("area", ""), args.get("name", "")) if x)
            raise ToolError(
                f"no exposed device matches {what!r}. Ask the user which device they mean "
                "(home_status lists them). / 没有找到这个设备。"
            )
        if found.question:
            raise ToolError(f"{len(found.entities)} devices match; ask the user: {found.question}")
        if not secure:
            guarded = [e.name for e in found.entities if e.domain in self.confirm_domains]
            if guarded:
                raise ToolError(
                    f"{', '.join(guarded)} is a lock, alarm or cover: use home_secure for it (it asks first)"
                )
        return found.entities

    async def _call(self, entities: tuple[Entity, ...], domain: str, service: str, data: dict[str, Any] | None = None) -> str:
        before = {e.entity_id: e.last_changed for e in entities}
        await self.link.call_service(domain, service, tuple(e.entity_id for e in entities), data)
        # Report the state Home Assistant settles on, not the one we hoped for.
        with anyio.move_on_after(SETTLE_SECONDS):
            while not all(
                (now := self.link.house().get(i)) is not None and now.last_changed != before[i] for i in before
            ):
                await self.link.wait_changed()
        house = self.link.house()
        lines = []
        for e in entities:
            now = house.get(e.entity_id) or e
            lines.append(f"{now.name} is now {_state_text(now)}")
        # Words a person can be read aloud (a voice satellite speaks the answer as it is).
        return "Done: " + "; ".join(lines) + "."

    async def status(self, ctx: ToolContext, args: dict[str, Any]) -> str:
        house = self._house()
        if args.get("name"):
            found = house.resolve(args["name"], area=args.get("area", ""), many=True)
            if not found.entities:
                raise ToolError(f"no exposed device matches {args['name']!r}")
            return "\n".join(
                f"{e.name} ({e.domain}{', ' + e.area.name if e.area else ''}): {_state_text(e)}"
                for e in found.entities
            )
        return live_context(house, args.get("area", ""))

    async def _on_off(self, args: dict[str, Any], service: str) -> str:
        entities = self._targets(args)
        by_domain: dict[str, list[Entity]] = {}
        for e in entities:
            if e.domain in ("scene", "script") and service == "turn_on":
                by_domain.setdefault(e.domain, []).append(e)
            elif e.domain not in ON_OFF_DOMAINS:
                raise ToolError(f"{e.name} ({e.domain}) cannot be turned on or off")
            else:
                by_domain.setdefault(e.domain, []).append(e)
        results = [await self._call(tuple(group), domain, service) for domain, group in by_domain.items()]
        return "\n".join(results)

    async def turn_on(self, ctx: ToolContext, args: dict[str, Any]) -> str:
        return await self._on_off(args, "turn_on")

    async def turn_off(self, ctx: ToolContext, args: dict[str, Any]) -> str:
        return await self._on_off(args, "turn_off")

    async def toggle(self, ctx: ToolContext, args: dict[str, Any]) -> str:
        return await self._on_off(args, "toggle")

    async def set(self, ctx: ToolContext, args: dict[str, Any]) -> str:
        if "temperature" in args:
            entities = self._targets(args, domains=("climate", "water_heater"))
            return await self._call(entities, entities[0].domain, "set_temperature", {"temperature": args["temperature"]})
        if "volume" in args:
            entities = self._targets(args, domains=("media_player",))
            return await self._call(entities, "media_player", "volume_set", {"volume_level": args["volume"] / 100})
        data: dict[str, Any] = {}
        if "brightness" in args:
            data["brightness_pct"] = args["brightness"]
        if "color" in args:
            colour = str(args["color"]).strip().lower().removesuffix("色")
            data["color_name"] = COLOURS.get(colour, colour)
        if "color_temp_kelvin" in args:
            data["color_temp_kelvin"] = args["color_temp_kelvin"]
        if not data:
            raise ToolError("say what to set: brightness, color, color_temp_kelvin, temperature or volume")
        return await self._call(self._targets(args, domains=("light",)), "light", "turn_on", data)

    async def run(self, ctx: ToolContext, args: dict[str, Any]) -> str:
        entities = self._targets(args, domains=("scene", "script"))
        if len(entities) > 1:
            raise ToolError("name one scene or script")
        e = entities[0]
        await self.link.call_service(e.domain, "turn_on", (e.entity_id,))
        return f"started {e.name} ({e.domain})"

    async def secure(self, ctx: ToolContext, args: dict[str, Any]) -> str:
        action = args["action"]
        domains = {
            "lock": ("lock",), "unlock": ("lock",),
            "open": ("cover", "valve"), "close": ("cover", "valve"), "stop": ("cover",), "set_position": ("cover",),
            "arm_home": ("alarm_control_panel",), "arm_away": ("alarm_control_panel",),
            "arm_night": ("alarm_control_panel",), "disarm": ("alarm_control_panel",),
        }[action]  # fmt: skip
        entities = self._targets(args, domains=domains, secure=True)
        domain = entities[0].domain
        if action == "set_position":
            if "position" not in args:
                raise ToolError("set_position needs position (0 closed … 100 open)")
            return await self._call(entities, "cover", "set_cover_position", {"position": args["position"]})
        service = {
            "open": f"open_{domain}", "close": f"close_{domain}", "stop": "stop_cover",
            "arm_home": "alarm_arm_home", "arm_away": "alarm_arm_away", "arm_night": "alarm_arm_night",
            "disarm": "alarm_disarm",
        }.get(action, action)  # fmt: skip
        return await self._call(entities, domain, service)


def device_tools(link: HomeLink, confirm_domains: Iterable[str]) -> tuple[ToolSpec, ...]:
    """The device tools, bound to the link; the composition root registers them."""
    t = DeviceTools(link, confirm_domains)
    target = {"name": NAME, "area": AREA, "all": ALL}

    def obj(props: dict[str, Any], required: tuple[str, ...] = ("name",)) -> dict[str, Any]:
        return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}

    return (
        ToolSpec(
            "home_status",
            "查看家里设备的实时状态（哪些灯开着、温度、窗帘/门锁），只读，不改变任何设备 / "
            "Read the live state of the house or one device (what is on, temperatures, open covers); never changes anything",
            obj({"name": {"type": "string", "description": "设备，可省略 / a device, optional"}, "area": AREA}, ()),
            t.status, Permission.READ, category="home",
            examples=('客厅的灯开着吗？ → home_status {"name": "客厅的灯"}',
                      'What is the temperature in the living room? → home_status {"area": "living room"}',
                      '家里现在什么开着？ → home_status {}'),
        ),
        ToolSpec(
            "home_turn_on", "打开设备（灯、开关、风扇、空调、电视），或启动场景 / Turn a device on (light, switch, fan, climate, media)",
            obj(target), t.turn_on, Permission.WRITE, category="home",
            examples=('把厨房的灯打开 → home_turn_on {"name": "厨房的灯"}', 'Turn on the kitchen light → home_turn_on {"name": "kitchen light"}'),
        ),
        ToolSpec(
            "home_turn_off", "关闭设备 / Turn a device off", obj(target), t.turn_off, Permission.WRITE, category="home",
            examples=('关掉客厅的灯 → home_turn_off {"name": "客厅的灯"}', 'Switch off the coffee maker → home_turn_off {"name": "coffee maker"}'),
        ),
        ToolSpec(
            "home_toggle", "切换设备开关状态 / Toggle a device", obj(target), t.toggle, Permission.WRITE, category="home",
            examples=('Toggle the bedroom lamp → home_toggle {"name": "bedroom lamp"}',),
        ),
        ToolSpec(
            "home_set",
            "调节灯的亮度/颜色/色温、空调温度、音量 / Set brightness (%), colour (English name), colour temperature, target temperature or volume (%)",
            obj({**target,
                 "brightness": {"type": "integer", "minimum": 0, "maximum": 100, "description": "亮度百分比 / brightness %"},
                 "color": {"type": "string", "description": "颜色（英文名，如 red）/ colour name in English"},
                 "color_temp_kelvin": {"type": "integer", "minimum": 1500, "maximum": 9000},
                 "temperature": {"type": "number", "description": "目标温度 / target temperature"},
                 "volume": {"type": "integer", "minimum": 0, "maximum": 100}}),
            t.set, Permission.WRITE, category="home",
            examples=('把卧室的灯调到30% → home_set {"name": "卧室的灯", "brightness": 30}',
                      'Set the thermostat to 22 degrees → home_set {"name": "thermostat", "temperature": 22}'),
        ),
        ToolSpec(
            "home_run", "运行场景或脚本 / Run a scene or script", obj({"name": NAME}), t.run, Permission.WRITE,
            category="home", examples=('开启观影模式 → home_run {"name": "Movie Night"}',),
        ),
        ToolSpec(
            "home_secure",
            "门锁、警报、车库门和窗帘：上锁/开锁/打开/关闭/设位置/布防/撤防（会先征得同意）/ "
            "Locks, alarms, garage doors and covers: lock, unlock, open, close, set position, arm, disarm (asks first)",
            obj({**target,
                 "action": {"type": "string", "enum": ["lock", "unlock", "open", "close", "stop", "set_position",
                                                       "arm_home", "arm_away", "arm_night", "disarm"]},
                 "position": {"type": "integer", "minimum": 0, "maximum": 100}}, ("name", "action")),
            t.secure, Permission.WRITE, category="home",
            examples=('把前门锁上 → home_secure {"name": "前门", "action": "lock"}',
                      'Open the garage door → home_secure {"name": "garage door", "action": "open"}'),
        ),
    )
