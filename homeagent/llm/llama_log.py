"""llama.cpp's messages in the daemon's log, and a quiet model load that silences nothing else.

llama-cpp-python quiets a load (`verbose=False`) by pointing file descriptors 1 and 2 at
/dev/null for as long as the load runs (`suppress_stdout_stderr`). Those descriptors are
the whole process's: every other thread's output and log lines written meanwhile are lost,
and `homeagent serve` loads its model while it answers `/healthz` and logs its start
(abetlen/llama-cpp-python#1874). llama.cpp itself writes nothing to them directly: all it
says passes through its log callback. So the redirect is switched off and the callback is
ours: warnings and errors go to the `homeagent.llm.llama_cpp` logger, the two thousand
lines of load detail are dropped at the callback's first test.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from homeagent.log import get_logger

log = get_logger("homeagent.llm.llama_cpp")

# ggml_log_level, as ggml.h numbers it in the llama.cpp this package builds
_WARN, _ERROR, _CONT = 3, 4, 5

_lock = threading.Lock()
_installed: list[Any] = []  # the ctypes callback: llama.cpp holds only its address
_pending: dict[str, Any] = {"level": 0, "text": ""}


class _Unredirected:
    """Stands in for llama-cpp-python's `suppress_stdout_stderr`: redirects nothing."""

    def __init__(self, disable: bool = True) -> None:
        self.disable = disable

    def __enter__(self) -> _Unredirected:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None


def _emit(level: int, text: str) -> None:
    line = text.strip()
    if line:
        (log.error if level >= _ERROR else log.warning)("llm.engine.message", text=line)


def _on_message(level: int, text: bytes | None, _user_data: Any) -> None:
    """One call per fragment; a message may come in several (`_CONT` carries on the last)."""
    if level == _CONT:
        level = _pending["level"]
    if level < _WARN:
        return
    chunk = (text or b"").decode("utf-8", "replace")
    with _lock:
        if level != _pending["level"] and _pending["text"]:
            _emit(_pending["level"], _pending["text"])
            _pending["text"] = ""
        _pending["level"] = level
        _pending["text"] += chunk
        if _pending["text"].endswith("\n"):
            _emit(level, _pending["text"])
            _pending["text"] = ""


def install() -> None:
    """Before the first `Llama(...)`; once per process (later calls do nothing)."""
    with _lock:
        if _installed:
            return
        import llama_cpp
        import llama_cpp._internals
        import llama_cpp.llama
        import llama_cpp.llama_chat_format
        from llama_cpp import llama_cpp as native

        for module in (llama_cpp.llama, llama_cpp._internals, llama_cpp.llama_chat_format):
            module.suppress_stdout_stderr = _Unredirected  # type: ignore[attr-defined]

        def callback(level: int, text: bytes | None, user_data: Any) -> None:
            _on_message(level, text, user_data)

        native_callback = native.llama_log_callback(callback)
        native.llama_log_set(native_callback, ctypes.c_void_p(0))
        _installed.append(native_callback)
