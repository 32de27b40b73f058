"""Skills: a folder with a `SKILL.md` that teaches the agent one household routine.

    ---
    name: meal_plan
    description: Plan the week's dinners and put what is missing on the shopping list
    tools: [list_inventory, add_shopping_item, create_note]
    permissions: [read, write]
    triggers:                       # example requests, ranked like action examples
      - plan our meals for next week
      - 下周吃什么
    ---
    The instructions, in Markdown.

Skills come from the repo's `skills/` and the data dir's `skills/` (a data-dir skill of
the same name wins). Which are on is config (`skills.enabled`) plus what `homeagent skills
enable|disable` recorded in the data dir (`skills.json`).

A skill's instructions join a turn's prompt only when the message is relevant to it: the
skills are ranked like actions (TF-IDF over name, description and triggers, with the
small-talk class), and only those above `min_score` join, as a section after the cached
stable prefix. While a skill steers a turn, the model reaches only the tools the skill
declares: calls to any other tool are refused (`SkillSet.allowed_tools`).

A skill is text and nothing more: its body is never expanded (no `${VAR}`, no includes),
its file must be a regular file inside its folder (no symlink out), each declared tool
must exist and belong to a declared permission class, or the skill is refused at load
with a message naming the problem.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import yaml

from homeagent.llm.base import ToolDef
from homeagent.llm.dialect.select import ActionSelector
from homeagent.log import get_logger
from homeagent.tools.registry import Permission, ToolRegistry

log = get_logger("homeagent.ext.skills")

SKILL_FILE = "SKILL.md"
STATE_FILE = "skills.json"
MAX_SKILL_BYTES = 32_768
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_FRONT_RE = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n?(.*)\Z", re.S)
_KEYS = {"name", "description", "tools", "permissions", "triggers", "version"}


class SkillError(ValueError):
    """A SKILL.md that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    instructions: str
    tools: tuple[str, ...]
    permissions: tuple[str, ...]
    triggers: tuple[str, ...] = ()
    path: str = ""
    origin: str = "repo"  # repo | data

    def as_dict(self, enabled: bool | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name, "description": self.description, "tools": list(self.tools),
            "permissions": list(self.permissions), "triggers": list(self.triggers),
            "path": self.path, "origin": self.origin,
        }
        if enabled is not None:
            out["enabled"] = enabled
        return out


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SkillError(f"{where}: {key} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def parse_skill(text: str, *, where: str = SKILL_FILE, folder_name: str = "") -> Skill:
    """Parse the text of a SKILL.md; raises SkillError naming what is wrong."""
    match = _FRONT_RE.match(text.replace("\r\n", "\n"))
    if not match:
        raise SkillError(f"{where}: must start with front matter between '---' lines")
    try:
        front = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as err:
        raise SkillError(f"{where}: the front matter is not valid YAML: {err}") from err
    if not isinstance(front, dict):
        raise SkillError(f"{where}: the front matter must be a mapping of keys")
    unknown = sorted(set(front) - _KEYS)
    if unknown:
        raise SkillError(f"{where}: unknown front matter key(s) {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(_KEYS))})")
    name = front.get("name", folder_name)
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise SkillError(f"{where}: name must be lower-case letters, digits or '_' "
                         f"(up to 40, starting with a letter); got {name!r}")
    description = front.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillError(f"{where}: description is required (one line saying what the skill does)")
    permissions = _strings(front.get("permissions"), "permissions", where)
    known = {p.value for p in Permission}
    for perm in permissions:
        if perm not in known:
            raise SkillError(f"{where}: permission {perm!r} is not one of {', '.join(sorted(known))}")
    body = match.group(2).strip()
    if not body:
        raise SkillError(f"{where}: the body (the instructions) is empty")
    return Skill(
        name=name, description=" ".join(description.split()), instructions=body,
        tools=_strings(front.get("tools"), "tools", where), permissions=permissions,
        triggers=_strings(front.get("triggers"), "triggers", where),
    )


def read_skill(folder: Path, origin: str) -> Skill:
    """Load `folder/SKILL.md`: a regular file inside the folder, at most 32 KiB."""
    path = folder / SKILL_FILE
    where = str(path)
    if path.is_symlink() or not path.is_file():
        raise SkillError(f"{where}: must be a regular file (symlinks are not followed)")
    real_folder = os.path.realpath(folder)
    if os.path.commonpath([real_folder, os.path.realpath(path)]) != real_folder:
        raise SkillError(f"{where}: resolves outside its folder")
    if path.stat().st_size > MAX_SKILL_BYTES:
        raise SkillError(f"{where}: larger than {MAX_SKILL_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SkillError(f"{where}: cannot be read as UTF-8 text: {err}") from err
    skill = parse_skill(text, where=where, folder_name=folder.name)
    return Skill(**{**skill.__dict__, "path": where, "origin": origin})


def discover(dirs: Sequence[tuple[Path, str]]) -> tuple[dict[str, Skill], list[str]]:
    """Every skill under the given (directory, origin) pairs, later ones winning, and the
    problems of the folders that could not be loaded."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    for root, origin in dirs:
        if not root.is_dir():
            continue
        for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
            if not (folder / SKILL_FILE).exists() and not (folder / SKILL_FILE).is_symlink():
                continue
            try:
                skill = read_skill(folder, origin)
            except SkillError as err:
                problems.append(str(err))
                continue
            found[skill.name] = skill
    return found, problems


def check_against(skill: Skill, registry: ToolRegistry) -> str | None:
    """Why `skill` cannot run with this registry (an unknown tool, or a tool whose
    permission class the skill does not declare), or None."""
    for name in skill.tools:
        spec = registry.get(name)
        if spec is None:
            return f"{skill.path or skill.name}: tool {name!r} is not registered"
        perm = str(getattr(spec.permission, "value", spec.permission))
        if perm not in skill.permissions:
            return (f"{skill.path or skill.name}: tool {name!r} is a {perm} tool; "
                    f"add {perm!r} to the skill's permissions to use it")
    return None


# -- enabled state ---------------------------------------------------------------------


def read_state(data_dir: Path) -> dict[str, bool]:
    """What `homeagent skills enable|disable` recorded: name → enabled."""
    path = data_dir / STATE_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        raise SkillError(f"{path}: not a JSON object of skill names to true/false ({err})") from err
    if not isinstance(raw, dict) or not all(isinstance(v, bool) for v in raw.values()):
        raise SkillError(f"{path}: not a JSON object of skill names to true/false")
    return {str(k): v for k, v in raw.items()}


def write_state(data_dir: Path, name: str, enabled: bool) -> dict[str, bool]:
    state = read_state(data_dir)
    state[name] = enabled
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = data_dir / f".{STATE_FILE}.tmp"
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, data_dir / STATE_FILE)
    return state


def is_enabled(name: str, configured: Iterable[str], state: Mapping[str, bool]) -> bool:
    if name in state:
        return state[name]
    configured = tuple(configured)
    return "*" in configured or name in configured


# -- the set a daemon runs with -------------------------------------------------------------


@dataclass
class SkillSet:
    """The enabled skills, ranked per message. Built by the composition root."""

    skills: Sequence[Skill] = ()
    min_score: float = 0.12
    max_active: int = 1
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_name = {s.name: s for s in self.skills}
        self._defs = tuple(
            ToolDef(s.name, s.description, {"type": "object"}, tuple(f"{t} → {s.name}" for t in s.triggers))
            for s in self.skills
        )
        self._selector = ActionSelector(self._defs)
        self._lock = threading.Lock()
        self._last: tuple[str, tuple[Skill, ...]] | None = None

    def __len__(self) -> int:
        return len(self._by_name)

    def replace_with(self, other: SkillSet) -> None:
        """Take `other`'s skills in place (a config reload): holders of this set's bound
        methods (the agent) see the new skills from the next turn."""
        self.skills, self.min_score, self.max_active = other.skills, other.min_score, other.max_active
        self.problems = other.problems
        self.__post_init__()

    def prepare_sync(self) -> None:
        """Build the index now, so the first relevant turn does not pay for it."""
        if self._defs:
            self._selector.prepare_sync()

    def relevant_sync(self, text: str) -> tuple[Skill, ...]:
        """The skills this message is about, best first (none for small talk)."""
        with self._lock:
            if self._last is not None and self._last[0] == text:
                return self._last[1]
        chosen: tuple[Skill, ...] = ()
        if self._defs and text.strip():
            ranking = self._selector.rank(text)
            if not ranking.chat:
                chosen = tuple(
                    self._by_name[d.name] for d, score in ranking.scored[: self.max_active]
                    if score >= self.min_score
                )
        with self._lock:
            self._last = (text, chosen)
        return chosen

    async def relevant(self, text: str) -> tuple[Skill, ...]:
        if not self._defs:
            return ()
        return await anyio.to_thread.run_sync(self.relevant_sync, text)

    async def section(self, text: str, member: str) -> tuple[str, str] | None:
        """The prompt section for this message (a context source of the agent)."""
        chosen = await self.relevant(text)
        if not chosen:
            return None
        parts = []
        for skill in chosen:
            tools = ", ".join(skill.tools) or "none"
            parts.append(f"### {skill.name}: {skill.description}\n(tools for this skill: {tools})\n\n"
                         f"{skill.instructions}")
        log.info("skills.used", skills=[s.name for s in chosen])
        return "Skill", "\n\n".join(parts)

    async def allowed_tools(self, text: str) -> frozenset[str] | None:
        """While skills steer this message, only their declared tools; else None (all)."""
        chosen = await self.relevant(text)
        if not chosen:
            return None
        return frozenset(name for skill in chosen for name in skill.tools)


def load_skillset(
    dirs: Sequence[tuple[Path, str]],
    *,
    configured: Iterable[str],
    data_dir: Path,
    registry: ToolRegistry,
    min_score: float,
    max_active: int,
) -> SkillSet:
    """The enabled skills that fit the registry; the others are logged and listed as problems."""
    found, problems = discover(dirs)
    configured = tuple(configured)
    try:
        state = read_state(data_dir)
    except SkillError as err:
        problems.append(str(err))
        state = {}
    usable = []
    for skill in found.values():
        if not is_enabled(skill.name, configured, state):
            continue
        problem = check_against(skill, registry)
        if problem is not None:
            problems.append(problem)
            continue
        usable.append(skill)
    for problem in problems:
        log.warning("skills.refused", problem=problem)
    log.info("skills.loaded", skills=[s.name for s in usable])
    return SkillSet(usable, min_score=min_score, max_active=max_active, problems=problems)


def skill_dirs(shipped: Path, data_dir: Path) -> list[tuple[Path, str]]:
    """Where skills are looked for, later winning: the shipped ones (the configured
    folder, else the copy an installed package put under <prefix>/share/homeagent/skills),
    then the data dir's own."""
    import sys

    dirs: list[tuple[Path, str]] = []
    if shipped.is_dir():
        dirs.append((shipped, "repo"))
    else:
        installed = Path(sys.prefix) / "share" / "homeagent" / "skills"
        if installed.is_dir():
            dirs.append((installed, "repo"))
    dirs.append((data_dir / "skills", "data"))
    return dirs
