"""The `[ACTION]` block protocol for models without native function calling.

The model writes, at the end of its reply, one block per call:

    [ACTION]
    {"name": "current_time", "timezone": "Asia/Shanghai"}
    [/ACTION]

Arguments may also be nested as `{"name": ..., "arguments": {...}}`. `ActionStreamFilter`
hides blocks from the text streamed to the user as it is generated; `extract_actions`
parses the finished reply (JSON repair in `homeagent.tools.repair`) into tool calls plus
the natural-language remainder.

The prompt text for the protocol is generated from the registry: `render_protocol` (how
to call, and the example dialogues from the tools' featured examples: the stable, cached
part) and `render_offered` (the actions offered for this message). For the local engine,
`action_grammar` builds a GBNF grammar from the offered actions' schemas so every block
the model writes parses, and `copy_constrained` limits its string values to the user's
own words.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from homeagent.llm.base import ToolCall
from homeagent.text import CJK_CLASS, tokenize
from homeagent.tools.registry import ToolSpec
from homeagent.tools.repair import RepairError, loads_lenient, split_named_call
from homeagent.tools.selection import featured_examples, parse_example

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
_ids = itertools.count(1)
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
            ToolCall(f"action_{next(_ids)}", name, json.dumps(args, ensure_ascii=False))
        )
    text = _BLOCK_RE.sub("", reply)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return ParsedReply(text, tuple(calls), tuple(errors))


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


# -- prompt text for the block protocol, generated from the registry ---------------------

INSTRUCTIONS = (
    "To record, change or look up anything, call an action by writing a block after your words:\n"
    f'{OPEN}{{"name": "<action>", "<argument>": "<value>"}}{CLOSE}\n'
    "One action per block; several blocks for several actions. Use only the actions listed "
    "for this message. Copy dates and times as the user said them (明天下午3点, next Friday). "
    "When the results come back, answer the user briefly in their language.\n"
    "需要记录、修改或查询时，在回复后写 [ACTION] 块调用操作；日期照抄用户的说法。"
)


def _arg_hint(name: str, prop: object, required: bool) -> str:
    if not isinstance(prop, dict):
        return name
    kind = prop.get("type")
    if "enum" in prop:
        hint = "|".join(str(v) for v in prop["enum"])
    elif kind == "array":
        hint = "[…]"
    elif kind == "boolean":
        hint = "true|false"
    elif kind in ("integer", "number") or (isinstance(kind, list) and "number" in kind):
        hint = "number"
    else:
        hint = ""
    text = name if required else f"{name}?"
    return f"{text}: {hint}" if hint else text


def render_action_catalog(specs: Iterable[ToolSpec], *, examples: bool = True) -> str:
    """The offered actions, one line each, `name(required, optional?: hint) — description`,
    optionally followed by the action's first example call."""
    lines = []
    for spec in specs:
        params = dict(spec.parameters)
        props = params.get("properties", {}) or {}
        required = list(params.get("required", []))
        ordered = required + [k for k in props if k not in required]
        args = ", ".join(_arg_hint(k, props.get(k), k in required) for k in ordered)
        lines.append(f"- {spec.name}({args}) — {spec.description}")
        if examples and spec.examples:
            example = parse_example(spec.examples[0])
            if example is not None:
                lines.append(f"  e.g. {example.text} → {render_block(example.name, example.arguments)}")
    return "\n".join(lines)


def render_block(name: str, arguments: dict) -> str:
    # A tool with its own "name" argument uses the nested form, so the two never collide.
    body = {"name": name, "arguments": arguments} if "name" in arguments else {"name": name, **arguments}
    return f"{OPEN}{json.dumps(body, ensure_ascii=False)}{CLOSE}"


def render_example_dialogues(specs: Iterable[ToolSpec]) -> str:
    """The prompt's example dialogues (seed 000 §6.2) from the tools' featured examples."""
    turns = [
        f"User: {e.text}\nAssistant: {render_block(e.name, e.arguments)}" for e in featured_examples(specs)
    ]
    return "Examples:\n" + "\n".join(turns) if turns else ""


# -- grammar-constrained decoding for the local engine -----------------------------------

GrammarMode = Literal["action", "action_or_text", "text_then_actions"]


def call_schema(specs: Iterable[ToolSpec]) -> dict:
    """One JSON Schema accepting exactly the calls of `specs`: `name` first, then arguments."""
    alternatives = []
    for spec in specs:
        params = dict(spec.parameters)
        own = dict(params.get("properties", {}))
        if "name" in own:
            # Nested form for a tool whose arguments include "name" (see render_block).
            args = {**params, "type": "object"}
            props: dict = {"name": {"const": spec.name}, "arguments": args}
            required = ["name", "arguments"]
        else:
            props = {"name": {"const": spec.name}, **own}
            required = ["name", *params.get("required", [])]
        alternatives.append({
            "type": "object", "properties": props, "required": required, "additionalProperties": False,
        })
    return {"oneOf": alternatives}


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength")


def _without_bounds(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_bounds(v) for k, v in value.items() if k not in _BOUNDS}
    if isinstance(value, list):
        return [_without_bounds(v) for v in value]
    return value


