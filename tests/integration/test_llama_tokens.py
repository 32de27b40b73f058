"""The engine tokenises only what an earlier prompt did not already hold (the real tokenizer)."""

from __future__ import annotations

import pytest

from homeagent.llm.base import Message

from .test_llama import provider

pytestmark = [pytest.mark.anyio, pytest.mark.llama]


async def test_head_and_tail_tokens_equal_the_whole_prompts_tokens():
    engine = provider(n_ctx=2048)
    await engine.start()
    try:
        history = [Message("system", "You are HomeAgent, a household butler. 今天是星期一。")]
        turns = [
            ("Remind me to buy milk tomorrow.", "Done: milk, tomorrow at 9."),
            ("帮我记一个任务：明天下午3点交电费", "好的，已记下：明天下午3点交电费。"),
            (" leading space and <|im_end|> typed by a user", "ok"),
            ("最后一个问题？", ""),
        ]
        checked = 0
        for user, answer in turns:
            history.append(Message("user", user))
            prompt, _ = engine.render(history)
            head = engine._token_head[0]
            tokens = engine._tokens_for(prompt)
            assert tokens == engine._tokenize(prompt), user
            checked += bool(head) and prompt.startswith(head)
            if answer:
                history.append(Message("assistant", answer))
                warm, _ = engine.render(history, generation=False)
                assert engine._tokens_for(warm) == engine._tokenize(warm)
        # The head was reused on every turn after the first, and the split was accepted.
        assert checked == len(turns) - 1 and engine._split_tokens is True
        assert len(engine._token_head[1]) > 20
    finally:
        await engine.aclose()


async def test_a_prompt_that_does_not_start_with_the_head_is_tokenised_whole():
    engine = provider()
    await engine.start()
    try:
        first, _ = engine.render([Message("system", "A."), Message("user", "one")])
        engine._tokens_for(first)
        other, _ = engine.render([Message("system", "B."), Message("user", "two")])
        assert not other.startswith(engine._token_head[0])
        assert engine._tokens_for(other) == engine._tokenize(other)
    finally:
        await engine.aclose()
