"""Entity resolution and exposure: the pure part of homeagent.home (no Home Assistant needed)."""

from __future__ import annotations

import pytest

from homeagent.config import load_config
from homeagent.errors import ConfigError
from homeagent.home.house import Area, Entity, House, RegistryEntry, is_exposed, narrowed
from homeagent.home.tools import live_context

KITCHEN = Area("kitchen", "Kitchen")
LIVING = Area("living_room", "Living Room")
BEDROOM = Area("bedroom", "卧室")


def ent(entity_id: str, name: str, area: Area | None = None, state: str = "off", aliases=(), **attrs) -> Entity:
    return Entity(entity_id, state, {"friendly_name": name, **attrs}, tuple(aliases), area)


HOUSE = House(
    {e.entity_id: e for e in (
        ent("light.kitchen_light", "Kitchen Light", KITCHEN, "on", brightness=128),
        ent("switch.coffee_maker", "Coffee Maker", KITCHEN, aliases=["咖啡机"]),
        ent("light.living_room_lamp", "Living Room Lamp", LIVING, aliases=["落地灯"]),
        ent("light.bedroom_lamp", "床头灯", BEDROOM),
        ent("light.bedroom_ceiling", "吊灯", BEDROOM, "on"),
        ent("cover.garage_door", "Garage Door", None, "open", device_class="garage"),
        ent("sensor.living_temp", "Living Room Temperature", LIVING, "21.5", device_class="temperature",
            unit_of_measurement="°C"),
    )},
    {a.area_id: a for a in (KITCHEN, LIVING, BEDROOM)},
)  # fmt: skip


@pytest.mark.parametrize(("words", "expected"), [
    ("kitchen light", "light.kitchen_light"),
    ("Kitchen Light", "light.kitchen_light"),
    ("the kitchen lights", "light.kitchen_light"),
    ("厨房的灯", "light.kitchen_light"),          # Chinese room word for an English area
    ("客厅的灯", "light.living_room_lamp"),
    ("living room lamp", "light.living_room_lamp"),
    ("落地灯", "light.living_room_lamp"),          # alias
    ("咖啡机", "switch.coffee_maker"),
    ("coffee maker", "switch.coffee_maker"),
    ("bedroom ceiling", "light.bedroom_ceiling"),  # English room word for a Chinese area + a name
    ("车库门", "cover.garage_door"),
    ("garage door", "cover.garage_door"),
    ("light.bedroom_lamp", "light.bedroom_lamp"),  # an entity id
])  # fmt: skip
def test_words_resolve_to_one_entity(words, expected):
    found = HOUSE.resolve(words)
    assert found.found, found.question
    assert [e.entity_id for e in found.entities] == [expected]


def test_two_matches_are_a_question_not_a_guess():
    found = HOUSE.resolve("卧室的灯")
    assert not found.found
    assert {e.entity_id for e in found.entities} == {"light.bedroom_lamp", "light.bedroom_ceiling"}
    assert "床头灯" in found.question and "吊灯" in found.question
    assert HOUSE.resolve("bedroom lights", many=True).found


def test_no_match_and_domain_limits():
    assert HOUSE.resolve("dishwasher").entities == ()
    assert HOUSE.resolve("kitchen", domains=("switch",)).entities[0].entity_id == "switch.coffee_maker"
    assert not HOUSE.resolve("").found


def test_exposure_follows_home_assistants_rule():
    entry = RegistryEntry("light.a")
    assert is_exposed("light.a", {}, entry, frozenset(), expose_new=True)  # undecided: HA's default
    assert not is_exposed("light.a", {}, entry, frozenset(), expose_new=False)
    assert not is_exposed("light.a", {}, RegistryEntry("light.a", exposed=False), frozenset(), True)
    assert is_exposed("lock.door", {}, RegistryEntry("lock.door", exposed=True), frozenset(), True)
    assert not is_exposed("lock.door", {}, RegistryEntry("lock.door"), frozenset(), True)  # locks: opt-in
    assert not is_exposed("light.a", {}, RegistryEntry("light.a", hidden=True), frozenset(), True)
    assert is_exposed("sensor.t", {"device_class": "temperature"}, RegistryEntry("sensor.t"), frozenset(), True)
    assert not is_exposed("sensor.p", {"device_class": "power"}, RegistryEntry("sensor.p"), frozenset(), True)
    assert not is_exposed("light.legacy", {}, None, frozenset(), True)  # no registry entry: listed only
    assert is_exposed("light.legacy", {}, None, frozenset({"light.legacy"}), True)


def test_config_narrows_with_globs():
    assert narrowed("light.kitchen", ("light.*",), ())
    assert not narrowed("switch.heater", ("light.*",), ())
    assert not narrowed("light.kitchen", (), ("light.kitchen",))
    assert narrowed("lock.front", (), ())


def test_live_context_groups_by_area():
    text = live_context(HOUSE)
    assert "Kitchen:" in text and "- Kitchen Light (light): on, brightness 50%" in text
    assert "- Living Room Temperature: 21.5 °C" in text
    assert "- Garage Door (cover): open" in text
    assert "Coffee Maker" not in text  # off devices are counted, not listed
    assert "Living Room Lamp" not in live_context(HOUSE, "厨房")
    with pytest.raises(Exception, match="no area called 'attic'"):
        live_context(HOUSE, "attic")


@pytest.mark.parametrize(("values", "message"), [
    ({"url": "homeassistant.local:8123"}, "home_assistant.url: expected http"),
    ({"url": "http://ha:8123", "entities": ["kitchen"]}, r"home_assistant.entities\[0\]"),
    ({"url": "http://ha:8123", "reconnect_min": "10s", "reconnect_max": "1s"}, "reconnect_min <= reconnect_max"),
    ({"tokn": "x"}, "home_assistant.tokn: unknown key"),
])  # fmt: skip
def test_home_assistant_config_errors_name_the_key(tmp_path, values, message):
    import yaml

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"home_assistant": values}))
    with pytest.raises(ConfigError, match=message):
        load_config(path, env={})


def test_home_assistant_token_comes_from_the_credential_store(tmp_path):
    from homeagent.home import link_from_config
    from homeagent.llm.credentials import CredentialStore

    cfg = load_config(None, env={}, overrides={"home_assistant": {"url": "http://127.0.0.1:8123"}})
    link = link_from_config(cfg.home_assistant, CredentialStore(env={"HOMEAGENT_CREDENTIAL_HOME_ASSISTANT": "tok-123"}))
    assert link is not None and "tok-123" not in repr(vars(link)) and "tok-123" not in str(link.status())
    missing = link_from_config(cfg.home_assistant, CredentialStore(env={}))
    assert missing is not None and "HOMEAGENT_CREDENTIAL_HOME_ASSISTANT" in missing._missing_token
    assert link_from_config(load_config(None, env={}).home_assistant, CredentialStore(env={})) is None
