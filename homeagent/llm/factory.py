"""Builds the configured provider. Only the composition root calls this."""

from __future__ import annotations

from pathlib import Path

from homeagent.config import Config
from homeagent.llm.base import Provider
from homeagent.llm.echo import EchoProvider
from homeagent.llm.models import resolve_model_path


def build_provider(config: Config) -> Provider:
    llm = config.llm
    if llm.provider == "echo":
        return EchoProvider(model=llm.model if llm.model != "smollm2-135m-instruct" else "echo")
    from homeagent.llm.llama_cpp import LlamaCppProvider

    return LlamaCppProvider(
        model_path=resolve_model_path(str(llm.model_path)),
        model=llm.model,
        n_ctx=llm.n_ctx,
        n_threads=llm.n_threads,
        n_batch=llm.n_batch,
        temperature=llm.temperature,
        top_p=llm.top_p,
        repeat_penalty=llm.repeat_penalty,
        max_tokens=llm.max_tokens,
        seed=llm.seed,
        state_dir=Path(config.data_dir) / "llama_state" if llm.prefix_cache else None,
    )
