"""`homeagent tools list|parse` as a subprocess (`python -m homeagent.cli.tools`), and
through `register_cli` on a parser like the main command line's."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from homeagent.cli.tools import parse_reply, register_cli

from ..conftest import REPO


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "homeagent.cli.tools", *args], input=stdin, capture_output=True,
        text=True, encoding="utf-8", cwd=REPO, timeout=120, check=False,
    )


def test_tools_list_json_has_every_tool_with_its_schema() -> None:
    proc = run_cli("tools", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    tools = json.loads(proc.stdout)
    by_name = {t["name"]: t for t in tools}
    assert len([t for t in tools if t["category"] != "builtin"]) == 75 and "current_time" in by_name
    task = by_name["create_task"]
    assert task["category"] == "task" and task["permission"] == "write"
    assert task["parameters"]["required"] == ["content"] and "Create a new to-do task" in task["description"]
    assert by_name["delete_note"]["permission"] == "delete" and by_name["web_search"]["permission"] == "network"


def test_tools_list_text_groups_by_category() -> None:
    proc = run_cli("tools", "list")
    assert proc.returncode == 0
    assert "Tasks / 任务管理" in proc.stdout and "Mode & extras / 模式与扩展" in proc.stdout
    assert "create_task" in proc.stdout and proc.stdout.rstrip().endswith("76 tools")


REPLY = (
    "好的，已记下。\n[ACTION]\n｛“name”：“create_task”，“content”：“提交周报”，“due”：“明天下班前”，｝\n[/ACTION]\n"
    "[ACTION]{name: 'record_water', amount: 5, bogus: true}[/ACTION]\n"
    "[ACTION]完全不是JSON[/ACTION]谢谢！"
)


def test_tools_parse_prints_only_json_with_repaired_calls() -> None:
    proc = run_cli("tools", "parse", stdin=REPLY)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)  # stdout is JSON and nothing else
    assert out["calls"] == [
        {"name": "create_task", "arguments": {"content": "提交周报", "due": "明天下班前"}},
        {"name": "record_water", "arguments": {"amount": 5, "bogus": True}},  # as repaired, not validated
    ]
    assert out["text"] == "好的，已记下。\n\n谢谢！"
    assert any("bogus" in e for e in out["errors"]) and any("unparsable" in e for e in out["errors"])
    assert len(out["errors"]) == 2


@pytest.mark.parametrize(("reply", "calls"), [
    ("just words, no action", []),
    ('[ACTION]{"name": "no_such_tool"}[/ACTION]', [{"name": "no_such_tool", "arguments": {}}]),
])
def test_parse_reply_edge_cases(reply: str, calls: list) -> None:
    out = parse_reply(reply)
    assert out["calls"] == calls
    if calls:
        assert "unknown tool 'no_such_tool'" in out["errors"][0]


def test_register_cli_adds_tools_to_a_parser() -> None:
    parser = argparse.ArgumentParser(prog="homeagent")
    register_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["tools", "list", "--json"])
    assert args.json and callable(args.func)
    assert callable(parser.parse_args(["tools", "parse"]).func)
