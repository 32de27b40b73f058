"""A token carried in an /ollama/key/<token>/ URL never reaches a log line."""

from __future__ import annotations

from homeagent.log import REDACTED, redact, redact_text


def test_a_key_in_a_url_path_is_masked():
    assert redact_text("POST /ollama/key/household-secret-1/api/chat") == f"POST /ollama/key/{REDACTED}/api/chat"
    assert "s3cr3t" not in str(redact({"path": "/ollama/key/s3cr3t"}))
    assert redact_text("/api/chat?keyboard=1") == "/api/chat?keyboard=1"
