"""Builds the configured provider. Only the composition root (and the CLI) call this.

`llm.chain` (or `llm.provider` alone, seed 003's shorthand) names the providers in the
order they are tried; each name is an entry of `llm.providers` or a provider type
configured by the flat `llm.*` keys. An engine whose model cannot call functions (or may
turn out not to: an Ollama model) is wrapped in the tool dialect (`homeagent.llm.dialect`),
so every provider takes native tool requests. A chain of one local engine (llama_cpp, echo) is
returned as that engine; anything else is wrapped in the `Router`, which adds failover,
cooldowns, PII scrubbing for cloud providers, metering and the daily cloud budget.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import AsyncGenerator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from homeagent.clock import Clock
from homeagent.config import (
    DEEPSEEK_BASE_URL,
    DEEPSEEK_MODEL,
    OLLAMA_BASE_URL,
    PROVIDER_TYPE_ALIASES,
    Config,
    LLMConfig,
    ProviderConfig,
)
from homeagent.errors import ConfigError, HomeAgentError, ModelError
from homeagent.llm.base import (
    ChatRequest,
    Provider,
    ProviderBase,
    ProviderEvent,
    ProviderStatus,
    StreamError,
)
from homeagent.llm.credentials import CredentialStore
from homeagent.llm.dialect import DialectSettings, speak_native
from homeagent.llm.dialect.select import ActionSelector
from homeagent.llm.echo import EchoProvider
from homeagent.llm.failures import Backoff
from homeagent.llm.http import HttpOptions
from homeagent.llm.models import BUNDLED_MODEL_ID, resolve_model_path
from homeagent.llm.privacy import Scrubber
from homeagent.llm.router import Route, Router
from homeagent.llm.usage import UsageMeter

LOCAL_TYPES = ("llama_cpp", "echo")


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


def is_cloud(spec: ProviderConfig) -> bool:
    if spec.location != "auto":
        return spec.location == "cloud"
    if spec.type in LOCAL_TYPES:
        return False
    host = (urlsplit(spec.base_url).hostname or "").lower()
    if host == "localhost" or host.endswith((".local", ".lan", ".home", ".internal", ".home.arpa")):
        return False
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return "." in host  # a bare LAN name ("nas") is in the house
    return not (ip.is_loopback or ip.is_private or ip.is_link_local)


class UnavailableProvider(ProviderBase):
    """Stands in for an engine that could not even be built (its model file is missing),
    so the rest of the chain still works; `start()` raises the reason."""

    def __init__(self, name: str, model: str, error: HomeAgentError):
        self.name, self.model, self._error = name, model, error

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        yield StreamError(str(self._error), kind="start_failed")

    def status(self) -> ProviderStatus:
        return ProviderStatus(self.name, self.model, "error", str(self._error))

    async def start(self) -> None:
        raise self._error


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


def build_one(
    config: Config, name: str, spec: ProviderConfig, credentials: CredentialStore
) -> Provider:
    llm = config.llm
    if spec.type == "echo":
        return EchoProvider(model=spec.model)
    if spec.type == "llama_cpp":
        from homeagent.llm.llama_cpp import LlamaCppProvider

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
    secret = credentials.resolve(api_key=spec.api_key, credential=spec.credential)
    if spec.credential:
        hint = credentials.where(spec.credential)
    elif spec.base_url.rstrip("/") == DEEPSEEK_BASE_URL:
        hint = "DEEPSEEK_API_KEY"
    else:
        hint = f"llm.providers.{name}.api_key"
    common: dict[str, Any] = {
        "name": name,
        "base_url": spec.base_url,
        "model": spec.model,
        "api_key": secret,
        "cloud": is_cloud(spec),
        "key_hint": hint,
        "options": HttpOptions(spec.connect_timeout, spec.read_timeout, spec.max_retries, Backoff()),
    }
    if spec.type == "ollama":
        from homeagent.llm.ollama import OllamaProvider

        return OllamaProvider(
            tools=spec.tools, thinking=spec.thinking, keep_alive=spec.keep_alive,
            max_tokens=spec.max_tokens, **common,
        )
    from homeagent.llm.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(
        supports_tools=spec.tools != "action",
        thinking=spec.thinking,
        max_tokens=spec.max_tokens,
        # A server in the house (llama.cpp, vLLM on the NAS) may need no key.
        needs_key=is_cloud(spec),
        **common,
    )


def credential_store(config: Config, env: Mapping[str, str] | None = None) -> CredentialStore:
    file = Path(config.llm.credentials_file) if config.llm.credentials_file else Path(config.data_dir) / "credentials.yaml"
    return CredentialStore(env=os.environ if env is None else env, file=file)


def dialect_settings(config: Config) -> DialectSettings:
    """How tools are offered to models that read them from the prompt (`actions.*`)."""
    a = config.actions
    return DialectSettings(
        top_k=a.top_k, top_k_local=a.top_k_local, results_answer_local=a.results_answer_local,
        force_threshold=a.force_threshold if a.grammar else 0.0,
    )


def native(
    provider: Provider, config: Config, selector: ActionSelector | None = None, *, may_lose_tools: bool = False
) -> Provider:
    """`provider` as the daemon holds it, taking native tool requests: wrapped in the
    dialect when its model cannot call functions, or may turn out not to (`may_lose_tools`:
    an Ollama model without tools is found out at start or by a refused request). Also
    for providers built elsewhere (a test's, a bench's)."""
    if provider.supports_tools and not may_lose_tools:
        return provider
    return speak_native(provider, dialect_settings(config), selector)


def build_provider(
    config: Config,
    *,
    meter: UsageMeter | None = None,
    clock: Clock | None = None,
    env: Mapping[str, str] | None = None,
    notices: Literal["text", "event", "off"] = "text",
    preloaded: Mapping[str, Provider] | None = None,
) -> Provider:
    """The provider the agent talks to: one local engine, or a `Router` over the chain.
    `preloaded`: engines `preload_local` built (and began loading) for this config, by
    chain name; they take the place of building them again."""
    llm = config.llm
    names = llm.chain_names()
    specs = [(name, provider_spec(llm, name)) for name in names]
    credentials = credential_store(config, env)
    selector = ActionSelector()  # one index for the whole chain
    ready = dict(preloaded or {})

    def build(name: str, spec: ProviderConfig) -> Provider:
        return ready.pop(name) if name in ready else build_one(config, name, spec, credentials)

    if len(specs) == 1 and specs[0][1].type in LOCAL_TYPES:
        return native(build(*specs[0]), config, selector)
    routes = []
    for name, spec in specs:
        try:
            provider = build(name, spec)
        except ModelError as err:
            # A missing local model must not take down a chain that has other engines;
            # config errors (a world-readable credential file) still stop the start.
            provider = UnavailableProvider(name, spec.model, err)
        provider = native(provider, config, selector, may_lose_tools=spec.type == "ollama")
        routes.append(Route(name, provider, cloud=is_cloud(spec), type=spec.type))
    scrubber = Scrubber(llm.privacy.names) if llm.privacy.enabled else None
    return Router(
        routes,
        clock=clock,
        meter=meter or UsageMeter(clock=clock),
        scrubber=scrubber,
        daily_cloud_tokens=llm.daily_cloud_tokens,
        notices=notices,
    )


def preload_local(config: Config) -> dict[str, Provider]:
    """The chain's llama.cpp engines, built now and loading in threads of their own (the
    model and the session state the last stop saved: `LlamaCppProvider.preload`), for
    `build_provider(preloaded=...)`. `homeagent serve` calls this before it imports the
    rest of the daemon. An engine that cannot be built is left out: `build_provider`
    meets the same error and handles it as it always does."""
    from homeagent.llm.llama_cpp import LlamaCppProvider

    engines: dict[str, Provider] = {}
    for name in config.llm.chain_names():
        spec = provider_spec(config.llm, name)
        if spec.type != "llama_cpp":
            continue
        try:
            engine = build_one(config, name, spec, credential_store(config))
        except HomeAgentError:
            continue
        if isinstance(engine, LlamaCppProvider):
            engine.preload()
            engines[name] = engine
    return engines


__all__ = ["build_provider", "build_one", "credential_store", "dialect_settings", "is_cloud", "native", "preload_local", "provider_spec"]
