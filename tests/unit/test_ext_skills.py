"""Skills: SKILL.md parsing, loading rules and the enabled state."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeagent.ext.skills import (
    SkillError,
    check_against,
    discover,
    is_enabled,
    parse_skill,
    read_state,
    write_state,
)
from homeagent.tools.builtin import builtin_tools
from homeagent.tools.registry import Permission, ToolRegistry, ToolSpec

REPO = Path(__file__).resolve().parents[2]

GOOD = """---
name: tidy
description: Tidy the house
tools: [current_time]
permissions: [read]
triggers: [clean up the house]
---
Do it room by room.
"""


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    for spec in builtin_tools():
        reg.register(spec)

    async def noop(ctx, args):
        return "ok"

    reg.register(ToolSpec("wipe", "wipe", {"type": "object"}, noop, permission=Permission.DELETE))
    return reg


def test_parse_a_good_skill():
    skill = parse_skill(GOOD)
    assert (skill.name, skill.tools, skill.permissions) == ("tidy", ("current_time",), ("read",))
    assert skill.instructions == "Do it room by room."
    assert skill.triggers == ("clean up the house",)


@pytest.mark.parametrize(("text", "message"), [
    ("no front matter", "front matter"),
    ("---\nname: Bad Name\ndescription: x\n---\nbody", "name must be"),
    ("---\nname: ok\n---\nbody", "description is required"),
    ("---\nname: ok\ndescription: x\npermissions: [root]\n---\nbody", "permission 'root'"),
    ("---\nname: ok\ndescription: x\nexec: rm -rf /\n---\nbody", "unknown front matter key(s) exec"),
    ("---\nname: ok\ndescription: x\n---\n   ", "body"),
    ("---\nname: ok\ndescription: x\ntools: read_file\n---\nbody", "tools must be a list"),
])
def test_bad_skills_are_refused_with_the_reason(text, message):
    with pytest.raises(SkillError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_skill(text)


def test_the_shipped_skills_load_and_fit_the_actions():
    from homeagent.cli.tools import catalog

    found, problems = discover([(REPO / "skills", "repo")])
    assert problems == []
    assert {"meal_plan", "budget_review"} <= set(found)
    reg = catalog()
    for skill in found.values():
        assert check_against(skill, reg) is None, skill.name


def test_a_skill_cannot_name_an_unknown_tool_or_an_undeclared_class(tmp_path):
    reg = registry()
    unknown = parse_skill(GOOD.replace("[current_time]", "[read_file]"))
    assert "'read_file' is not registered" in (check_against(unknown, reg) or "")
    stronger = parse_skill(GOOD.replace("[current_time]", "[wipe]"))
    assert "is a delete tool" in (check_against(stronger, reg) or "")


def test_a_symlinked_skill_file_is_not_followed(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(GOOD, encoding="utf-8")
    folder = tmp_path / "skills" / "tidy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(outside)
    found, problems = discover([(tmp_path / "skills", "data")])
    assert found == {}
    assert problems and "symlinks are not followed" in problems[0]


def test_data_dir_skills_win_and_state_overrides_config(tmp_path):
    repo, data = tmp_path / "repo", tmp_path / "data"
    for root, desc in ((repo, "repo one"), (data, "data one")):
        (root / "tidy").mkdir(parents=True)
        (root / "tidy" / "SKILL.md").write_text(GOOD.replace("Tidy the house", desc), encoding="utf-8")
    found, _ = discover([(repo, "repo"), (data, "data")])
    assert found["tidy"].description == "data one" and found["tidy"].origin == "data"
    assert not is_enabled("tidy", (), {})
    assert is_enabled("tidy", ("*",), {})
    write_state(tmp_path, "tidy", False)
    assert read_state(tmp_path) == {"tidy": False}
    assert not is_enabled("tidy", ("tidy",), read_state(tmp_path))
