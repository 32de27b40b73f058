"""Credentials (env, 0600 file, masking), failure classes and the backoff policy."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from homeagent.errors import ConfigError
from homeagent.llm import failures as f
from homeagent.llm.credentials import CredentialStore, Secret, env_name, load_credential_file


def private(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    os.chmod(path, 0o600)
    return path


def test_secret_never_prints_its_value() -> None:
    s = Secret("sk-abcdef1234567890")
    for shown in (repr(s), str(s), f"{s}", f"{[s]}", f"{ {'k': s} }"):
        assert "abcdef" not in shown
    assert s.reveal() == "sk-abcdef1234567890" and bool(s) and not Secret("")
    with pytest.raises(TypeError):
        pickle.dumps(s)


def test_scrub_masks_the_key_and_key_like_text() -> None:
    s = Secret("plainkey-without-prefix")
    text = "Incorrect API key provided: plainkey-without-prefix; also Bearer sk-zzzzzzzzzzzz"
    out = s.scrub(text)
    assert "plainkey-without-prefix" not in out and "sk-zzzz" not in out


def test_resolution_order_api_key_then_env_then_file(tmp_path: Path) -> None:
    file = private(tmp_path / "c.yaml", "main: from-file\nother: 12345\n")
    store = CredentialStore(env={env_name("main"): "from-env"}, file=file)
    assert store.resolve(api_key="direct", credential="main").reveal() == "direct"
    assert store.resolve(credential="main").reveal() == "from-env"
    assert store.resolve(credential="other").reveal() == "12345"
    assert not store.resolve(credential="missing")
    assert not store.resolve()
    assert env_name("deepseek-main") == "HOMEAGENT_CREDENTIAL_DEEPSEEK_MAIN"
    assert "HOMEAGENT_CREDENTIAL_MISSING" in store.where("missing") and str(file) in store.where("missing")


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o666])
def test_loose_permissions_are_refused_with_the_fix(tmp_path: Path, mode: int) -> None:
    file = private(tmp_path / "c.yaml", "main: sk-secret-value-1\n")
    os.chmod(file, mode)
    with pytest.raises(ConfigError) as info:
        load_credential_file(file)
    assert f"chmod 600 {file}" in str(info.value) and f"{mode:04o}" in str(info.value)
    assert "sk-secret" not in str(info.value)


@pytest.mark.parametrize(
    "text", ["main: [unclosed sk-secret-value-1\n", "- sk-secret-value-1\n", "main: {a: sk-secret-value-1}\n"]
)
def test_bad_credential_files_never_quote_a_value(tmp_path: Path, text: str) -> None:
    file = private(tmp_path / "c.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_credential_file(file)
    assert "sk-secret" not in str(info.value) and str(file) in str(info.value)


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, "", f.AUTH_FAILED),
        (403, "", f.AUTH_FAILED),
        (402, "Insufficient Balance", f.BILLING),
        (429, '{"error": {"code": "insufficient_quota"}}', f.BILLING),
        (429, "slow down", f.RATE_LIMITED),
        (404, "", f.MODEL_NOT_FOUND),
        (400, "maximum context length", f.BAD_REQUEST),
        (400, '{"error": "qwen does not support tools"}', f.TOOLS_UNSUPPORTED),
        (408, "", f.TIMEOUT),
        (500, "", f.UPSTREAM_UNAVAILABLE),
        (503, "", f.UPSTREAM_UNAVAILABLE),
    ],
)
def test_http_statuses_are_classified(status: int, body: str, kind: str) -> None:
    assert f.classify_status(status, body) == kind


def test_which_failures_are_retried_in_place() -> None:
    assert f.UpstreamFailure(f.RATE_LIMITED, "x").retryable
    assert f.UpstreamFailure(f.UPSTREAM_UNAVAILABLE, "x").retryable
    assert f.UpstreamFailure(f.TIMEOUT, "x", connecting=True).retryable
    assert not f.UpstreamFailure(f.TIMEOUT, "x").retryable  # a hang is not waited for twice
    for kind in (f.AUTH_FAILED, f.BILLING, f.MALFORMED_RESPONSE, f.BAD_REQUEST):
        assert not f.UpstreamFailure(kind, "x").retryable


def test_backoff_doubles_caps_and_honours_short_retry_after() -> None:
    b = f.Backoff(base=0.5, cap=3.0, max_retry_after=20)
    assert [b.delay(n) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3.0]
    assert b.delay(1, retry_after=7) == 7
    assert b.delay(1, retry_after=120) is None  # better spent on the next provider
    assert f.parse_retry_after("3") == 3.0 and f.parse_retry_after("Wed, 21 Oct 2015") is None
