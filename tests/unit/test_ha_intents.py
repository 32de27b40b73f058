"""Home Assistant's intents as client tools: the device overview read from its prompt,
values narrowed to what the user's words point at, and the selector ranking the intents
like HomeAgent's own actions (Chinese and English)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homeagent.api.client_tools import parse_client_tools
from homeagent.io.ha_intents import compact_context, enrich, parse_static_context, readable_result
from homeagent.llm.dialect.select import ActionSelector

ROOT = Path(__file__).resolve().parents[2]
PROMPT = """You are a voice assistant for Home Assistant.
When controlling Home Assistant always call the intent tools.
Static Context: An overview of the areas and the devices in this smart home:
- names: Kitchen Light, Cooking light
  domain: light
  areas: Kitchen
- names: 'Living Room Lamp'
  domain: light
  areas: Living Room
- names: Front Door
  domain: lock
  areas: Entrance
- names: Shopping List
  domain: todo
You are in area Kitchen and all generic commands like 'turn on the lights' should target this area.
Current time is 10:00:00. Today's date is 2026-03-04.
"""


def ha_tools():
    return parse_client_tools(json.loads((ROOT / "bench/data/ha_tools_written.json").read_text())["ollama"], ())


def props(tools, name):
    return next(t for t in tools if t.name == name).parameters["properties"]


def test_the_device_overview_is_read_and_compacted():
    devices = parse_static_context(PROMPT)
    assert [(d.names, d.domain, d.areas) for d in devices] == [
        (("Kitchen Light", "Cooking light"), "light", ("Kitchen",)),
        (("Living Room Lamp",), "light", ("Living Room",)),
        (("Front Door",), "lock", ("Entrance",)),
        (("Shopping List",), "todo", ()),
    ]
    compact = compact_context(PROMPT)
    assert "Kitchen Light, Cooking light — light — Kitchen" in compact
    assert "always call the intent tools" not in compact
    assert "You are in area Kitchen" in compact and "Current time is 10:00:00" in compact
    assert compact_context("no overview here") == "no overview here"


@pytest.mark.parametrize("text", ["turn on the kitchen light", "把厨房的灯打开"])
def test_names_narrow_to_the_device_the_words_point_at(text):
    tools = enrich(ha_tools(), text, PROMPT)
    turn_on = next(t for t in tools if t.name == "HassTurnOn")
    on = turn_on.parameters["properties"]
    assert on["name"]["enum"] == ["Kitchen Light"] and "name" in turn_on.parameters["required"]
    assert "area" not in on and "domain" not in on  # by its unique name
    # An intent for another kind of device cannot apply to a light.
    assert "HassLightSet" in {t.name for t in tools} and "HassSetPosition" not in {t.name for t in tools}


def test_colour_names_are_english_and_lists_are_the_todo_entities():
    tools = enrich(ha_tools(), "把客厅的台灯调成红色", PROMPT)
    light = props(tools, "HassLightSet")
    assert light["color"]["enum"] == ["red"] and light["name"]["enum"] == ["Living Room Lamp"]
    tools = enrich(ha_tools(), "add milk to the shopping list", PROMPT)
    assert props(tools, "HassListAddItem")["name"]["enum"] == ["Shopping List"]
    assert "enum" not in props(tools, "HassListAddItem")["item"]


def test_words_that_point_at_nothing_offer_no_target_to_guess():
    on = props(enrich(ha_tools(), "next song", PROMPT), "HassMediaPrevious")
    assert set(on) <= {"domain"}  # no name, area, floor or class the words did not give
    # Without a device overview the schema keeps Home Assistant's own shape.
    on = props(enrich(ha_tools(), "turn on something nice", ""), "HassTurnOn")
    assert on["name"] == {"type": "string"} and on["area"] == {"type": "string"}


def test_other_clients_tools_pass_as_sent():
    tools = parse_client_tools([{"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {"name": {"type": "string"}}}}}], ())
    assert enrich(tools, "turn on the kitchen light", PROMPT) == tools


@pytest.mark.parametrize(("text", "tool"), [
    ("turn on the kitchen light", "HassTurnOn"),
    ("把厨房的灯打开", "HassTurnOn"),
    ("关掉卧室的灯", "HassTurnOff"),
    ("set the living room lamp to 40% brightness", "HassLightSet"),
    ("把灯调成红色", "HassLightSet"),
    ("厨房的灯颜色换成蓝色", "HassLightSet"),
    ("set the thermostat to 22 degrees", "HassClimateSetTemperature"),
    ("把空调调到26度", "HassClimateSetTemperature"),
    ("next song", "HassMediaNext"),
    ("is the kitchen light on?", "GetLiveContext"),
    ("厨房的灯开着吗", "GetLiveContext"),
])
def test_the_selector_ranks_intents_like_actions(text, tool):
    tools = enrich(ha_tools(), text, PROMPT)
    ranking = ActionSelector().rank(text, tools)
    assert ranking.scored[0][0].name == tool
    assert not ranking.chat
    # The ranking hands back this request's own definitions (with its narrowed values).
    assert ranking.scored[0][0] in tools


@pytest.mark.parametrize("text", ["is the kitchen light on?", "厨房的灯开着吗？", "客厅现在多少度", "what's the temperature in the living room?",
                                  "前门锁了吗", "which lights are on right now?"])
def test_a_question_is_offered_no_intent_that_changes_state(text):
    names = {t.name for t in enrich(ha_tools(), text, PROMPT)}
    assert names == {"GetLiveContext"}


@pytest.mark.parametrize("text", ["turn on the kitchen light", "can you turn on the kitchen light?", "能把厨房的灯打开吗？",
                                  "把前门锁上", "set the thermostat to 22"])
def test_a_request_keeps_every_intent_that_can_apply(text):
    names = {t.name for t in enrich(ha_tools(), text, PROMPT)}
    assert {"HassTurnOn", "HassTurnOff", "HassListAddItem", "GetLiveContext"} <= names


def test_home_assistants_results_read_as_short_lines():
    done = json.dumps({"speech": {}, "response_type": "action_done", "data": {
        "targets": [], "success": [{"name": "Kitchen Light", "type": "entity", "id": "light.kitchen"}], "failed": []}})
    assert readable_result("HassTurnOn", done, "turn on the kitchen light") == "Done: Kitchen Light."
    assert readable_result("HassTurnOn", done, "把厨房的灯打开") == "好的，已完成：Kitchen Light。"
    live = json.dumps({"success": True, "result": (
        "Live Context: An overview of the areas and the devices in this smart home:\n"
        "- names: Kitchen Light\n  domain: light\n  state: 'on'\n  areas: Kitchen\n"
        "- names: Front Door\n  domain: lock\n  state: locked\n  areas: Entrance\n")})
    assert readable_result("GetLiveContext", live, "is the kitchen light on?") == "Kitchen Light (Kitchen): on"
    assert readable_result("GetLiveContext", live, "前门锁了吗") == "Front Door (Entrance): locked"
    failed = json.dumps({"response_type": "error", "speech": {"plain": {"speech": "No device named garage"}}})
    assert readable_result("HassTurnOn", failed, "open the garage") == "It did not work: No device named garage"
    assert readable_result("HassTurnOn", "plain words", "x") == "plain words"


def test_no_number_said_no_optional_number_offered():
    light = props(enrich(ha_tools(), "make the living room lamp red", PROMPT), "HassLightSet")
    assert "brightness" not in light and light["color"]["enum"] == ["red"]
    light = props(enrich(ha_tools(), "把客厅的台灯亮度调到百分之三十", PROMPT), "HassLightSet")
    assert "brightness" in light
