"""The house as HomeAgent sees it: entities, areas, what is exposed, and who "the lamp" is.

`House` is an immutable snapshot the link rebuilds from Home Assistant's registries and
states; the device tools read it, never the link's internals. Only entities Home Assistant
exposes to conversation agents are in it (its expose list, with HA's own default for
entities it has not decided yet), narrowed further by `home_assistant.entities/exclude`.

`House.resolve(text)` finds entities by friendly name, alias, area and domain words in
Chinese and English: "客厅的灯" is the light of the area named (or aliased, or commonly
translated as) 客厅; "living room lamp" the same. Two candidates give a `Resolution` with a
short question back instead of a guess.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# Home Assistant's own defaults for entities it has no recorded decision about
# (homeassistant/components/homeassistant/exposed_entities.py, 2025.4).
DEFAULT_EXPOSED_DOMAINS = frozenset({
    "climate", "cover", "fan", "humidifier", "light", "media_player", "scene", "switch",
    "todo", "vacuum", "water_heater",
})  # fmt: skip
DEFAULT_EXPOSED_SENSOR_CLASSES = frozenset({
    "aqi", "co", "co2", "humidity", "pm10", "pm25", "temperature", "volatile_organic_compounds",
})  # fmt: skip
DEFAULT_EXPOSED_BINARY_SENSOR_CLASSES = frozenset({
    "door", "garage_door", "lock", "motion", "opening", "presence", "window",
})  # fmt: skip

# Words that name a kind of device, Chinese and English, longest first when matched.
DOMAIN_WORDS: Mapping[str, tuple[str, ...]] = {
    "light": ("灯光", "台灯", "吊灯", "灯", "lights", "light", "lamps", "lamp"),
    "switch": ("插座", "开关", "switch", "plug", "socket", "outlet"),
    "climate": ("空调", "暖气", "地暖", "温控器", "温控", "thermostat", "heating", "heater", "ac", "air conditioner", "climate"),
    "lock": ("门锁", "锁", "lock"),
    "cover": ("车库门", "窗帘", "卷帘", "百叶窗", "遮阳帘", "garage door", "curtains", "curtain", "blinds", "blind", "shades", "shade", "shutters", "cover"),
    "fan": ("风扇", "电扇", "fan"),
    "media_player": ("电视", "音箱", "音响", "播放器", "tv", "television", "speaker", "media player"),
    "scene": ("场景", "scene"),
    "script": ("脚本", "script"),
    "alarm_control_panel": ("警报", "报警器", "安防", "alarm"),
    "vacuum": ("扫地机器人", "扫地机", "vacuum"),
    "sensor": ("传感器", "温度计", "sensor"),
}  # fmt: skip

# Rooms by their usual names in both languages, so an English area answers to Chinese and back.
AREA_WORDS: tuple[tuple[str, ...], ...] = (
    ("客厅", "起居室", "living room", "lounge"), ("厨房", "kitchen"),
    ("主卧", "master bedroom"), ("卧室", "睡房", "bedroom"), ("书房", "study", "office"),
    ("卫生间", "浴室", "洗手间", "厕所", "bathroom", "restroom", "toilet"),
    ("餐厅", "饭厅", "dining room"), ("车库", "garage"), ("阳台", "balcony"),
    ("走廊", "过道", "hallway", "corridor"), ("玄关", "门厅", "entrance", "entryway", "hall"),
    ("儿童房", "kids room", "nursery"), ("花园", "院子", "garden", "yard"), ("地下室", "basement"),
)  # fmt: skip

_FILLER_RE = re.compile(r"\b(the|a|an|in|of|all|my|please)\b|[的里内中里面那这个把所有全部请]|[\s,.!?，。！？、'\"]+", re.I)


def normalise(text: str) -> str:
    """Lower case, fillers and punctuation out: "the Living-Room lamp" → "livingroomlamp"."""
    text = text.lower().replace("-", " ").replace("_", " ")
    return _FILLER_RE.sub("", text)


@dataclass(frozen=True)
class Area:
    area_id: str
    name: str
    aliases: tuple[str, ...] = ()

    def words(self) -> set[str]:
        words = {normalise(self.name), normalise(self.area_id)} | {normalise(a) for a in self.aliases}
        for group in AREA_WORDS:
            if words & {normalise(w) for w in group}:
                words |= {normalise(w) for w in group}
        return {w for w in words if w}


@dataclass(frozen=True)
class Entity:
    entity_id: str
    state: str
    attributes: Mapping[str, Any] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    area: Area | None = None
    last_changed: str = ""

    @property
    def domain(self) -> str:
        return self.entity_id.partition(".")[0]

    @property
    def name(self) -> str:
        name = self.attributes.get("friendly_name")
        return str(name) if name else self.entity_id.partition(".")[2].replace("_", " ")

    def names(self) -> set[str]:
        names = {normalise(self.name), normalise(self.entity_id.partition(".")[2])}
        return {n for n in names | {normalise(a) for a in self.aliases} if n}


@dataclass(frozen=True)
class RegistryEntry:
    """What Home Assistant's entity registry says about an entity."""

    entity_id: str
    aliases: tuple[str, ...] = ()
    area_id: str | None = None
    device_id: str | None = None
    hidden: bool = False
    entity_category: str | None = None
    name: str | None = None
    # Home Assistant's recorded "expose to conversation" decision; None: not decided yet.
    exposed: bool | None = None


