"""Every tool HomeAgent ships has a valid JSON Schema 2020-12 parameters schema.

The registry checks a schema from outside (plugins, adapters, skills) at registration;
HomeAgent's own are registered unchecked (`shipped=True`, a third of a second of every
start), so this test is where they are checked: all of them, as a real App registers
them, the house's device tools included."""

from __future__ import annotations

import jsonschema
import pytest

from homeagent.app import App
from homeagent.llm.testing import ScriptedProvider
from homeagent.tools.registry import ToolRegistry, ToolSpec

pytestmark = pytest.mark.anyio


async def test_every_shipped_tool_schema_is_valid_json_schema(make_config) -> None:
    config = make_config(home_assistant={"url": "http://127.0.0.1:9", "token": "t" * 30})
    async with App(config, provider=ScriptedProvider([])) as app:
        specs = list(app.tools)
    names = {spec.name for spec in specs}
    assert {"create_task", "memory_recall", "knowledge_search", "snooze_reminder"} <= names
    assert any(name.startswith("home_") for name in names)  # the device tools too
    assert len(specs) >= 85
    for spec in specs:
        jsonschema.Draft202012Validator.check_schema(spec.parameters)


def test_a_schema_from_outside_is_still_checked_at_registration() -> None:
    async def run(ctx, args):
        return "ran"

    bad = ToolSpec("bad_tool", "a plugin's tool", {"type": "object", "properties": {"x": {"type": 5}}}, run)
    with pytest.raises(ValueError, match="bad_tool.*invalid parameters schema"):
        ToolRegistry().register(bad)
