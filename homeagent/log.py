"""Structured logging: readable console lines on a TTY, JSON lines otherwise.

Every record passes through `redact_secrets` before rendering, so API keys, bearer
tokens and Authorization headers never reach the console, journald or a file, whichever
key or string they hide in.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, TextIO


def _import_structlog() -> Any:
    """structlog, imported without rich: it imports rich (some 60 ms of a start) for its
    console renderer's tracebacks, which ours never uses: a traceback reaches the
    renderer as text already (`format_exc_info`, then `redact_secrets`)."""
    hide = "rich" not in sys.modules
    if hide:
        sys.modules["rich"] = None  # type: ignore[assignment]  # seen by `import rich` as missing
    try:
        import structlog
    finally:
        if hide:
            del sys.modules["rich"]
    return structlog


if TYPE_CHECKING:
    import structlog
else:
    structlog = _import_structlog()

REDACTED = "[REDACTED]"

# Key names that hold a secret: `token`, `api_token`, `api_key`, `password`, ... but not
# counters such as `tokens_in` or `prefix_tokens`.
_SECRET_KEY_RE = re.compile(
    r"(^|[_-])(api[_-]?key|apikey|authorization|auth|token|secret|password|passwd"
    r"|credentials?|cookie|bearer)$",
    re.I,
)
_AUTH_HEADER_RE = re.compile(
    r"(?i)(authorization[\"']?\s*[=:]\s*[\"']?)(?:(?:basic|bearer|token|digest)\s+)?[^\s,;&\"']+"
)
_SECRET_VALUE_RES = (
    re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{4,}"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|token|secret|password)\s*[=:]\s*)[^\s,;&\"']{4,}"),
)

_PATH_KEY_RE = re.compile(r"(/key/)[^/\s\"'?#]+")


def redact_text(text: str) -> str:
    """Mask secrets that appear inside free text (error messages, URLs, headers)."""
    # Any Authorization header value, whatever its scheme (Basic credentials too).
    text = _AUTH_HEADER_RE.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    text = _SECRET_VALUE_RES[0].sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _SECRET_VALUE_RES[1].sub(REDACTED, text)
    text = _SECRET_VALUE_RES[2].sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    # A token carried in a URL path (`/ollama/key/<token>/api/chat`).
    return _PATH_KEY_RE.sub(lambda m: f"{m.group(1)}{REDACTED}", text)


def redact(value: Any, key: str = "") -> Any:
    """Return `value` with every secret masked; mappings are walked by key name."""
    if key and _SECRET_KEY_RE.search(key) and value not in (None, "", 0, False):
        return REDACTED
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact(v) for v in value)
    return value


def redact_secrets(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> Any:
    for key in list(event_dict):
        event_dict[key] = redact(event_dict[key], key if key != "event" else "")
    return event_dict


def configure_logging(
    level: str = "info", fmt: str = "auto", stream: TextIO | None = None
) -> None:
    """Set up structlog (and stdlib logging through it). Logs always go to stderr."""
    stream = stream or sys.stderr
    use_console = fmt == "console" or (fmt == "auto" and stream.isatty())
    renderer: Any = (
        structlog.dev.ConsoleRenderer(colors=stream.isatty())
        if use_console
        else structlog.processors.JSONRenderer(ensure_ascii=False)
    )
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    # Redaction runs after format_exc_info so a secret inside an exception message or
    # traceback (an upstream error quoting a header) is masked too.
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, redact_secrets, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )
    # Libraries that use stdlib logging (aiohttp) render through the same pipeline.
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                redact_secrets,
                renderer,
            ],
            foreign_pre_chain=[*shared[1:], structlog.stdlib.add_logger_name],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING if level != "debug" else logging.DEBUG)


def get_logger(name: str = "homeagent") -> Any:
    return structlog.get_logger(name)


def bind_keys(**keys: Any) -> None:
    """Keys every record carries in this context from now on (a turn's `turn_id`)."""
    structlog.contextvars.bind_contextvars(**keys)


def unbind_keys(*names: str) -> None:
    structlog.contextvars.unbind_contextvars(*names)
