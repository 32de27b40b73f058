"""Every migration of the one database, from every package that owns tables."""

from __future__ import annotations

from homeagent.actions.schema import MIGRATIONS as ACTIONS
from homeagent.ext.changes import MIGRATIONS as CHANGES
from homeagent.intent.schema import MIGRATIONS as INTENT
from homeagent.io.push import MIGRATIONS as PUSH
from homeagent.knowledge.schema import MIGRATIONS as KNOWLEDGE
from homeagent.llm.schema import MIGRATIONS as LLM
from homeagent.memory.dense import MIGRATIONS as DENSE
from homeagent.memory.graph_schema import MIGRATIONS as GRAPH
from homeagent.memory.profiles import MIGRATIONS as PROFILES
from homeagent.memory.schema import MIGRATIONS as MEMORY
from homeagent.schedule.schema import MIGRATIONS as SCHEDULE
from homeagent.store.db import Migration
from homeagent.store.migrations import MIGRATIONS as CORE


def all_migrations() -> tuple[Migration, ...]:
    migrations = [*CORE, *MEMORY, *GRAPH, *KNOWLEDGE, *ACTIONS, *LLM, *PROFILES]
    migrations += [*SCHEDULE, *PUSH, *CHANGES, *INTENT]
    migrations += [*DENSE]
    versions = [m.version for m in migrations]
    if len(versions) != len(set(versions)):
        raise ValueError(f"duplicate migration versions: {sorted(versions)}")
    return tuple(sorted(migrations, key=lambda m: m.version))
