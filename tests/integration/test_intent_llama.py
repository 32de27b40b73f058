"""The intent layer with the real llama.cpp engine and the bundled model: what the layer
is sure of never reaches the model; what it is not sure of is the model's turn."""

from __future__ import annotations

import pytest

from tests.integration.helpers import running_app, text_of, turn

pytestmark = [pytest.mark.anyio, pytest.mark.llama]


async def test_the_bundled_model_answers_what_the_layer_abstains_from(make_config) -> None:
    config = make_config(llm={"max_tokens": 12, "n_ctx": 4096, "temperature": 0.0, "seed": 3},
                         actions={"intent": True})
    async with running_app(config) as app:
        sure = await turn(app, "add milk to the shopping list")
        unsure = await turn(app, "嗯那个东西你帮我弄一下")
        traces = [await app.runs.events(events[0].turn_id) for events in (sure, unsure)]
        rows = await app.db.fetchall("SELECT name FROM shopping_items")
    sure_trace, unsure_trace = ([e for e in t if e.type in ("intent", "model_call")] for t in traces)
    # The command: the layer ran it, the engine was never called.
    assert [e.type for e in sure_trace] == ["intent"] and sure_trace[0].payload["path"] == "intent"
    assert [r["name"] for r in rows] == ["milk"] and "milk" in text_of(sure)
    # The unsure one: the engine generated the answer, offered the layer's candidates.
    assert unsure_trace[0].type == "intent" and unsure_trace[0].payload["path"] == "model"
    assert any(e.type == "model_call" for e in unsure_trace)
    assert unsure[-1].type == "done" and text_of(unsure).strip()
