"""personal.md: the agent's fixed identity, read once at start and never altered."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from homeagent.errors import PersonalityError


@dataclass(frozen=True)
class Personality:
    text: str
    source: Path

    @classmethod
    def load(cls, path: Path) -> Personality:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError as err:
            raise PersonalityError(
                f"personality file {path} does not exist; create it or point "
                "agent.personality_file at it"
            ) from err
        except (OSError, UnicodeDecodeError) as err:
            raise PersonalityError(f"personality file {path} cannot be read: {err}") from err
        if not text.strip():
            raise PersonalityError(
                f"personality file {path} is empty; write the agent's personality into it"
            )
        return cls(text=text.strip(), source=path)
