"""`homeagent tools list|parse`: the registry and the [ACTION] parser, for people debugging
a model.

`tools list [--json]` prints every tool (name, category, permission class, description,
schema). `tools parse` reads one model reply from stdin and prints only JSON:
`{"calls": [{"name", "arguments"}], "text": …, "errors": [...]}` — the calls after JSON
repair, with their arguments exactly as the repaired output gives them (before schema
validation, whose problems go to `errors`), and `text` as the user would see it. Nothing
is executed and no database is opened.

`python -m homeagent.cli.tools …` runs the same commands.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from homeagent.errors import ToolValidationError
from homeagent.tools.registry import ToolRegistry, ToolSpec


def catalog() -> ToolRegistry:
    """Every built-in tool and action, bound to nothing (listing and validation only)."""
    from homeagent.actions import action_specs
    from homeagent.tools.builtin import builtin_tools

    registry = ToolRegistry()
    for spec in (*builtin_tools(), *action_specs(db=None, clock=None)):
        registry.register(spec)
    return registry


def describe(spec: ToolSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "category": spec.category or "builtin",
        "permission": str(getattr(spec.permission, "value", spec.permission)),
        "description": spec.description,
        "parameters": dict(spec.parameters),
        "examples": list(spec.examples),
    }


def cmd_list(args: argparse.Namespace) -> int:
    specs = list(catalog())
    if args.json:
        print(json.dumps([describe(s) for s in specs], ensure_ascii=False, indent=1))
        return 0
    from homeagent.actions import CATEGORIES

    current = None
    for spec in specs:
        category = spec.category or "builtin"
        if category != current:
            zh, en = CATEGORIES.get(category, ("内置", "Built-in"))
            print(f"\n{en} / {zh}")
            current = category
        params = dict(spec.parameters)
        required = set(params.get("required", []))
        args_text = ", ".join(k if k in required else f"{k}?" for k in params.get("properties", {}))
        print(f"  {spec.name:<24} {str(getattr(spec.permission, 'value', spec.permission)):<8} "
              f"{spec.description}")
        if args.verbose:
            print(f"  {'':<24} {'':<8} ({args_text})")
            print(f"  {'':<24} {'':<8} schema: {json.dumps(params, ensure_ascii=False)}")
    print(f"\n{len(specs)} tools")
    return 0


def parse_reply(text: str, registry: ToolRegistry | None = None) -> dict[str, Any]:
    """The `tools parse` result for one model reply."""
    from homeagent.llm.dialect.blocks import extract_actions

    registry = registry or catalog()
    parsed = extract_actions(text)
    calls, errors = [], list(parsed.errors)
    for call in parsed.calls:
        arguments = json.loads(call.arguments)
        calls.append({"name": call.name, "arguments": arguments})
        try:
            registry.validate(call.name, arguments)
        except ToolValidationError as err:
            errors.append(str(err))
    return {"calls": calls, "text": parsed.text, "errors": errors}


def cmd_parse(args: argparse.Namespace) -> int:
    text = sys.stdin.read()
    print(json.dumps(parse_reply(text), ensure_ascii=False))
    return 0


def register_cli(subparsers: Any) -> None:
    """Add `tools list|parse` to the `homeagent` command line."""
    tools = subparsers.add_parser("tools", help="list the tools, or parse a model reply's [ACTION] blocks")
    sub = tools.add_subparsers(dest="tools_command", required=True)
    listing = sub.add_parser("list", help="print the registry: name, category, permission, description, schema")
    listing.add_argument("--json", action="store_true", help="print JSON (with each tool's full schema)")
    listing.add_argument("-v", "--verbose", action="store_true", help="also print arguments and schemas")
    listing.set_defaults(func=cmd_list)
    parse = sub.add_parser("parse", help="read a model reply on stdin; print the calls it holds as JSON")
    parse.set_defaults(func=cmd_parse)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="homeagent")
    register_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
