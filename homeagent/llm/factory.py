"""Builds the configured provider. Only the composition root (and the CLI) call this.

`llm.chain` (or `llm.provider` alone, seed 003's shorthand) names the providers in the
order they are tried; each name is an entry of `llm.providers` or a provider type
configured by the flat `llm.*` keys. An engine whose model cannot call functions (or may
turn out not to: an Ollama model) is wrapped in the tool dialect (`homeagent.llm.dialect`),
so every provider takes native tool requests. A chain of one local engine (llama_cpp, echo) is
returned as that engine; anything else is wrapped in the `Router`, which adds failover,
cooldowns, PII scrubbing for cloud providers, metering and the daily cloud budget.
What a chain name stands for and the local engine come from `homeagent.llm.specs`
(light, for the preload of `homeagent serve`; re-exported here).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import AsyncGenerator, Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from homeagent.clock import Clock
from homeagent.config import DEEPSEEK_BASE_URL, Config, ProviderConfig
from homeagent.errors import HomeAgentError, ModelError
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
from homeagent.llm.privacy import Scrubber
from homeagent.llm.router import Route, Router
from homeagent.llm.specs import local_engine, local_model, preload_local, provider_spec
from homeagent.llm.usage import UsageMeter

LOCAL_TYPES = ("llama_cpp", "echo")


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


def build_one(
    config: Config, name: str, spec: ProviderConfig, credentials: CredentialStore
) -> Provider:
    if spec.type == "echo":
        return EchoProvider(model=spec.model)
    if spec.type == "llama_cpp":
        return local_engine(config, spec)
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


__all__ = ["build_provider", "build_one", "credential_store", "dialect_settings", "is_cloud", "local_engine", "local_model",
           "native", "preload_local", "provider_spec"]
