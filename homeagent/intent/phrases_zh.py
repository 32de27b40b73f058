"""More Chinese ways of saying each action, merged into `homeagent.intent.phrases`.

Same format as `phrases.TEMPLATES` (`{key:pool}`, `{key=a|b}`, a trailing `## key=value`),
Chinese only. `POOLS` adds Chinese values to a shared pool (or starts a pool of its own);
`NONE` adds what is no action (small talk the model answers in words).
"""

from __future__ import annotations

POOLS: dict[str, tuple[str, ...]] = {}

TEMPLATES: dict[str, tuple[str, ...]] = {}

NONE: tuple[str, ...] = ()
