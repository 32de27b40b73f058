"""Home Assistant's own Ollama integration with HomeAgent as its conversation agent (5a).

The real Home Assistant (started by conftest) adds its built-in Ollama integration through
its config-flow API, pointed at a running HomeAgent's `/ollama` route with the household
token in the URL (the integration sends no headers). A sentence sent to Home Assistant's
conversation API then goes Home Assistant → HomeAgent → the model's call of Home
Assistant's own tool → Home Assistant runs it → HomeAgent resumes the same turn with the
result → the answer. The scripted provider stands in for the model's words (what is under
test is the protocol round trip, the client tools and the intent layer keeping out of
the way); the intent layer is on, as shipped.
"""

from __future__ import annotations

from typing import Any

import pytest

from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from tests.ha.capture import configure_ollama
from tests.ha.test_home_real import service_calls
from tests.integration.helpers import running_app

pytestmark = [pytest.mark.anyio, pytest.mark.home_assistant, pytest.mark.timeout(900)]

TOKEN = "household-token-for-home-assistant"


def _speech(answer: dict[str, Any]) -> str:
    return answer["response"]["speech"]["plain"]["speech"]


def _tool_results(provider: ScriptedProvider) -> list[str]:
    return [m.content for r in provider.requests for m in r.messages if m.role == "tool"]


async def test_home_assistant_uses_homeagent_as_its_conversation_agent(home_assistant, make_config):
    ha = home_assistant
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("HassTurnOn", {"name": "Kitchen Light"})]),
        ScriptedReply(text="The kitchen light is on now."),
        ScriptedReply(tool_calls=[("GetLiveContext", {})]),
        ScriptedReply(text="Yes, the kitchen light is on."),
    ])  # fmt: skip
    config = make_config(
        api={"token": TOKEN}, actions={"intent": True},
        daemon={"check_interval": 0, "heartbeat_interval": 0}, knowledge={"watch": False},
    )
    async with running_app(config, provider=provider, http=True) as app:
        url = f"http://127.0.0.1:{app.health.port}/ollama/key/{TOKEN}"
        agent_id = await configure_ollama(ha, url)
        await ha.rest("POST", "/api/services/light/turn_off", {"entity_id": "light.kitchen_light"})

        answer = await ha.rest("POST", "/api/conversation/process",
                               {"text": "turn on the kitchen light", "agent_id": agent_id, "language": "en"})
        assert _speech(answer) == "The kitchen light is on now."
        assert (await ha.state("light.kitchen_light"))["state"] == "on"
        # The turn resumed with Home Assistant's own result of its tool.
        first_turn = provider.requests[1]
        assert {t.name for t in first_turn.tools} >= {"HassTurnOn", "HassTurnOff", "GetLiveContext"}
        assert any("kitchen" in r.lower() for r in _tool_results(provider))

        async with service_calls(ha) as calls:
            answer = await ha.rest("POST", "/api/conversation/process",
                                   {"text": "is the kitchen light on?", "agent_id": agent_id, "language": "en"})
        assert _speech(answer) == "Yes, the kitchen light is on."
        assert calls == []  # a question changed nothing
        assert (await ha.state("light.kitchen_light"))["state"] == "on"
        # One run per sentence, both halves of the first in its trace.
        assert len(provider.requests) == 4


async def test_a_wrong_token_in_the_url_is_refused_by_the_config_flow(home_assistant, make_config):
    ha = home_assistant
    config = make_config(api={"token": TOKEN}, daemon={"check_interval": 0, "heartbeat_interval": 0},
                         knowledge={"watch": False})
    async with running_app(config, provider=ScriptedProvider([]), http=True) as app:
        flow = await ha.rest("POST", "/api/config/config_entries/flow", {"handler": "ollama"})
        step = await ha.rest("POST", f"/api/config/config_entries/flow/{flow['flow_id']}",
                             {"url": f"http://127.0.0.1:{app.health.port}/ollama/key/not-the-token"})
        assert step["type"] == "form" and step["errors"], step  # Home Assistant could not list models
        await ha.rest("DELETE", f"/api/config/config_entries/flow/{flow['flow_id']}")
        # The same flow with the right key goes through.
        assert await configure_ollama(ha, f"http://127.0.0.1:{app.health.port}/ollama/key/{TOKEN}")
