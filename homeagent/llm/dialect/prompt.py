"""The prompt text of the `[ACTION]` dialect, generated from the offered tools.

`render_protocol` is the stable part (how to call, and the example dialogues from the
tools' featured examples): it does not depend on the message, so a local engine keeps
its evaluated state. `render_offered` is the per-message part: the actions offered for
this utterance.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from homeagent.llm.base import ToolDef
from homeagent.llm.dialect.blocks import CLOSE, OPEN, render_block
from homeagent.llm.dialect.select import featured_examples, parse_example

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


def render_action_catalog(specs: Iterable[ToolDef], *, examples: bool = True) -> str:
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


def render_example_dialogues(specs: Iterable[ToolDef]) -> str:
    """The prompt's example dialogues (seed 000 §6.2) from the tools' featured examples."""
    turns = [
        f"User: {e.text}\nAssistant: {render_block(e.name, e.arguments)}" for e in featured_examples(specs)
    ]
    return "Examples:\n" + "\n".join(turns) if turns else ""


def render_protocol(specs: Iterable[ToolDef]) -> str:
    """The stable part of the prompt for the block protocol: how to call, and the example
    dialogues. It does not depend on the message, so a local engine caches it."""
    dialogues = render_example_dialogues(specs)
    return INSTRUCTIONS + ("\n\n" + dialogues if dialogues else "")


def render_offered(selected: Sequence[ToolDef], *, examples: bool = True) -> str:
    """The per-message part: the actions offered for this utterance (after the cached
    prefix); empty when none are, so there is nothing for a small model to repeat."""
    if not selected:
        return ""
    return "## Actions for this message\n" + render_action_catalog(selected, examples=examples)
