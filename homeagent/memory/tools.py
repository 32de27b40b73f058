"""The graph-memory tools the model can call: memory_recall, memory_commit,
memory_introspect (seed 003's tool table)."""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any

from homeagent.errors import ToolError
from homeagent.memory.graph import Fact, FactInput, GraphDB
from homeagent.memory.indexer import GraphIndexer
from homeagent.tools.registry import Permission, ToolContext, ToolSpec

# Words for "the speaker" that must never become entities of their own.
SELF_WORDS = frozenset({"我", "我自己", "本人", "i", "me", "myself", "user", "the user", "用户"})


def speaker_name(name: str, speaker: str) -> str:
    return speaker if name.strip().casefold() in SELF_WORDS else name.strip()


def _date(ts: float | None, tz: tzinfo | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz).strftime("%Y-%m-%d")


def fact_json(fact: Fact, tz: tzinfo | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "subject": fact.subject,
        "relation": fact.relation,
        "object": fact.object,
        "current": fact.current,
        "since": _date(fact.valid_from, tz),
    }
    if not fact.current:
        out["until"] = _date(fact.valid_to, tz)
    if fact.mention_count > 1:
        out["mentions"] = fact.mention_count
    if fact.confidence < 1.0:
        out["confidence"] = round(fact.confidence, 2)
    if fact.member:
        out["member"] = fact.member
    if fact.source.startswith("document:"):
        out["document"] = fact.source.removeprefix("document:")  # readable with doc_query
    return out


def memory_tools(graph: GraphDB, indexer: GraphIndexer) -> tuple[ToolSpec, ...]:
    """The three graph tools, bound to one graph and its indexer."""

    async def recall(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        query = args["query"].strip()
        if not query:
            raise ToolError("query must not be empty; name a person, place or thing to look up")
        limit = int(args.get("limit", 20))
        matches = await indexer.recall(query, member=ctx.member, k=8)
        if not matches:
            return {
                "entities": [],
                "facts": [],
                "note": "nothing remembered about this / 没有相关记忆",
            }
        facts = await graph.facts_about(
            [m.entity.id for m in matches],
            include_past=bool(args.get("include_past", True)),
            limit=limit,
        )
        tz = ctx.now().tzinfo
        return {
            "entities": [
                {"name": m.entity.name, "type": m.entity.type, "mentions": m.entity.mention_count}
                | ({"aliases": list(m.entity.aliases)} if m.entity.aliases else {})
                for m in matches
            ],
            "facts": [fact_json(f, tz) for f in facts],
        }

    async def commit(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        speaker = ctx.member or indexer.speaker
        item = FactInput(
            subject=speaker_name(args["subject"], speaker),
            relation=args["relation"],
            object=speaker_name(args["object"], speaker),
            confidence=float(args.get("confidence", 0.9)),
            subject_type=args.get("subject_type", ""),
            object_type=args.get("object_type", ""),
            turn_id=ctx.turn_id,
            member=ctx.member,
            source="tool:memory_commit",
            at=ctx.now().timestamp(),
        )
        try:
            result = await graph.commit(item)
        except ValueError as err:
            raise ToolError(f"cannot store this fact: {err}") from err
        await indexer.sync()
        tz = ctx.now().tzinfo
        return {
            "stored": result.outcome,
            "fact": fact_json(result.fact, tz),
            "closed": [fact_json(f, tz) for f in result.closed],
        }

    async def introspect(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        stats = await graph.stats(top=int(args.get("top", 10)))
        return {
            "entities": stats.entities,
            "facts": stats.facts,
            "current_facts": stats.current_facts,
            "past_facts": stats.past_facts,
            "relations": stats.relations,
            "top_entities": [
                {"name": e.name, "type": e.type, "mentions": e.mention_count}
                for e in stats.top_entities
            ],
            "merges": stats.merges,
        }

    name_field = {"type": "string", "minLength": 1, "maxLength": 200}
    return (
        ToolSpec(
            name="memory_recall",
            description=(
                "Look up what is remembered about people, places and things named in the query: "
                "current facts and past ones with their dates (where someone used to live, "
                "what they liked). 检索图记忆：查询相关实体的事实，包括以前的事实和日期。"
            ),
            parameters={
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 500,
                        "description": "names or a question, e.g. 'where did I live' / '我住在哪里'",
                    },
                    "include_past": {
                        "type": "boolean",
                        "description": "also return facts that no longer hold (default true)",
                    },
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                },
                "required": ["query"],
                "additionalProperties": False,
            },
            executor=recall,
            permission=Permission.READ,
            examples=(
                'Where did I live before? → memory_recall {"query": "where did I live"}',
                '我以前住在哪里？ → memory_recall {"query": "我住在哪里"}',
            ),
        ),
        ToolSpec(
            name="memory_commit",
            description=(
                "Remember one fact as subject–relation–object, e.g. (I, lives_in, Shanghai). "
                "A new value of a single-valued relation (lives_in, name, works_at, age…) "
                "replaces the old one, which is kept as history. Use 'I'/'我' for the user. "
                "写入一条三元组记忆，例如（我，lives_in，上海）。"
            ),
            parameters={
                "type": "object",
                "properties": {
                    "subject": name_field,
                    "relation": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 64,
                        "description": "e.g. lives_in, likes, has_pet, works_at, name, is_a",
                    },
                    "object": name_field,
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "subject_type": {
                        "type": "string",
                        "maxLength": 40,
                        "description": "person, place, pet…",
                    },
                    "object_type": {"type": "string", "maxLength": 40},
                },
                "required": ["subject", "relation", "object"],
                "additionalProperties": False,
            },
            executor=commit,
            permission=Permission.WRITE,
            examples=(
                'I moved to Shanghai → memory_commit {"subject": "I", "relation": "lives_in", "object": "Shanghai"}',
                '我的猫叫咪咪 → memory_commit {"subject": "我", "relation": "has_pet", "object": "咪咪"}',
            ),
        ),
        ToolSpec(
            name="memory_introspect",
            description=(
                "Statistics of the graph memory: counts of entities and facts, relation types, "
                "the most mentioned entities. 查看记忆统计。"
            ),
            parameters={
                "type": "object",
                "properties": {"top": {"type": "integer", "minimum": 1, "maximum": 50}},
                "additionalProperties": False,
            },
            executor=introspect,
            permission=Permission.READ,
        ),
    )
