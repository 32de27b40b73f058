"""The llm config shape (providers, chain, shorthand) and the factory that builds it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from homeagent.config import load_config
from homeagent.errors import ConfigError
from homeagent.llm.echo import EchoProvider
from homeagent.llm.factory import build_provider, is_cloud, provider_spec
from homeagent.llm.router import Router

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "config" / "homeagent.yaml"


def load(tmp_path: Path, text: str, env: dict[str, str] | None = None):
    path = tmp_path / "homeagent.yaml"
    path.write_text(f"daemon:\n  data_dir: {tmp_path / 'data'}\n" + text, encoding="utf-8")
    return load_config(path, env=env or {})


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    return str(info.value)


def test_shipped_config_chain_is_deepseek_then_local() -> None:
    cfg = load_config(SHIPPED, env={"DEEPSEEK_API_KEY": "sk-test-123456"})
    assert cfg.llm.chain_names() == ("deepseek", "local")
    deepseek = provider_spec(cfg.llm, "deepseek")
    assert (deepseek.type, deepseek.base_url, deepseek.thinking) == ("openai_compatible", "https://api.deepseek.com", "off")
    assert deepseek.api_key == "sk-test-123456" and "sk-test" not in repr(deepseek)
    local = provider_spec(cfg.llm, "local")
    assert (local.type, local.model, local.n_ctx) == ("llama_cpp", "smollm2-135m-instruct", 4096)


def test_shipped_config_without_a_key_runs_on_the_local_engine(tmp_path: Path) -> None:
    cfg = load_config(SHIPPED, env={"HOMEAGENT_DATA_DIR": str(tmp_path)})
    provider = build_provider(cfg, env={})
    assert isinstance(provider, Router)
    assert provider.name == "local" and provider.supports_tools is False
    states = {p["name"]: p["state"] for p in provider.status().extra["providers"]}
    assert states["deepseek"] == "skipped"
    assert "DEEPSEEK_API_KEY" in provider.status().extra["providers"][0]["detail"]


def test_flat_shorthand_of_seed_003_is_a_chain_of_one(tmp_path: Path) -> None:
    cfg = load(tmp_path, 'llm:\n  provider: openai\n  model: deepseek-v4-flash\n  base_url: "https://api.deepseek.com"\n  api_key: k-1234\n')
    assert cfg.llm.chain_names() == ("openai",)
    spec = provider_spec(cfg.llm, "openai")
    assert (spec.type, spec.model, spec.thinking, spec.api_key) == ("openai_compatible", "deepseek-v4-flash", "off", "k-1234")
    router = build_provider(cfg, env={})
    assert isinstance(router, Router) and [r.name for r in router.routes] == ["openai"]
    assert router.routes[0].cloud


def test_existing_flat_local_keys_still_configure_the_local_engine(tmp_path: Path) -> None:
    cfg = load(tmp_path, "llm:\n  provider: echo\n")
    assert isinstance(build_provider(cfg).inner, EchoProvider)  # inside the tool dialect
    cfg = load(tmp_path, "llm:\n  max_tokens: 12\n  n_ctx: 2048\n  seed: 3\n")
    spec = provider_spec(cfg.llm, cfg.llm.chain_names()[0])
    assert (spec.type, spec.n_ctx) == ("llama_cpp", 2048)


def test_provider_names_an_entry(tmp_path: Path) -> None:
    cfg = load(tmp_path, "llm:\n  provider: box\n  providers:\n    box: {type: ollama, model: 'qwen2.5:7b', base_url: 'http://192.168.1.20:11434'}\n")
    spec = provider_spec(cfg.llm, "box")
    assert spec.type == "ollama" and not is_cloud(spec)
    router = build_provider(cfg, env={})
    assert isinstance(router, Router) and router.routes[0].provider.inner.type == "ollama"  # in the dialect


def test_thinking_written_as_a_bare_yaml_boolean_is_understood(tmp_path: Path) -> None:
    cfg = load(tmp_path, "llm:\n  providers:\n    ds: {type: openai_compatible, thinking: off}\n  chain: [ds]\n")
    assert cfg.llm.providers["ds"].thinking == "off"


@pytest.mark.parametrize(
    ("text", "start", "needle"),
    [
        ("llm:\n  providers:\n    x: {type: gpt}\n", "llm.providers.x.type:", "one of 'llama_cpp'"),
        ("llm:\n  providers:\n    x: {base_url: 'http://a'}\n", "llm.providers.x.type:", "required"),
        ("llm:\n  providers:\n    x: {type: llama_cpp, api_key: k}\n", "llm.providers.x.api_key:", "not a key of a llama_cpp"),
        ("llm:\n  providers:\n    x: {type: echo, keep_alive: 5m}\n", "llm.providers.x.keep_alive:", "not a key"),
        ("llm:\n  providers:\n    x: {type: ollama}\n", "llm.providers.x.model:", "required"),
        ("llm:\n  providers:\n    x: {type: openai_compatible, base_url: 'ftp://a'}\n", "llm.providers.x.base_url:", "http"),
        ("llm:\n  providers:\n    x: {type: openai_compatible, max_retries: 9}\n", "llm.providers.x.max_retries:", "0 to 3"),
        ("llm:\n  providers:\n    'bad name': {type: echo}\n", "llm.providers.bad name:", "letters"),
        ("llm:\n  providers: [a]\n", "llm.providers:", "mapping"),
        ("llm:\n  chain: [nowhere]\n", "llm.chain[0]:", "neither"),
        ("llm:\n  chain: [echo, echo]\n", "llm.chain:", "twice"),
        ("llm:\n  provider: echo\n  chain: [llama_cpp]\n", "llm.provider:", "llm.chain"),
        ("llm:\n  daily_cloud_tokens: -1\n", "llm.daily_cloud_tokens:", "positive"),
        ("llm:\n  privacy: {names: ['']}\n", "llm.privacy.names[0]:", "empty"),
        ("llm:\n  privacy: {enabled: maybe}\n", "llm.privacy.enabled:", "true or false"),
    ],
)
def test_bad_llm_config_names_the_key(tmp_path: Path, text: str, start: str, needle: str) -> None:
    message = error(tmp_path, text)
    assert message.startswith(start), message
    assert needle in message, message


@pytest.mark.parametrize(
    ("url", "cloud"),
    [
        ("https://api.deepseek.com", True),
        ("http://127.0.0.1:8000/v1", False),
        ("http://192.168.1.5:11434", False),
        ("http://nas.local:8080/v1", False),
        ("http://nas:8080", False),
        ("https://api.openai.com/v1", True),
    ],
)
def test_cloud_or_home_is_told_by_the_address(tmp_path: Path, url: str, cloud: bool) -> None:
    cfg = load(tmp_path, f"llm:\n  providers:\n    p: {{type: openai_compatible, base_url: '{url}', model: m}}\n  chain: [p]\n")
    assert is_cloud(provider_spec(cfg.llm, "p")) is cloud


def test_location_overrides_the_guess(tmp_path: Path) -> None:
    cfg = load(tmp_path, "llm:\n  providers:\n    p: {type: ollama, model: m, location: cloud}\n  chain: [p]\n")
    assert is_cloud(provider_spec(cfg.llm, "p")) is True


def test_home_server_without_a_key_is_not_skipped(tmp_path: Path) -> None:
    cfg = load(tmp_path, "llm:\n  providers:\n    nas: {type: openai_compatible, base_url: 'http://127.0.0.1:9/v1', model: m}\n    local: {type: echo}\n  chain: [nas, local]\n")
    router = build_provider(cfg, env={})
    assert router.name == "nas"


def test_key_from_a_named_credential_in_env_or_file(tmp_path: Path) -> None:
    creds = tmp_path / "creds.yaml"
    creds.write_text("deepseek-main: sk-from-file-0001\n", encoding="utf-8")
    os.chmod(creds, 0o600)
    text = (f"llm:\n  credentials_file: {creds}\n  providers:\n    ds: {{type: openai_compatible, credential: deepseek-main}}\n"
            "  chain: [ds]\n")
    cfg = load(tmp_path, text)
    router = build_provider(cfg, env={})
    assert router.routes[0].provider._secret.reveal() == "sk-from-file-0001"
    router = build_provider(cfg, env={"HOMEAGENT_CREDENTIAL_DEEPSEEK_MAIN": "sk-from-env-0002"})
    assert router.routes[0].provider._secret.reveal() == "sk-from-env-0002"
    os.chmod(creds, 0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        build_provider(cfg, env={})


def test_missing_local_model_in_a_chain_leaves_the_rest_working(tmp_path: Path) -> None:
    text = (f"llm:\n  providers:\n    a: {{type: echo}}\n    b: {{type: llama_cpp, model_path: {tmp_path / 'nope.gguf'}}}\n"
            "  chain: [a, b]\n")
    router = build_provider(load(tmp_path, text), env={})
    assert router.routes[1].provider.status().state == "error"


def test_doctor_checks_per_provider(tmp_path: Path) -> None:
    from homeagent.llm.checks import provider_checks

    cfg = load_config(SHIPPED, env={"HOMEAGENT_DATA_DIR": str(tmp_path)})
    checks = provider_checks(cfg, env={})
    assert [c.name for c in checks] == ["provider deepseek", "provider local"]
    assert all(c.ok for c in checks)
    assert "skipped" in checks[0].detail and "DEEPSEEK_API_KEY" in checks[0].detail
    assert "smollm2" in checks[1].detail.lower()
    bad = load(tmp_path, f"llm:\n  providers:\n    l: {{type: llama_cpp, model_path: {tmp_path / 'x.gguf'}}}\n  chain: [l]\n")
    (check,) = provider_checks(bad, env={})
    assert not check.ok and "x.gguf" in check.detail
