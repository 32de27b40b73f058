"""Grammar-constrained decoding of `[ACTION]` replies, for engines with `supports_grammar`.

`action_grammar` builds a GBNF grammar from the offered tools' schemas so every block the
model writes parses and names a real action; `copy_constrained` then limits its string
values to pieces of the user's own words and its numbers to the numbers they said, since
tiny models copy values from the prompt's examples instead. Grammars are built with
llama-cpp-python's JSON Schema converter: this module is the only one of the dialect
that imports `llama_cpp`, and only when a grammar is asked for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Literal

from homeagent.llm.base import ToolDef
from homeagent.text import CJK_CLASS, tokenize

GrammarMode = Literal["action", "action_or_text", "text_then_actions"]


def call_schema(specs: Iterable[ToolDef]) -> dict:
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
    specs: Sequence[ToolDef], *, mode: GrammarMode = "action", max_blocks: int = 1
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


_UNIT_RE = re.compile(rf"{CJK_CLASS}|[A-Za-z0-9][A-Za-z0-9'._:/-]*|[^\s]")
_EDGE_RE = re.compile(r"^[\W_]|[\W_]$")


_BRACKETED_RE = re.compile(r"\([^)]*\)|（[^）]*）")
# Words that carry no value of their own in a request ("delete the note", "帮我把…").
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "my", "me", "to", "of", "for", "in", "on", "at", "it", "this", "that", "please",
    "我", "的", "了", "一下", "帮我", "请", "把", "给",
})


def instruction_terms(specs: Iterable[ToolDef]) -> frozenset[str]:
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
    read Chinese numerals pass `homeagent.numbers.numbers_in(utterance)`). Enums
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
