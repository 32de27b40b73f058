"""homeagent.log: JSON and console rendering, secrets redacted on every path."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from homeagent.log import REDACTED, configure_logging, get_logger, redact, redact_text

SECRETS = (
    "sk-live0123456789abcdef",
    "abc123def456ghi",
    "xyzBearerToken987",
    "abcdef123",
    "secretvalue",
)


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """configure_logging replaces the root handlers; put the previous ones back."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def json_lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def assert_no_secret(output: str) -> None:
    for secret in SECRETS:
        assert secret not in output, f"{secret!r} leaked: {output}"


@pytest.mark.usefixtures("restore_logging")
def test_json_event_redacts_secrets_and_keeps_counters() -> None:
    stream = io.StringIO()
    configure_logging("info", "json", stream)
    get_logger().info(
        "provider.request.failed",
        api_key="sk-live0123456789abcdef",
        token="abc123def456ghi",
        headers={"Authorization": "Bearer xyzBearerToken987", "Accept": "text/event-stream"},
        error="upstream refused Bearer abcdef123 (api_key=secretvalue)",
        tokens_in=12,
        prefix_tokens=545,
        max_tokens=256,
    )
    output = stream.getvalue()
    assert_no_secret(output)
    (line,) = json_lines(stream)
    assert line["event"] == "provider.request.failed"
    assert line["level"] == "info"
    assert line["api_key"] == REDACTED
    assert line["token"] == REDACTED
    assert line["headers"] == {"Authorization": REDACTED, "Accept": "text/event-stream"}
    assert "upstream refused" in line["error"]
    assert line["tokens_in"] == 12
    assert line["prefix_tokens"] == 545
    assert line["max_tokens"] == 256
    assert "timestamp" in line


@pytest.mark.usefixtures("restore_logging")
def test_json_keeps_chinese_readable() -> None:
    stream = io.StringIO()
    configure_logging("info", "json", stream)
    get_logger().info("turn.finished", text="你好，世界")
    assert "你好，世界" in stream.getvalue()
    assert json_lines(stream)[0]["text"] == "你好，世界"


@pytest.mark.usefixtures("restore_logging")
def test_level_filters_structlog_events() -> None:
    stream = io.StringIO()
    configure_logging("warning", "json", stream)
    log = get_logger()
    log.info("dropped.event")
    log.debug("dropped.too")
    log.warning("kept.event")
    assert [line["event"] for line in json_lines(stream)] == ["kept.event"]


@pytest.mark.usefixtures("restore_logging")
def test_stdlib_records_are_rendered_and_redacted() -> None:
    stream = io.StringIO()
    configure_logging("info", "json", stream)
    logging.getLogger("aiohttp.access").warning(
        "GET /v1/models?api_key=secretvalue Authorization: Bearer abcdef123 key %s",
        "sk-live0123456789abcdef",
    )
    assert_no_secret(stream.getvalue())
    (line,) = json_lines(stream)
    assert line["logger"] == "aiohttp.access"
    assert line["level"] == "warning"
    assert line["event"].startswith("GET /v1/models?api_key=")


@pytest.mark.usefixtures("restore_logging")
def test_structlog_exception_traceback_is_redacted() -> None:
    stream = io.StringIO()
    configure_logging("info", "json", stream)
    try:
        raise RuntimeError("401 from upstream: Authorization: Bearer abcdef123 api_key=secretvalue")
    except RuntimeError:
        get_logger().exception("provider.crashed")
    assert_no_secret(stream.getvalue())
    (line,) = json_lines(stream)
    assert "RuntimeError: 401 from upstream" in line["exception"]


@pytest.mark.usefixtures("restore_logging")
def test_stdlib_exception_traceback_is_redacted() -> None:
    stream = io.StringIO()
    configure_logging("info", "json", stream)
    try:
        raise ValueError("token=abc123def456ghi rejected")
    except ValueError:
        logging.getLogger("aiohttp.server").exception("Error handling request")
    assert_no_secret(stream.getvalue())
    (line,) = json_lines(stream)
    assert "ValueError" in line["exception"]


@pytest.mark.usefixtures("restore_logging")
def test_stdlib_info_is_dropped_at_info_level() -> None:
    # Library chatter (aiohttp access lines at INFO) stays out unless debugging.
    stream = io.StringIO()
    configure_logging("info", "json", stream)
    logging.getLogger("aiohttp.access").info("GET / 200")
    assert stream.getvalue() == ""
    configure_logging("debug", "json", stream)
    logging.getLogger("aiohttp.access").info("GET / 200")
    assert json_lines(stream)[0]["event"] == "GET / 200"


@pytest.mark.usefixtures("restore_logging")
def test_console_format_on_non_tty_stream() -> None:
    stream = io.StringIO()
    assert not stream.isatty()
    configure_logging("info", "console", stream)
    get_logger().info("daemon.started", listen="127.0.0.1:8080", api_key="sk-live0123456789abcdef")
    output = stream.getvalue()
    assert_no_secret(output)
    assert "daemon.started" in output
    assert "listen=127.0.0.1:8080" in output
    assert f"api_key={REDACTED}" in output
    assert "\x1b[" not in output  # no colour codes on a non-TTY
    with pytest.raises(json.JSONDecodeError):
        json.loads(output)


@pytest.mark.usefixtures("restore_logging")
def test_auto_format_on_non_tty_is_json() -> None:
    stream = io.StringIO()
    configure_logging("info", "auto", stream)
    get_logger().info("x.y", n=1)
    (line,) = json_lines(stream)
    assert (line["event"], line["n"]) == ("x.y", 1)


@pytest.mark.parametrize(
    "key",
    ["api_key", "apikey", "API-KEY", "x-api-key", "access_token", "token", "password",
     "client_secret", "Authorization", "cookie", "credentials"],
)
def test_secret_key_names_are_masked(key: str) -> None:
    assert redact({key: "s3cr3t-value"}) == {key: REDACTED}


@pytest.mark.parametrize(
    "key", ["tokens_in", "tokens_out", "prefix_tokens", "max_tokens", "cached_tokens", "tokenizer"]
)
def test_counter_key_names_are_kept(key: str) -> None:
    assert redact({key: 545}) == {key: 545}


def test_redact_walks_nested_structures() -> None:
    value = {"outer": [{"password": "hunter2"}, "Bearer abcdef123"], "ok": ("plain",)}
    assert redact(value) == {"outer": [{"password": REDACTED}, f"Bearer {REDACTED}"],
                             "ok": ("plain",)}


def test_empty_secret_values_are_left_alone() -> None:
    # An unset key is shown as unset, which helps debugging without leaking anything.
    assert redact({"api_key": "", "token": None}) == {"api_key": "", "token": None}


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Authorization: Bearer abcdef123", "abcdef123"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
        ('{"Authorization": "Token t0k3nvalue"}', "t0k3nvalue"),
        ("https://api.x/v1?api_key=secretvalue&q=1", "secretvalue"),
        ("password: hunter22", "hunter22"),
        ("key sk-live0123456789abcdef used", "sk-live0123456789abcdef"),
    ],
)
def test_redact_text_masks_secrets_in_free_text(text: str, secret: str) -> None:
    masked = redact_text(text)
    assert secret not in masked
    assert REDACTED in masked


def test_redact_text_keeps_ordinary_text() -> None:
    text = "tokens_in=12 prefix_tokens=545 took 35 ms; 你好"
    assert redact_text(text) == text