@dataclass(frozen=True)
class Resolution:
    """The outcome of resolving words to entities: found, ambiguous (a question), or none."""

    entities: tuple[Entity, ...] = ()
    question: str = ""

    @property
    def found(self) -> bool:
        return bool(self.entities) and not self.question


def is_exposed(
    entity_id: str,
    attributes: Mapping[str, Any],
    entry: RegistryEntry | None,
    listed: frozenset[str] | set[str],
    expose_new: bool,
) -> bool:
    """Home Assistant's rule for conversation agents.

    `listed` is its expose list (2025.4 lists the exposed entities only); an entity of the
    registry carries its recorded decision; one it has not decided yet gets HA's default
    (new entities of the usual domains, when "expose new entities" is on). An entity
    outside the registry (no unique id) is visible only when listed.
    """
    if entity_id in listed:
        return True
    if entry is None:
        return False
    if entry.exposed is not None:
        return entry.exposed
    if not expose_new or entry.hidden or entry.entity_category:
        return False
    domain = entity_id.partition(".")[0]
    if domain in DEFAULT_EXPOSED_DOMAINS:
        return True
    device_class = attributes.get("device_class")
    if domain == "sensor":
        return device_class in DEFAULT_EXPOSED_SENSOR_CLASSES
    if domain == "binary_sensor":
        return device_class in DEFAULT_EXPOSED_BINARY_SENSOR_CLASSES
    return False


def narrowed(entity_id: str, include: Iterable[str], exclude: Iterable[str]) -> bool:
    """True when the config's include globs (all when empty) take it and no exclude does."""
    include = tuple(include)
    if include and not any(fnmatch.fnmatchcase(entity_id, p) for p in include):
        return False
    return not any(fnmatch.fnmatchcase(entity_id, p) for p in exclude)


def _domain_in(words: str) -> tuple[str | None, str]:
    """The device kind named in normalised words, and the words without it."""
    best: tuple[int, str, str] | None = None
    for domain, names in DOMAIN_WORDS.items():
        for name in names:
            key = normalise(name)
            if key and key in words and (best is None or len(key) > best[0]):
                best = (len(key), domain, key)
    if best is None:
        return None, words
    return best[1], words.replace(best[2], "", 1)


@dataclass(frozen=True)
class House:
    """A snapshot of what HomeAgent may see and touch."""

    entities: Mapping[str, Entity] = field(default_factory=dict)
    areas: Mapping[str, Area] = field(default_factory=dict)

    def get(self, entity_id: str) -> Entity | None:
        return self.entities.get(entity_id)

    def area_in(self, words: str) -> tuple[Area | None, str]:
        best: tuple[int, Area, str] | None = None
        for area in self.areas.values():
            for word in area.words():
                if word in words and (best is None or len(word) > best[0]):
                    best = (len(word), area, word)
        if best is None:
            return None, words
        return best[1], words.replace(best[2], "", 1)

    def resolve(
        self, text: str = "", *, area: str = "", domains: Iterable[str] = (), many: bool = False
    ) -> Resolution:
        """Entities meant by `text` (a name, alias, "area + kind", or an entity id).

        `domains` limits the kinds (a brightness change means lights); `many` accepts
        several matches (e.g. "all the lights in the kitchen") instead of asking.
        """
        kinds = set(domains)
        pool = [e for e in self.entities.values() if not kinds or e.domain in kinds]
        if text in self.entities and (not kinds or self.entities[text].domain in kinds):
            return Resolution((self.entities[text],))
        words = normalise(text)
        if area:
            words = normalise(area) + words
        if not words:
            return Resolution(question="Which device do you mean? / 你指的是哪个设备？")
        exact = [e for e in pool if words in e.names()]
        if len(exact) == 1:
            return Resolution((exact[0],))
        found_area, rest = self.area_in(words)
        domain, rest = _domain_in(rest)
        candidates = pool
        if found_area is not None:
            candidates = [e for e in candidates if e.area is not None and e.area.area_id == found_area.area_id]
        if domain is not None:
            candidates = [e for e in candidates if e.domain == domain]
        if rest:
            named = [e for e in candidates if any(rest in n or n in rest for n in e.names())]
            if named or found_area is None and domain is None:
                candidates = named
        if found_area is None and domain is None and not rest:
            candidates = []
        if not candidates and exact:
            candidates = exact
        if not candidates:
            if found_area is None and domain is None and not exact:
                # Last try: the words name part of a friendly name ("kitchen" → "Kitchen Light").
                candidates = [e for e in pool if any(words in n for n in e.names())]
            if not candidates:
                return Resolution()
        if len(candidates) == 1 or many:
            return Resolution(tuple(sorted(candidates, key=lambda e: e.entity_id)))
        names = sorted({e.name for e in candidates})
        listed = ", ".join(names[:5]) + ("…" if len(names) > 5 else "")
        return Resolution(
            tuple(sorted(candidates, key=lambda e: e.entity_id)),
            question=f"Which one do you mean: {listed}? / 你指的是哪一个：{listed}？",
        )
