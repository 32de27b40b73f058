"""What HomeAgent knows about Home Assistant's intent tools when Home Assistant uses it as
its conversation agent (the OpenAI endpoint or the Ollama route).

Home Assistant sends its intents (`HassTurnOn`, `HassLightSet`, `GetLiveContext`, …) as
client tools, and over the Ollama route its client has dropped every `enum` on the way,
so the schemas say only "a string". The words that pick the right intent and the values
Home Assistant accepts are in two places: the user's words, and the device overview in
Home Assistant's system prompt ("Static Context": names, domains, areas). `enrich`
uses both, for every model behind the agent:

- each known intent gets example utterances in English and Chinese, so the local
  engine's selector ranks it like one of HomeAgent's own actions;
- `name`, `area`, `domain` and `color` get the values Home Assistant knows, narrowed to
  the ones the user's words point at (through a small Chinese-English lexicon: 厨房 →
  kitchen, 灯 → light, 红色 → red), so a grammar-constrained call can only name a real
  device: "把厨房的灯打开" becomes `HassTurnOn {"name": "Kitchen Light"}`. When the words
  point at nothing, the schema keeps Home Assistant's own shape.

Home Assistant's system prompt (`compact_context`) is mostly instructions for a generic
model (HomeAgent has its own personality and its own way with tools) around that device
overview; the turn keeps the overview, one short line a device, the asker's area and the
time, which costs the local engine a third of the prompt tokens.

Home Assistant's results (`{"response_type": "action_done", "data": {"success": […]}}`, or
`GetLiveContext`'s overview of states) reach the model as short readable lines
(`readable_result`): what was switched, what failed, and the states of the devices the
words point at, so a small engine that answers with its results' own words says
"Done: Kitchen Light." rather than reading JSON aloud.

A question about the house ("is the kitchen light on?", "客厅现在多少度") is offered only
the intents that read state (`GetLiveContext`), so a question never changes anything.

Only tools with Home Assistant's names are touched; any other client tool passes as sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from homeagent.chat import ToolDef
from homeagent.numbers import numbers_in
from homeagent.text import normalize, tokenize

STATIC_MARKER = "Static Context:"

# Example utterances per intent (the selector's index reads the words left of "→").
EXAMPLES: dict[str, tuple[str, ...]] = {
    "HassTurnOn": (
        'turn on the kitchen light → HassTurnOn {"name": "kitchen light"}',
        "switch on the fan → HassTurnOn", "lights on in the living room → HassTurnOn",
        "lock the front door → HassTurnOn", "open the garage door → HassTurnOn",
        "把厨房的灯打开 → HassTurnOn", "打开客厅的灯 → HassTurnOn", "开灯 → HassTurnOn",
        "打开风扇 → HassTurnOn", "把前门锁上 → HassTurnOn", "开启 → HassTurnOn",
    ),
    "HassTurnOff": (
        'turn off the kitchen light → HassTurnOff {"name": "kitchen light"}',
        "switch off the fan → HassTurnOff", "lights off in the bedroom → HassTurnOff",
        "unlock the front door → HassTurnOff", "close the garage door → HassTurnOff",
        "把卧室的灯关掉 → HassTurnOff", "关闭风扇 → HassTurnOff", "关灯 → HassTurnOff",
        "把前门解锁 → HassTurnOff", "关掉 → HassTurnOff",
    ),
    "HassLightSet": (
        'set the kitchen light to 50% brightness → HassLightSet {"name": "kitchen light", "brightness": 50}',
        "dim the bedroom light → HassLightSet", "make the living room lamp red → HassLightSet",
        "change the light colour to blue → HassLightSet", "brighten the lights → HassLightSet",
        "把客厅的灯调到百分之三十亮度 → HassLightSet", "把灯调成红色 → HassLightSet",
        "灯光调暗 亮度 颜色 → HassLightSet", "厨房的灯颜色换成蓝色 → HassLightSet", "colour color 颜色 → HassLightSet",
    ),
    "HassClimateSetTemperature": (
        'set the thermostat to 22 degrees → HassClimateSetTemperature {"temperature": 22}',
        "make it warmer, heat to 24 → HassClimateSetTemperature",
        "set the air conditioner temperature → HassClimateSetTemperature",
        "把空调调到26度 → HassClimateSetTemperature", "温度设成二十二度 → HassClimateSetTemperature",
    ),
    "HassSetPosition": (
        'open the living room blinds to 50% → HassSetPosition {"name": "living room blinds", "position": 50}',
        "set the curtains position to 30 → HassSetPosition", "half open the shades → HassSetPosition",
        "把窗帘开到一半 百分之 位置 → HassSetPosition", "百叶窗 卷帘 窗帘开到 → HassSetPosition",
    ),
    "HassCancelAllTimers": (
        "cancel all timers → HassCancelAllTimers", "stop every timer → HassCancelAllTimers",
        "取消所有计时器 定时器 → HassCancelAllTimers",
    ),
    "HassMediaPause": (
        "pause the tv → HassMediaPause", "pause the music → HassMediaPause",
        "暂停音乐 电视暂停 → HassMediaPause",
    ),
    "HassMediaUnpause": (
        "resume the music → HassMediaUnpause", "unpause the tv, continue playing → HassMediaUnpause",
        "继续播放 恢复播放 → HassMediaUnpause",
    ),
    "HassMediaNext": (
        "next song → HassMediaNext", "skip this track → HassMediaNext", "下一首 下一个 → HassMediaNext",
    ),
    "HassMediaPrevious": (
        "previous song → HassMediaPrevious", "go back to the last track → HassMediaPrevious",
        "上一首 上一个 → HassMediaPrevious",
    ),
    "HassSetVolume": (
        'set the volume to 30 → HassSetVolume {"volume_level": 30}', "turn the tv volume to 20 percent → HassSetVolume",
        "音量调到三十 声音 → HassSetVolume",
    ),
    "HassListAddItem": (
        'add milk to the shopping list → HassListAddItem {"item": "milk", "name": "Shopping List"}',
        "put eggs on my list → HassListAddItem", "把牛奶加到购物清单 → HassListAddItem",
        "购物清单加上鸡蛋 → HassListAddItem",
    ),
    "HassListCompleteItem": (
        "check off milk on the shopping list → HassListCompleteItem",
        "mark eggs as done on my list → HassListCompleteItem", "购物清单里的牛奶买好了 完成 → HassListCompleteItem",
    ),
    "GetLiveContext": (
        "is the kitchen light on? → GetLiveContext", "what's the temperature in the living room? → GetLiveContext",
        "is the front door locked? → GetLiveContext", "are the blinds open? → GetLiveContext",
        "what is playing on the tv? → GetLiveContext", "which lights are on? → GetLiveContext",
        "厨房的灯开着吗 → GetLiveContext", "客厅现在多少度 温度是多少 → GetLiveContext",
        "前门锁了吗 → GetLiveContext", "哪些灯开着 → GetLiveContext", "状态 → GetLiveContext",
        "how warm or cold is it → GetLiveContext", "what is the heating set to? → GetLiveContext",
        "电视在放什么 → GetLiveContext",
    ),
}

# Chinese words and the English ones Home Assistant's names and values use.
LEXICON: dict[str, tuple[str, ...]] = {
    "厨房": ("kitchen",), "客厅": ("living", "room", "lounge"), "卧室": ("bedroom",), "主卧": ("bedroom", "master"),
    "书房": ("study", "office"), "办公室": ("office",), "浴室": ("bathroom",), "卫生间": ("bathroom", "toilet"),
    "餐厅": ("dining",), "车库": ("garage",), "阳台": ("balcony",), "走廊": ("hallway", "hall"),
    "花园": ("garden",), "院子": ("yard", "garden"), "儿童房": ("kids", "nursery"), "门口": ("entrance", "porch"),
    "灯": ("light", "lights", "lamp"), "台灯": ("lamp",), "吊灯": ("ceiling", "light"), "风扇": ("fan",),
    "空调": ("air", "conditioner", "ac", "climate", "thermostat"), "暖气": ("heater", "heating", "thermostat"),
    "温控": ("thermostat",), "窗帘": ("curtain", "curtains", "blind", "blinds", "shade"),
    "百叶窗": ("blind", "blinds"), "卷帘": ("shutter", "shade"), "电视": ("tv", "television"),
    "音箱": ("speaker",), "音响": ("speaker",), "锁": ("lock",), "门锁": ("lock", "door"), "前门": ("front", "door"),
    "后门": ("back", "door"), "车库门": ("garage", "door"), "插座": ("plug", "outlet"), "开关": ("switch",),
    "加湿器": ("humidifier",), "咖啡机": ("coffee",), "扫地机": ("vacuum",), "购物清单": ("shopping", "list"),
    "清单": ("list",), "待办": ("to-do", "todo"),
}
COLORS: dict[str, tuple[str, ...]] = {
    "red": ("红",), "green": ("绿",), "blue": ("蓝",), "yellow": ("黄",), "orange": ("橙", "橘"),
    "purple": ("紫",), "pink": ("粉",), "white": ("白",), "cyan": ("青",),
}
DOMAIN_WORDS: dict[str, tuple[str, ...]] = {
    "light": ("light", "lights", "lamp", "lamps", "灯"),
    "fan": ("fan", "fans", "风扇"),
    "climate": ("thermostat", "climate", "air conditioner", "ac", "heating", "空调", "暖气"),
    "cover": ("blind", "blinds", "curtain", "curtains", "shade", "shades", "shutter", "cover", "garage door", "窗帘", "百叶窗"),
    "lock": ("lock", "锁"),
    "media_player": ("tv", "television", "speaker", "music", "电视", "音箱", "音响", "音乐"),
    "switch": ("switch", "plug", "outlet", "开关", "插座"),
}
# Intents that act on one kind of device only.
DOMAIN_INTENTS: dict[str, frozenset[str]] = {
    "HassLightSet": frozenset({"light"}), "HassClimateSetTemperature": frozenset({"climate"}),
    "HassSetPosition": frozenset({"cover"}), "HassSetVolume": frozenset({"media_player"}),
    **{name: frozenset({"media_player"}) for name in ("HassMediaPause", "HassMediaUnpause", "HassMediaNext", "HassMediaPrevious")},
}
_GENERIC = frozenset({"light", "lights", "lamp", "the", "a", "of", "in", "on", "my", "door", "room"})
_LIST_LINE = re.compile(r"^\s*-\s*names:\s*(?P<v>.+)$|^\s+(?P<k>domain|areas):\s*(?P<w>.+)$")


@dataclass(frozen=True)
class Device:
    names: tuple[str, ...]
    domain: str = ""
    areas: tuple[str, ...] = ()


def _unquote(value: str) -> str:
    value = value.strip()
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" else value


def _split(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in _unquote(value).split(",") if v.strip())


def parse_static_context(text: str) -> list[Device]:
    """The device overview of Home Assistant's system prompt (names, domain, areas)."""
    at = text.find(STATIC_MARKER)
    if at < 0:
        return []
    devices: list[Device] = []
    for line in text[at:].splitlines()[1:]:
        match = _LIST_LINE.match(line)
        if match is None:
            if line.strip() and not line.startswith(" ") and not line.startswith("-"):
                break  # the overview ended
            continue
        if match.group("v") is not None:
            devices.append(Device(_split(match.group("v"))))
        elif devices:
            key, value = match.group("k"), match.group("w")
            last = devices[-1]
            devices[-1] = replace(last, domain=_unquote(value)) if key == "domain" else replace(last, areas=_split(value))
    return devices


