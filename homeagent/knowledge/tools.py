"""The agent's knowledge tools: knowledge_search, knowledge_list, knowledge_create."""

from __future__ import annotations

from typing import Any

from homeagent.errors import ToolError
from homeagent.knowledge.base import KnowledgeBase
from homeagent.knowledge.files import BadFile
from homeagent.tools.registry import Permission, ToolContext, ToolSpec

MAX_K = 10


def knowledge_tools(kb: KnowledgeBase) -> tuple[ToolSpec, ...]:
    """The three knowledge tools bound to `kb`, for the registry."""

    async def search(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        query = args["query"].strip()
        if not query:
            raise ToolError("query is empty: say what to look up, e.g. 'Zigbee channel'")
        hits = await kb.search(query, int(args.get("k", 5)), topic=args.get("topic") or None)
        results = [
            {
                "topic": h.topic,
                "file": h.path,
                "heading": " › ".join(h.heading),
                "text": h.text,
                "score": round(h.score, 3),
            }
            for h in hits
        ]
        out: dict[str, Any] = {"results": results}
        if not results:
            out["note"] = "no knowledge matches this query; answer from general knowledge or ask"
        return out

    async def list_topics(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        topics = await kb.topics()
        return {"topics": [{"name": t.name, "files": t.files, "chunks": t.chunks} for t in topics]}

    async def create(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        try:
            saved = await kb.create(args["topic"], args["title"], args["content"])
        except BadFile as err:
            raise ToolError(str(err)) from err
        return {"saved": saved.path, "topic": saved.topic, "chunks": saved.chunks}

    return (
        ToolSpec(
            name="knowledge_search",
            description=(
                "Search the household knowledge base (smart home, cooking, first aid and "
                "anything learned or uploaded) and return the best matching passages. "
                "搜索家庭知识库（智能家居、烹饪、急救及上传或学到的知识），返回最相关的段落。"
            ),
            parameters={
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "description": "What to look up, in Chinese or English / 要查的内容",
                    },
                    "k": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_K,
                        "default": 5,
                        "description": "How many passages to return (1-10) / 返回条数",
                    },
                    "topic": {
                        "type": "string",
                        "description": "Only search this topic, e.g. cooking / 只搜索该分类",
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
            executor=search,
            permission=Permission.READ,
            examples=(
                '番茄炒蛋怎么做？ → knowledge_search {"query": "番茄炒蛋"}',
                'Which Zigbee channel is best? → knowledge_search {"query": "Zigbee channel"}',
            ),
        ),
        ToolSpec(
            name="knowledge_list",
            description=(
                "List the knowledge topics with how many files and passages each holds. "
                "列出知识库的分类及每类的文件数和段落数。"
            ),
            parameters={"type": "object", "properties": {}, "additionalProperties": False},
            executor=list_topics,
            permission=Permission.READ,
        ),
        ToolSpec(
            name="knowledge_create",
            description=(
                "Save new, lasting knowledge (a how-to, a reference, a household fact worth "
                "keeping) as a Markdown file in a topic; it is searchable at once. Not for "
                "personal memories of a conversation. "
                "把值得长期保存的新知识写成 Markdown 文件存入某个分类，立即可搜索。"
            ),
            parameters={
                "type": "object",
                "properties": {
                    "topic": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 64,
                        "description": "Topic folder, e.g. cooking, smart_home, 园艺 / 分类名",
                    },
                    "title": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 120,
                        "description": "Short title; also the file name / 标题",
                    },
                    "content": {
                        "type": "string",
                        "minLength": 1,
                        "description": "The knowledge itself, Markdown allowed / 正文",
                    },
                },
                "required": ["topic", "title", "content"],
                "additionalProperties": False,
            },
            executor=create,
            permission=Permission.WRITE,
            examples=(
                'Remember how to descale the kettle → knowledge_create {"topic": "household", '
                '"title": "Descaling the kettle", "content": "Boil 1:1 water and white vinegar…"}',
            ),
        ),
    )
