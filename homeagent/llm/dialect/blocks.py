"""The `[ACTION]` block itself: parsing a reply, rendering a call and its results, and
hiding protocol text from the stream.

The model writes, at the end of its reply, one block per call:

    [ACTION]
    {"name": "current_time", "timezone": "Asia/Shanghai"}
    [/ACTION]

Arguments may also be nested as `{"name": ..., "arguments": {...}}`. `ActionStreamFilter`
hides blocks from the text streamed to the user as it is generated; `extract_actions`
parses the finished reply (JSON repair in `repair.py`) into tool calls plus the
natural-language remainder.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from homeagent.llm.base import ToolCall
from homeagent.llm.dialect.repair import RepairError, loads_lenient, split_named_call

OPEN, CLOSE = "[ACTION]", "[/ACTION]"
RESULTS_OPEN, RESULTS_CLOSE = "[RESULTS]", "[/RESULTS]"
RESULTS_NOTE = "Now answer me using these results."
# Protocol text that never reaches the user: (opening, closing) of a hidden span; an
# empty closing hides just the opening text. A small model sometimes echoes the results
# message instead of answering; the echo is not an answer.
_HIDDEN = ((OPEN, CLOSE), (RESULTS_OPEN, RESULTS_CLOSE), (RESULTS_NOTE, ""), (CLOSE, ""), (RESULTS_CLOSE, ""))
# A block ends at its closing tag, at the next opening tag (the model forgot to close
# it) or at the end of the reply.
_BLOCK_RE = re.compile(r"\[ACTION\](.*?)(?:\[/ACTION\]|(?=\[ACTION\])|\Z)", re.S)
_NESTED_KEYS = ("parameters", "args", "params")


@dataclass(frozen=True)
class ParsedReply:
    text: str
    calls: tuple[ToolCall, ...]
    errors: tuple[str, ...]


def extract_actions(reply: str) -> ParsedReply:
    calls: list[ToolCall] = []
    errors: list[str] = []
    for match in _BLOCK_RE.finditer(reply):
        raw = match.group(1)
        prefix_name, body = split_named_call(raw)
        try:
            obj = loads_lenient(body)
        except RepairError as err:
            errors.append(f"unparsable [ACTION] block ({err}): {raw.strip()[:120]}")
            continue
        if isinstance(obj, dict) and "name" not in obj and prefix_name:
            obj = {"name": prefix_name, **obj}
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
            errors.append(f"[ACTION] block without a \"name\": {raw.strip()[:120]}")
            continue
        name = obj.pop("name").strip()
        args = obj.pop("arguments", None)
        if args is None:
            # Other spellings of the nested form, when they hold an object.
            key = next((k for k in _NESTED_KEYS if isinstance(obj.get(k), dict)), None)
            args = obj.pop(key) if key else None
        if isinstance(args, str):
            # OpenAI style: the arguments object encoded as a JSON string.
            try:
                args = loads_lenient(args) if args.strip() else {}
            except RepairError:
                pass
        if not isinstance(args, dict):
            # Not an arguments object: keep it as a plain argument so the schema check
            # reports it instead of it vanishing.
            args = obj if args is None else {**obj, "arguments": args}
        calls.append(
            ToolCall(f"action_{uuid.uuid4().hex[:12]}", name, json.dumps(args, ensure_ascii=False))
        )
    text = _BLOCK_RE.sub("", reply)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return ParsedReply(text, tuple(calls), tuple(errors))


_PROTOCOL_TAG_RE = re.compile(r"\[(/?)(ACTION|RESULTS)\]", re.IGNORECASE)


def quote_protocol(text: str) -> str:
    """Tool output with the dialect's tags defused: text a tool returned is data, and a
    block inside it must not read to the model as a block it may copy."""
    return _PROTOCOL_TAG_RE.sub(lambda m: f"[{m.group(1)}quoted {m.group(2).lower()}]", text)


def render_results(lines: Iterable[str]) -> str:
    """The message that gives a model without native tools its calls' results."""
    body = "\n".join(lines)
    return f"{RESULTS_OPEN}\n{body}\n{RESULTS_CLOSE}\n{RESULTS_NOTE}"


class ActionStreamFilter:
    """Passes streamed text through, holding back anything that may be protocol text:
    [ACTION] blocks, and an echoed [RESULTS] block or results note."""

    def __init__(self) -> None:
        self._buf = ""
        self._close: str | None = None  # inside a hidden span until this text

    def feed(self, text: str) -> str:
        self._buf += text
        out: list[str] = []
        while self._buf:
            if self._close is not None:
                end = self._buf.find(self._close)
                if end < 0:
                    # Keep only what could still be the start of the closing text.
                    self._buf = self._buf[-(len(self._close) - 1):]
                    break
                self._buf = self._buf[end + len(self._close):]
                self._close = None
                continue
            hits = [(at, opening, closing) for opening, closing in _HIDDEN if (at := self._buf.find(opening)) >= 0]
            if hits:
                at, opening, closing = min(hits)
                out.append(self._buf[:at])
                self._buf = self._buf[at + len(opening):]
                self._close = closing or None
                continue
            keep = max(_partial_suffix(self._buf, opening) for opening, _ in _HIDDEN)
            out.append(self._buf[: len(self._buf) - keep])
            self._buf = self._buf[len(self._buf) - keep:]
            break
        return "".join(out)

    def finish(self) -> str:
        rest = "" if self._close is not None else self._buf
        self._buf, self._close = "", None
        return rest


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `tag`."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0



def render_block(name: str, arguments: dict) -> str:
    # A tool with its own "name" argument uses the nested form, so the two never collide.
    body = {"name": name, "arguments": arguments} if "name" in arguments else {"name": name, **arguments}
    return f"{OPEN}{json.dumps(body, ensure_ascii=False)}{CLOSE}"