def _terms(text: str) -> set[str]:
    """The user's words as English and Chinese terms: the lexicon adds the English words
    its Chinese ones mean."""
    norm = normalize(text)
    terms = set(tokenize(norm))
    for word, english in LEXICON.items():
        if word in norm:
            terms.update(english)
    return terms


def _score(candidate: str, terms: set[str], *, generic_ok: bool = False) -> int:
    own = set(tokenize(candidate))
    shared = own & terms
    if not generic_ok and not shared - _GENERIC:
        return 0
    return len(shared)


def _best(candidates: Iterable[str], terms: set[str], *, generic_ok: bool = False) -> list[str]:
    scored = [(c, _score(c, terms, generic_ok=generic_ok)) for c in dict.fromkeys(candidates)]
    top = max((s for _, s in scored), default=0)
    return [c for c, s in scored if s == top and s > 0]


def _domains(text: str) -> list[str]:
    norm = normalize(text)
    words = set(tokenize(norm))
    found = []
    for domain, cues in DOMAIN_WORDS.items():
        if any((cue in norm) if (" " in cue or not cue.isascii()) else cue in words for cue in cues):
            found.append(domain)
    return found


def _colors(text: str) -> list[str]:
    norm = normalize(text)
    words = set(tokenize(norm))
    return [c for c, zh in COLORS.items() if c in words or any(ch in norm for ch in zh)]


