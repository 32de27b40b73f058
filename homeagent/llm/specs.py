"""What a chain name stands for (`provider_spec`), the model a local entry runs
(`local_model`), the llama.cpp engine built from it (`local_engine`), and `preload_local`.

Light on imports (no HTTP client, no router, no dialect) on purpose: `homeagent serve`
calls `preload_local` right after it binds its port, and the engine's model begins to
load only once this module is imported. `homeagent.llm.factory` builds everything else.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from homeagent.config import (
    DEEPSEEK_BASE_URL,
    DEEPSEEK_MODEL,
    OLLAMA_BASE_URL,
    PROVIDER_TYPE_ALIASES,
    Config,
    LLMConfig,
    ProviderConfig,
)
from homeagent.errors import ConfigError, HomeAgentError
from homeagent.llm.models import BUNDLED_MODEL_ID, resolve_model_path

if TYPE_CHECKING:
    from homeagent.llm.base import Provider
    from homeagent.llm.llama_cpp import LlamaCppProvider


def provider_spec(llm: LLMConfig, name: str) -> ProviderConfig:
    """The entry a chain name stands for, with the defaults of its type filled in."""
    if name in llm.providers:
        spec = llm.providers[name]
    else:
        kind = PROVIDER_TYPE_ALIASES.get(name, name)
        spec = ProviderConfig(type=kind, base_url=llm.base_url, api_key=llm.api_key)
        if kind != "llama_cpp" and llm.model != LLMConfig().model:
            spec = replace(spec, model=llm.model)
    if spec.type == "openai_compatible":
        base = spec.base_url or DEEPSEEK_BASE_URL
        deepseek = base.rstrip("/") == DEEPSEEK_BASE_URL
        spec = replace(
            spec,
            base_url=base,
            model=spec.model or DEEPSEEK_MODEL,
            # Seed 003: DeepSeek runs with thinking off unless the entry says otherwise.
            thinking="off" if deepseek and name not in llm.providers else spec.thinking,
        )
    elif spec.type == "ollama":
        if not spec.model:
            raise ConfigError("llm.model: an ollama provider needs a model name (e.g. qwen2.5:7b)")
        spec = replace(spec, base_url=spec.base_url or OLLAMA_BASE_URL)
    elif spec.type == "llama_cpp":
        spec = replace(
            spec,
            model=spec.model or llm.model,
            model_path=spec.model_path or llm.model_path,
            n_ctx=spec.n_ctx or llm.n_ctx,
            n_threads=spec.n_threads or llm.n_threads,
            n_batch=spec.n_batch or llm.n_batch,
        )
    elif spec.type == "echo":
        spec = replace(spec, model=spec.model or (llm.model if llm.model != LLMConfig().model else "echo"))
    return spec


def local_model(config: Config, spec: ProviderConfig) -> tuple[str, Path]:
    if spec.model_path:
        return spec.model, resolve_model_path(str(spec.model_path))
    from homeagent.llm.catalog import load_catalog
    from homeagent.llm.manager import ModelManager

    try:
        catalog = load_catalog(config.llm.model_catalog or None)
        chosen = ModelManager(Path(config.data_dir) / "models", catalog).active_chat_path()
    except HomeAgentError:
        chosen = None
    if chosen is not None:
        return chosen[0], chosen[1]
    return spec.model or BUNDLED_MODEL_ID, resolve_model_path("")


def local_engine(config: Config, spec: ProviderConfig) -> LlamaCppProvider:
    """The llama.cpp engine of a `llama_cpp` entry (not loaded yet)."""
    from homeagent.llm.llama_cpp import LlamaCppProvider

    llm = config.llm
    model, path = local_model(config, spec)
    return LlamaCppProvider(
        model_path=path,
        model=model,
        n_ctx=spec.n_ctx,
        n_threads=spec.n_threads,
        n_batch=spec.n_batch,
        temperature=llm.temperature,
        top_p=llm.top_p,
        repeat_penalty=llm.repeat_penalty,
        max_tokens=llm.max_tokens,
        seed=llm.seed,
        state_dir=Path(config.data_dir) / "llama_state" if llm.prefix_cache else None,
    )


def preload_local(config: Config) -> dict[str, Provider]:
    """The chain's llama.cpp engines, built now and loading in threads of their own (the
    model and the session state the last stop saved: `LlamaCppProvider.preload`), for
    `build_provider(preloaded=...)`. `homeagent serve` calls this before it imports the
    rest of the daemon. An engine that cannot be built is left out: `build_provider`
    meets the same error and handles it as it always does."""
    engines: dict[str, Provider] = {}
    for name in config.llm.chain_names():
        spec = provider_spec(config.llm, name)
        if spec.type != "llama_cpp":
            continue
        try:
            engine = local_engine(config, spec)
        except HomeAgentError:
            continue
        engine.preload()
        engines[name] = engine
    return engines
