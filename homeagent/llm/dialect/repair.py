"""JSON repair for what models write inside an `[ACTION]` block (seed 000 §4.3).

The layers, cheapest first, each tried only when the one before fails:

1. strict `json.loads` of the block with code fences and prose around the object removed;
2. our own pass for what `json-repair` cannot know: full-width punctuation and Chinese
   quotes used as JSON syntax (translated only outside string values, so `，` inside a
   Chinese value stays), trailing commas, and strings, objects or arrays left open;
3. `json_repair` (a well-kept lenient parser) on that output: unquoted keys, single
   quotes, Python literals, comments, missing commas and the like.

A block may also name the action outside the object, as `create_task {"content": "x"}`
or `create_task(content="x")`; `split_named_call` recognises both forms.
"""

from __future__ import annotations

import json
import re
from typing import Any

import json_repair

_FENCE_RE = re.compile(r"```[a-zA-Z]*\s*|\s*```")
_NAME_PREFIX_RE = re.compile(r"^\s*(?:name\s*[:=]\s*)?[\"'“]?([a-z][a-z0-9_]{1,63})[\"'”]?\s*[:：]?\s*(?=[{｛(（])", re.I)
_KWARG_RE = re.compile(
    r"""([A-Za-z_][A-Za-z0-9_]*)\s*[=:：]\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|“[^”]*”|[^,，)）]+)"""
)
# Full-width punctuation small models write in place of JSON syntax.
_CJK_PUNCT = {"，": ",", "：": ":", "｛": "{", "｝": "}", "［": "[", "］": "]", "、": ","}
_CJK_QUOTES = {"“": "”", "‘": "’", "「": "」", "『": "』", "”": "”"}


class RepairError(ValueError):
    """The text holds no JSON object that any repair layer could recover."""


def loads_lenient(raw: str) -> Any:
    """Parse `raw` as JSON, repairing it if needed; raises RepairError when hopeless."""
    body = strip_wrapping(raw)
    if not body:
        raise RepairError("empty block")
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        pass
    own = cjk_repair(body)
    try:
        return json.loads(own)
    except json.JSONDecodeError:
        pass
    if not any(ch in own for ch in "{[") and ":" not in own:
        # json-repair turns any prose into a string; that is not an action.
        raise RepairError("no JSON object in the block")
    try:
        value = json_repair.loads(own, skip_json_loads=True)
    except (ValueError, RecursionError) as err:  # pragma: no cover - the library is lenient
        raise RepairError(str(err)) from err
    if value in ("", None, [], {}) and own.strip() not in ("{}", "[]"):
        raise RepairError("no JSON object in the block")
    return value


def strip_wrapping(raw: str) -> str:
    """Drop code fences and any prose before the first `{` / after the last `}`."""
    text = _FENCE_RE.sub("\n", raw).strip()
    start = min((i for i in (text.find("{"), text.find("｛")) if i >= 0), default=-1)
    if start > 0 and not _NAME_PREFIX_RE.match(text):
        text = text[start:]
    end = max(text.rfind("}"), text.rfind("｝"))
    if end >= 0 and text[end + 1 :].strip() and start >= 0:
        tail = text[end + 1 :]
        # Prose after the object, unless the tail is the rest of an unterminated value.
        if not tail.lstrip().startswith((",", "}", "]", '"')):
            text = text[: end + 1]
    return text.strip()


def split_named_call(raw: str) -> tuple[str | None, str]:
    """`create_task {...}` → ("create_task", "{...}"); `f(a="x")` → ("f", '{"a": "x"}')."""
    text = strip_wrapping(raw)
    match = _NAME_PREFIX_RE.match(text)
    if not match:
        return None, text
    name, rest = match.group(1), text[match.end() :].strip()
    if rest[:1] in "(（":
        inner = rest[1:].rstrip()
        inner = inner[:-1] if inner.endswith((")", "）")) else inner
        if inner.lstrip().startswith(("{", "｛")):
            return name, inner
        args: dict[str, Any] = {}
        for key, value in _KWARG_RE.findall(inner):
            args[key] = _literal(value.strip())
        return name, json.dumps(args, ensure_ascii=False)
    return name, rest


def _literal(value: str) -> Any:
    if value[:1] in "\"'“" and len(value) >= 2:
        return value[1:-1]
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        lowered = value.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        if lowered in ("none", "null"):
            return None
        return value


def cjk_repair(text: str) -> str:
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
            if ch == quote_end or (quote_end != '"' and ch == '"' and _ends_value(text, i)):
                out.append('"')
                quote_end = None
            elif ch == "\n" and quote_end == '"':
                out.append("\\n")
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


def _ends_value(text: str, i: int) -> bool:
    """A straight quote closing a string opened by a curly one (mixed-quote models)."""
    rest = text[i + 1 :].lstrip()
    return not rest or rest[0] in ",:}]，：｝"


def _drop_trailing_comma(out: list[str]) -> None:
    j = len(out) - 1
    while j >= 0 and out[j].isspace():
        j -= 1
    if j >= 0 and out[j] == ",":
        del out[j]
