"""The memory tools the model can call: memory_recall, memory_commit,
memory_introspect over the graph, doc_query and doc_commit over document memory
(seed 003's tool table).

Every tool reads and writes as the turn's member (`ToolContext.member`): what it finds
is that member's own and the household's, what it stores is that member's (see
homeagent.members)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, tzinfo
from typing import Any

from homeagent.errors import ToolError
from homeagent.memory.documents import DocumentStore
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
        matches = await indexer.recall(query, member=ctx.member, k=8, reader=ctx.member)
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
            reader=ctx.member,
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
        stats = await graph.stats(top=int(args.get("top", 10)), reader=ctx.member)
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


# -- document memory -----------------------------------------------------------------------

_TEXT_IN_RESULT = 400  # characters of full text a doc_query result carries


CommitHook = Callable[[str, str], None]  # (turn id, document id) of a committed document


def document_tools(store: DocumentStore, on_commit: CommitHook | None = None) -> tuple[ToolSpec, ...]:
    """`doc_query` and `doc_commit` over `store`, for the composition root to register.
    `on_commit` hears of every document committed, with its turn (so a turn said for
    everyone can share them once it is recorded)."""

    async def doc_query(ctx: ToolContext, args: dict[str, Any]) -> list[dict[str, Any]]:
        hits = await store.query(
            args["query"], int(args.get("k", 3)), now=ctx.now(), reader=ctx.member
        )
        return [
            {
                "id": h.document.id,
                "score": round(h.score, 4),
                "summary": h.document.summary,
                "text": h.document.text[:_TEXT_IN_RESULT]
                + ("…" if len(h.document.text) > _TEXT_IN_RESULT else ""),
                "created_at": h.document.created_at.isoformat(timespec="seconds"),
                "tags": list(h.document.tags),
                "source": h.document.source,
            }
            for h in hits
        ]

    async def doc_commit(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        doc = await store.add(
            args["text"],
            summary=args.get("summary", ""),
            tags=tuple(args.get("tags", ())),
            entities=tuple(args.get("entities", ())),
            source=args.get("source") or f"agent:{ctx.channel}",
            member=ctx.member,
        )
        if on_commit is not None:
            on_commit(ctx.turn_id, doc.id)
        return {"id": doc.id, "summary": doc.summary, "stored": True}

    strings = {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 20}
    return (
        ToolSpec(
            name="doc_query",
            description=(
                "Search document memory (archived conversation, notes the agent committed) "
                "and return the best matches with summary, text excerpt and date. Time "
                "words in the query (last month, yesterday) narrow the search. / "
                "检索文档记忆（归档的对话、提交过的笔记），返回最相关的文档摘要、正文片段和日期；"
                "查询里的时间词（上个月、昨天）会限定时间范围。"
            ),
            parameters={
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "description": "what to look for / 要查找的内容"},
                    "k": {"type": "integer", "minimum": 1, "maximum": 20, "default": 3,
                          "description": "how many documents / 返回条数"},
                },
                "required": ["query"],
                "additionalProperties": False,
            },
            executor=doc_query,
            permission=Permission.READ,
            examples=('doc_query {"query": "上个月洗碗机怎么了"}',),
        ),
        ToolSpec(
            name="doc_commit",
            description=(
                "Store a document in memory so it can be found later: a note, a summary, "
                "a fact worth keeping in full. / 把一段文档存入记忆以便以后检索：笔记、摘要、"
                "值得完整保留的内容。"
            ),
            parameters={
                "type": "object",
                "properties": {
                    "text": {"type": "string", "minLength": 1, "maxLength": 20000,
                             "description": "the full text / 全文"},
                    "summary": {"type": "string", "maxLength": 300,
                                "description": "one-line summary; made from the text if omitted / 一句话摘要，可省略"},
                    "tags": strings | {"description": "tags / 标签"},
                    "entities": strings | {"description": "people, places, things named / 涉及的实体"},
                    "source": {"type": "string", "maxLength": 100, "description": "where it came from / 来源"},
                },
                "required": ["text"],
                "additionalProperties": False,
            },
            executor=doc_commit,
            permission=Permission.WRITE,
            examples=('doc_commit {"text": "Wi-Fi 密码贴在路由器背面", "tags": ["wifi"]}',),
        ),
    )