def action_grammar(
    specs: Sequence[ToolSpec], *, mode: GrammarMode = "action", max_blocks: int = 1
) -> str:
    """A GBNF grammar for a reply that may carry [ACTION] blocks for `specs` only.

    `action`: one to `max_blocks` blocks and nothing else (the caller has decided that the
    message asks for an action). `action_or_text`: either blocks or plain text (which
    cannot contain "["), decided at the first token. `text_then_actions`: text first, then
    up to `max_blocks` blocks. Every block the model writes parses and names a real action
    with arguments of the right shape.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    if not specs:
        return 'root ::= [^\\[]*\n'
    # Bounds stay with the validator: the grammar fixes shape, and shared `integer`/`number`
    # rules are what copy_constrained can narrow to the user's numbers.
    schema = _without_bounds(call_schema(specs))
    body = json_schema_to_gbnf(json.dumps(schema, ensure_ascii=False), prop_order=["name"])
    body = re.sub(r"^root ::=", "call ::=", body, flags=re.M)
    more = " ".join(["(ws block)?"] * (max_blocks - 1))
    head = {
        "action": f"root ::= block {more} ws",
        "action_or_text": f"root ::= block {more} ws | prose",
        "text_then_actions": f"root ::= prose (block {more})? ws",
    }[mode]
    return "\n".join([
        head,
        "prose ::= [^\\[]*",
        'block ::= "[ACTION]" ws call ws "[/ACTION]"',
        "ws ::= [ \\n]?",
        body,
    ])


def render_protocol(specs: Iterable[ToolSpec]) -> str:
    """The stable part of the prompt for the block protocol: how to call, and the example
    dialogues. It does not depend on the message, so a local engine caches it."""
    dialogues = render_example_dialogues(specs)
    return INSTRUCTIONS + ("\n\n" + dialogues if dialogues else "")


def render_offered(selected: Sequence[ToolSpec], *, examples: bool = True) -> str:
    """The per-message part: the actions offered for this utterance (after the cached
    prefix); empty when none are, so there is nothing for a small model to repeat."""
    if not selected:
        return ""
    return "## Actions for this message\n" + render_action_catalog(selected, examples=examples)


_UNIT_RE = re.compile(rf"{CJK_CLASS}|[A-Za-z0-9][A-Za-z0-9'._:/-]*|[^\s]")
_EDGE_RE = re.compile(r"^[\W_]|[\W_]$")


_BRACKETED_RE = re.compile(r"\([^)]*\)|（[^）]*）")
# Words that carry no value of their own in a request ("delete the note", "帮我把…").
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "my", "me", "to", "of", "for", "in", "on", "at", "it", "this", "that", "please",
    "我", "的", "了", "一下", "帮我", "请", "把", "给",
})


def instruction_terms(specs: Iterable[ToolSpec]) -> frozenset[str]:
    """The words that name what the actions do (their names and descriptions, less the
    examples in brackets or after a colon, which are values: "mode: home, away, sleep")
    and function words: a value made of nothing else is the request, not an argument."""
    terms = set(_FUNCTION_WORDS)
    for spec in specs:
        halves = _BRACKETED_RE.sub(" ", spec.description).split("/")
        description = " ".join(re.split(r"[:：]", half, maxsplit=1)[0] for half in halves)
        terms.update(tokenize(spec.name.replace("_", " ") + " " + description))
    return frozenset(terms)


def utterance_spans(text: str, max_units: int = 12, exclude: frozenset[str] = frozenset()) -> list[str]:
    """Contiguous pieces of the user's words (CJK characters and Latin words as units),
    the values a small model may copy into string arguments; pieces whose every term is
    in `exclude` (see `instruction_terms`) are left out."""
    units = [(m.start(), m.end()) for m in _UNIT_RE.finditer(text)]
    spans: dict[str, None] = {}
    for i in range(len(units)):
        for j in range(i, min(len(units), i + max_units)):
            piece = text[units[i][0] : units[j][1]]
            if piece.strip() and not _EDGE_RE.search(piece) and "\n" not in piece:
                terms = tokenize(piece)
                if exclude and terms and set(terms) <= exclude:
                    continue
                spans.setdefault(piece, None)
    return list(spans)


def _gbnf_literal(value: str) -> str:
    # The GBNF literal of the JSON-encoded string, so the model's output stays valid JSON.
    encoded = json.dumps(value, ensure_ascii=False)
    return '"' + encoded.replace("\\", "\\\\").replace('"', '\\"') + '"'


def copy_constrained(
    grammar: str, utterance: str, numbers: Iterable[float] | None = None, exclude: frozenset[str] = frozenset()
) -> str:
    """Restrict the free values of an action grammar to what the user said.

    Tiny local models tend to copy argument values from the prompt's examples instead of
    the user's message; with this, a string argument can only be a piece of `utterance`,
    and a number one of `numbers` (default: the digits in the utterance; callers that
    read Chinese numerals pass `homeagent.actions.numbers.numbers_in(utterance)`). Enums
    and booleans are unaffected; a kind with nothing to copy keeps its free rule. Pieces
    made only of `exclude` terms (the request's own words) are not values."""
    spans = utterance_spans(utterance, exclude=exclude)
    if spans:
        rule = "string ::= ( " + " | ".join(_gbnf_literal(s) for s in spans) + " ) space"
        grammar = re.sub(r"^string ::= .*$", lambda _m: rule, grammar, count=1, flags=re.M)
    values = list(numbers) if numbers is not None else [float(n) for n in re.findall(r"\d+(?:\.\d+)?", utterance)]
    texts = list(dict.fromkeys(f"{v:g}" for v in values if abs(v) < 1e15))
    ints = [t for t in texts if re.fullmatch(r"-?\d+", t)]
    if texts:
        rule = "number ::= ( " + " | ".join(f'"{t}"' for t in texts) + " ) space"
        grammar = re.sub(r"^number ::= .*$", lambda _m: rule, grammar, count=1, flags=re.M)
    if ints:
        rule = "integer ::= ( " + " | ".join(f'"{t}"' for t in ints) + " ) space"
        grammar = re.sub(r"^integer ::= .*$", lambda _m: rule, grammar, count=1, flags=re.M)
    return grammar