def _with_enum(prop: Any, values: Sequence[str]) -> dict[str, Any]:
    base = dict(prop) if isinstance(prop, dict) else {}
    if base.get("type") == "array":
        return {**base, "items": {"type": "string", "enum": list(values)}}
    return {**base, "type": "string", "enum": list(values)}


def _enrich_one(tool: ToolDef, text: str, devices: list[Device]) -> ToolDef:
    props = dict(tool.parameters.get("properties") or {})
    required_extra: list[str] = []
    terms = _terms(text)
    device_names = [n for d in devices if d.domain not in ("todo",) for n in d.names]
    if tool.name in ("HassListAddItem", "HassListCompleteItem"):
        lists = [n for d in devices if d.domain == "todo" for n in d.names]
        if "name" in props and lists:
            props["name"] = _with_enum(props["name"], _best(lists, terms, generic_ok=True) or lists)
    else:
        names = _best(device_names, terms)
        if "name" in props and names:
            props["name"] = _with_enum(props["name"], names)
            required_extra.append("name")
            # A device by name, which is unique: no area, floor, class or domain to get wrong.
            for key in ("area", "floor", "device_class", "domain"):
                props.pop(key, None)
        elif "area" in props and (areas := _best([a for d in devices for a in d.areas], terms, generic_ok=True)):
            props["area"] = _with_enum(props["area"], areas)
            props.pop("name", None)
            props.pop("floor", None)
        if devices:
            # A target the words do not name would be a guess (a piece of the words, a
            # number in a class list): Home Assistant then uses the speaker's area.
            for key in ("name", "area"):
                if key in props and "enum" not in props[key]:
                    props.pop(key)
        for key in ("floor", "device_class"):
            props.pop(key, None)
        domains = _domains(text)
        if "domain" in props:
            known = {d.domain for d in devices}
            picked = [d for d in domains if not known or d in known]
            if picked:
                props["domain"] = {**_with_enum(props["domain"], picked), "minItems": 1}
            else:
                props.pop("domain", None)
    if "color" in props:
        props["color"] = _with_enum(props["color"], _colors(text) or list(COLORS))
    if not numbers_in(text):
        # No number was said: an optional number would be a guess (a copied example's 50).
        required_now = set(tool.parameters.get("required", []))
        for key in [k for k, v in props.items() if isinstance(v, dict) and v.get("type") in ("integer", "number")]:
            if key not in required_now:
                props.pop(key)
    if not (tool.name in EXAMPLES or props != dict(tool.parameters.get("properties") or {})):
        return tool
    required = list(dict.fromkeys(r for r in [*tool.parameters.get("required", []), *required_extra] if r in props))
    parameters = {**tool.parameters, "properties": props, "required": required}
    return replace(tool, parameters=parameters, examples=EXAMPLES.get(tool.name, tool.examples))


