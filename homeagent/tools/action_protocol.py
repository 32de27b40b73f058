"""The `[ACTION]` block protocol for models without native function calling.

The model writes, at the end of its reply, one block per call:

    [ACTION]
    {"name": "current_time", "timezone": "Asia/Shanghai"}
    [/ACTION]

Arguments may also be nested as `{"name": ..., "arguments": {...}}`. `ActionStreamFilter`
hides blocks from the text streamed to the user as it is generated; `extract_actions`
parses the finished reply into tool calls plus the natural-language remainder.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass

from homeagent.llm.base import ToolCall

OPEN, CLOSE = "[ACTION]", "[/ACTION]"
# A block ends at its closing tag, at the next opening tag (the model forgot to close
# it) or at the end of the reply.
_BLOCK_RE = re.compile(r"\[ACTION\](.*?)(?:\[/ACTION\]|(?=\[ACTION\])|\Z)", re.S)
_FENCE_RE = re.compile(r"^```(?:json)?\s*|\s*```$")
# Full-width punctuation small models write in place of JSON syntax. Only translated
# outside string values, so Chinese text inside a value is kept exactly.
_CJK_PUNCT = {"，": ",", "：": ":", "｛": "{", "｝": "}", "［": "[", "］": "]"}
_CJK_QUOTES = {"“": "”", "‘": "’", "「": "」"}
_ids = itertools.count(1)


@dataclass(frozen=True)
class ParsedReply:
    text: str
    calls: tuple[ToolCall, ...]
    errors: tuple[str, ...]


def _loads_lenient(raw: str) -> object:
    body = _FENCE_RE.sub("", raw.strip())
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        return json.loads(_repair(body))


def _repair(text: str) -> str:
    """Fix what small models get wrong in JSON: full-width punctuation and quotes,
    trailing commas, and strings, objects or arrays left open at the end."""
    out: list[str] = []
    closers: list[str] = []  # brackets still open, innermost last
    quote_end: str | None = None  # the character that ends the current string
    i = 0
    while i < len(text):
        ch = text[i]
        if quote_end is not None:
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i : i + 2])
                i += 2
                continue
            if ch == quote_end:
                out.append('"')
                quote_end = None
            else:
                out.append('\\"' if ch == '"' else ch)
            i += 1
            continue
        ch = _CJK_PUNCT.get(ch, ch)
        if ch == '"' or ch in _CJK_QUOTES:
            quote_end = _CJK_QUOTES.get(ch, '"')
            out.append('"')
        elif ch in "{[":
            closers.append("}" if ch == "{" else "]")
            out.append(ch)
        elif ch in "}]":
            _drop_trailing_comma(out)
            if closers:
                closers.pop()
            out.append(ch)
        else:
            out.append(ch)
        i += 1
    if quote_end is not None:
        out.append('"')
    for closer in reversed(closers):
        _drop_trailing_comma(out)
        out.append(closer)
    return "".join(out)


def _drop_trailing_comma(out: list[str]) -> None:
    j = len(out) - 1
    while j >= 0 and out[j].isspace():
        j -= 1
    if j >= 0 and out[j] == ",":
        del out[j]


def extract_actions(reply: str) -> ParsedReply:
    calls: list[ToolCall] = []
    errors: list[str] = []
    for match in _BLOCK_RE.finditer(reply):
        raw = match.group(1)
        try:
            obj = _loads_lenient(raw)
        except json.JSONDecodeError as err:
            errors.append(f"unparsable [ACTION] block ({err.msg}): {raw.strip()[:120]}")
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
            errors.append(f"[ACTION] block without a \"name\": {raw.strip()[:120]}")
            continue
        name = obj.pop("name")
        args = obj.pop("arguments", None)
        if isinstance(args, str):
            # OpenAI style: the arguments object encoded as a JSON string.
            try:
                args = _loads_lenient(args) if args.strip() else {}
            except json.JSONDecodeError:
                pass
        if not isinstance(args, dict):
            # Not an arguments object: keep it as a plain argument so the schema check
            # reports it instead of it vanishing.
            args = obj if args is None else {**obj, "arguments": args}
        calls.append(
            ToolCall(f"action_{next(_ids)}", name, json.dumps(args, ensure_ascii=False))
        )
    text = _BLOCK_RE.sub("", reply)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return ParsedReply(text, tuple(calls), tuple(errors))


class ActionStreamFilter:
    """Passes streamed text through, holding back anything that may be an [ACTION] block."""

    def __init__(self) -> None:
        self._buf = ""
        self._inside = False

    def feed(self, text: str) -> str:
        self._buf += text
        out: list[str] = []
        while self._buf:
            if self._inside:
                end = self._buf.find(CLOSE)
                if end < 0:
                    # Keep only what could still be the start of the closing tag.
                    self._buf = self._buf[-(len(CLOSE) - 1):]
                    break
                self._buf = self._buf[end + len(CLOSE):]
                self._inside = False
                continue
            start = self._buf.find(OPEN)
            if start >= 0:
                out.append(self._buf[:start])
                self._buf = self._buf[start + len(OPEN):]
                self._inside = True
                continue
            keep = _partial_suffix(self._buf, OPEN)
            out.append(self._buf[: len(self._buf) - keep])
            self._buf = self._buf[len(self._buf) - keep:]
            break
        return "".join(out)

    def finish(self) -> str:
        rest = "" if self._inside else self._buf
        self._buf, self._inside = "", False
        return rest


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `tag`."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


def render_catalog(defs: list[tuple[str, str, dict]]) -> str:
    """The tool catalog as prompt text, for models that read it instead of a tools list."""
    lines = [
        "Available actions (call one by writing a block at the end of your reply):",
        f'{OPEN}\n{{"name": "<action>", "<argument>": "<value>"}}\n{CLOSE}',
        "One action per block. Only use actions listed here.",
    ]
    for name, description, params in defs:
        props = params.get("properties", {}) if isinstance(params, dict) else {}
        arg_text = ", ".join(
            f"{k}: {v.get('type', 'any')}" for k, v in props.items() if isinstance(v, dict)
        )
        lines.append(f"- {name}({arg_text}): {description}")
    return "\n".join(lines)
