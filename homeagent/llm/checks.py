"""Per-provider checks for `homeagent doctor`: one result per chain entry.

Without `probe`, nothing touches the network: the checks say whether each provider is
configured (a key where one is needed, a readable private credential file, a model file
for the local engine). With `probe`, remote providers are asked a question that costs
no tokens (`GET /models`, `GET /api/tags`), bounded by `timeout` seconds each.
"""

from __future__ import annotations

from collections.abc import Mapping

import anyio

from homeagent.checks import Check
from homeagent.config import Config
from homeagent.errors import HomeAgentError
from homeagent.llm.base import Provider
from homeagent.llm.failures import describe


def provider_checks(
    config: Config, *, probe: bool = False, timeout: float = 5.0, env: Mapping[str, str] | None = None
) -> list[Check]:
    from homeagent.llm.factory import (
        build_one,
        credential_store,
        is_cloud,
        local_model,
        provider_spec,
    )

    checks: list[Check] = []
    try:
        credentials = credential_store(config, env)
    except HomeAgentError as err:  # pragma: no cover - defensive
        return [Check("providers", False, str(err))]
    for name in config.llm.chain_names():
        label = f"provider {name}"
        try:
            spec = provider_spec(config.llm, name)
            if spec.type == "llama_cpp":
                model, path = local_model(config, spec)
                checks.append(Check(label, True, f"llama_cpp, {model} at {path}"))
                continue
            if spec.type == "echo":
                checks.append(Check(label, True, "echo (repeats the user's message)"))
                continue
            provider = build_one(config, name, spec, credentials)
        except HomeAgentError as err:
            checks.append(Check(label, False, str(err), "fix the llm section of the config as the message says"))
            continue
        where = "cloud" if is_cloud(spec) else "home"
        if not provider.available:
            detail = provider.status().detail
            checks.append(Check(
                label, True, f"{spec.type} ({where}) skipped: {detail}; turns use the next provider",
                "set the key to use it",
            ))
            continue
        if not probe:
            checks.append(Check(label, True, f"{spec.type} ({where}) {spec.model} at {spec.base_url}"))
            continue
        kind = anyio.run(_probe, provider, timeout)  # doctor is synchronous
        if kind:
            checks.append(Check(
                label, False, f"{spec.type} {spec.base_url}: {describe(kind)} ({kind})",
                "check the key (auth_failed, billing), the address and the network",
            ))
        else:
            checks.append(Check(label, True, f"{spec.type} ({where}) {spec.model} answers at {spec.base_url}"))
    return checks


async def _probe(provider: Provider, seconds: float) -> str:
    try:
        with anyio.fail_after(seconds):
            return await provider.probe()
    except TimeoutError:
        return "timeout"
    finally:
        await provider.aclose()