# Intents that only read the house; every other Home Assistant intent changes something.
READING = frozenset({"GetLiveContext", "HassGetState", "HassGetWeather", "todo_get_items", "HassTimerStatus"})
_ASKS_RE = re.compile(r"[?？]|[吗呢么]\s*$|多少|几度|哪些|哪个|是否|有没有|什么")
_QUESTION_START_RE = re.compile(r"^\s*(is|are|was|were|what|what's|whats|which|how|does|do|did|who|where|when)\b", re.I)
_DOES_RE = re.compile(
    r"^\s*(please\s+|can you\s+|could you\s+|would you\s+)?(turn|switch|set|open|close|lock|unlock|dim|brighten|"
    r"pause|resume|play|skip|add|cancel|stop|start|make|change|put|check off|mark)\b|"
    r"打开|关掉|关闭|关上|关了|开一下|调到|调成|调为|调高|调低|调暗|调亮|设成|设为|设置|设到|锁上|解锁|暂停|继续播放|播放音乐|加到|加上|添加|取消|开到|拉开|拉上|把",
    re.I,
)


def is_state_question(text: str) -> bool:
    """Whether the words ask about the house without asking to change it ("is the
    kitchen light on?", "厨房的灯开着吗"): such a turn is offered no intent that changes
    state, so a question can never switch anything."""
    asks = bool(_ASKS_RE.search(text)) or bool(_QUESTION_START_RE.match(text))
    return asks and not _DOES_RE.search(text)


def is_home_assistant(tools: Sequence[ToolDef]) -> bool:
    return any(t.name in EXAMPLES for t in tools)


