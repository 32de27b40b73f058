"""One result of a `homeagent doctor` check: what was looked at, whether it is right, and
the fix when it is not. Every package's checks (providers, the house, extensions) and the
doctor's own speak it, so the doctor prints and serialises them alike."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)