def enrich(tools: tuple[ToolDef, ...], text: str, context: str) -> tuple[ToolDef, ...]:
    """Home Assistant's intents with examples and the values the user's words point at;
    other tools (and a client that is not Home Assistant) as they were."""
    if not is_home_assistant(tools):
        return tools
    devices = parse_static_context(context)
    if is_state_question(text):
        tools = tuple(t for t in tools if t.name in READING or t.name not in EXAMPLES)
    picked = _best([n for d in devices for n in d.names], _terms(text))
    named = {d.domain for d in devices if set(d.names) & set(picked)}
    if len(picked) == 1:
        # The words name one device: an intent for another kind of device cannot apply.
        tools = tuple(t for t in tools if t.name not in DOMAIN_INTENTS or DOMAIN_INTENTS[t.name] & named)
    return tuple(_enrich_one(t, text, devices) if t.name in EXAMPLES else t for t in tools)


_AREA_RE = re.compile(r"You are in area [^.\n]+")
_TIME_RE = re.compile(r"Current time is [^\n]+")


def compact_context(context: str) -> str:
    """Home Assistant's system prompt reduced to what the turn needs: its device
    overview as one line a device, the asker's area and the time. A context without the
    overview is returned as it was."""
    devices = parse_static_context(context)
    if not devices:
        return context
    lines = ["Home Assistant's devices (name — domain — area):"]
    for device in devices:
        lines.append(" — ".join(part for part in (", ".join(device.names), device.domain, ", ".join(device.areas)) if part))
    lines += [m.group(0).strip() for pattern in (_AREA_RE, _TIME_RE) if (m := pattern.search(context))]
    return "\n".join(lines)


def _live_lines(overview: str, text: str) -> str:
    """GetLiveContext's overview, one line a device, narrowed to the devices the words
    point at (all of them when they point at none)."""
    entries: list[dict[str, str]] = []
    for line in overview.splitlines():
        stripped = line.strip()
        if stripped.startswith("- names:"):
            entries.append({"names": _unquote(stripped.split(":", 1)[1])})
        elif entries and ":" in stripped and not stripped.startswith("-"):
            key, value = stripped.split(":", 1)
            if value.strip():
                entries[-1][key.strip()] = _unquote(value)
    if not entries:
        return overview.strip()
    terms = _terms(text)
    picked = [e for e in entries if e["names"] in set(_best([e["names"] for e in entries], terms))]
    picked = picked or [e for e in entries if e.get("domain") in _domains(text)] or entries
    lines = []
    for e in picked:
        extra = ", ".join(f"{k} {v}" for k, v in e.items() if k not in ("names", "domain", "areas", "state"))
        where = f" ({e['areas']})" if e.get("areas") else ""
        lines.append(f"{e['names']}{where}: {e.get('state', '?')}" + (f", {extra}" if extra else ""))
    return "\n".join(lines)


def readable_result(name: str, content: str, text: str) -> str:
    """A Home Assistant intent result as short lines for the model; anything it does not
    recognise is passed as it came."""
    try:
        data = json.loads(content)
    except (json.JSONDecodeError, TypeError):
        return _live_lines(content, text) if content.lstrip().startswith("Live Context") else content
    if not isinstance(data, dict):
        return content
    zh = bool(re.search(r"[\u4e00-\u9fff]", text))
    if isinstance(data.get("result"), str) and name == "GetLiveContext":
        return _live_lines(data["result"], text)
    kind = data.get("response_type")
    if kind == "action_done":
        body: dict[str, Any] = data["data"] if isinstance(data.get("data"), dict) else {}
        done = [str(t.get("name")) for t in body.get("success", []) if isinstance(t, dict) and t.get("name")]
        failed = [str(t.get("name")) for t in body.get("failed", []) if isinstance(t, dict) and t.get("name")]
        lines = [("好的，已完成：" if zh else "Done: ") + (", ".join(done) or name) + ("。" if zh else ".")]
        if failed:
            lines.append(("失败：" if zh else "Failed: ") + ", ".join(failed))
        return "\n".join(lines)
    if kind == "error" or data.get("error"):
        speech = data.get("speech", {}).get("plain", {}).get("speech") if isinstance(data.get("speech"), dict) else None
        reason = speech or data.get("error") or (data.get("data") or {}).get("code") or "failed"
        return ("没能完成：" if zh else "It did not work: ") + str(reason)
    if kind == "query_answer":
        speech = data.get("speech", {}).get("plain", {}).get("speech") if isinstance(data.get("speech"), dict) else None
        if speech:
            return str(speech)
    return content
