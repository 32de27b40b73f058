"""The distiller: rule-based extraction (Chinese and English), validation of a model's
JSON, idempotence over the text log, members and turn ids on facts, provider use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import homeagent.store
from homeagent.clock import FakeClock
from homeagent.llm.testing import ScriptedProvider, ScriptedReply
from homeagent.memory.distill_rules import extract_rules
from homeagent.memory.distiller import Distiller, parse_extraction
from homeagent.memory.graph import GraphDB
from homeagent.memory.graph_schema import MIGRATIONS as GRAPH_MIGRATIONS
from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.memory.textlog import TextMemory
from homeagent.store import Database

pytestmark = pytest.mark.anyio
MIGRATIONS = (*homeagent.store.MIGRATIONS, *MEMORY_MIGRATIONS, *GRAPH_MIGRATIONS)


# -- rules ---------------------------------------------------------------------------------

RULE_CASES = [
    ("我叫小明", [("me", "name", "小明")]),
    ("我的名字是王芳。", [("me", "name", "王芳")]),
    ("我住在北京", [("me", "lives_in", "北京")]),
    ("我住在北京很多年了", [("me", "lives_in", "北京")]),
    ("我搬到了上海", [("me", "lives_in", "上海")]),
    ("我们家上个月搬到杭州了", [("me", "lives_in", "杭州")]),
    ("我喜欢猫和狗", [("me", "likes", "猫"), ("me", "likes", "狗")]),
    ("我不喜欢香菜", [("me", "dislikes", "香菜")]),
    ("我有一只猫叫咪咪", [("me", "has_pet", "咪咪"), ("咪咪", "is_a", "猫")]),
    ("我养了一条狗，叫旺财。", [("me", "has_pet", "旺财"), ("旺财", "is_a", "狗")]),
    ("我在阿里巴巴工作", [("me", "works_at", "阿里巴巴")]),
    ("我今年35岁了", [("me", "age", "35")]),
    ("我的生日是5月3日", [("me", "birthday", "5月3日")]),
    ("我的老婆叫小红", [("me", "spouse", "小红")]),
    ("小明是我的弟弟", [("me", "弟弟", "小明")]),
    ("北京是中国的首都", [("北京", "is_a", "中国的首都")]),
    ("我是老师", [("me", "is_a", "老师")]),
    ("My name is Alice.", [("me", "name", "Alice")]),
    ("I live in Beijing", [("me", "lives_in", "Beijing")]),
    ("I moved to Shanghai last year.", [("me", "lives_in", "Shanghai")]),
    ("I've just moved to New York", [("me", "lives_in", "New York")]),
    ("I like tea and coffee", [("me", "likes", "tea"), ("me", "likes", "coffee")]),
    ("I don't like cilantro", [("me", "dislikes", "cilantro")]),
    ("I have a dog named Rex", [("me", "has_pet", "Rex"), ("Rex", "is_a", "dog")]),
    ("My cat's name is Tom", [("me", "has_pet", "Tom"), ("Tom", "is_a", "cat")]),
    ("I work at Google", [("me", "works_at", "Google")]),
    ("I'm 35 years old", [("me", "age", "35")]),
    ("My birthday is May 3", [("me", "birthday", "May 3")]),
    ("Paris is the capital of France", [("Paris", "is_a", "capital of France")]),
    ("I'm a teacher", [("me", "is_a", "teacher")]),
    ("我叫小明，我住在北京，我喜欢猫。", [("me", "name", "小明"), ("me", "lives_in", "北京"), ("me", "likes", "猫")]),
    ("My name is Bob. I love hiking, and I live in Seattle now.",
     [("me", "name", "Bob"), ("me", "lives_in", "Seattle"), ("me", "likes", "hiking")]),
]  # fmt: skip
NOTHING = ["我住在哪里？", "你喜欢什么？", "今天是星期一", "我不住在北京", "Where do I live?",
           "I don't live in Paris", "What do you like?", "明天下午三点提醒我开会"]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), RULE_CASES)
def test_rule_extractor_covers_common_statements(
    text: str, expected: list[tuple[str, str, str]]
) -> None:
    got = [(f.subject, f.relation, f.object) for f in extract_rules(text, "me")]
    assert sorted(got) == sorted(expected)


@pytest.mark.parametrize("text", NOTHING)
def test_rule_extractor_ignores_questions_negations_and_chatter(text: str) -> None:
    assert extract_rules(text, "me") == []


# -- validating a model's reply ------------------------------------------------------------


def test_parse_extraction_accepts_clean_fenced_and_repairable_json() -> None:
    fact = {
        "record": 1,
        "subject": "小明",
        "relation": "lives_in",
        "object": "上海",
        "confidence": 0.9,
    }
    clean = parse_extraction(json.dumps({"facts": [fact]}, ensure_ascii=False), 1)
    assert clean is not None and clean[1] == 0
    assert (clean[0][0].fact.subject, clean[0][0].fact.object) == ("小明", "上海")
    fenced = parse_extraction(
        "Sure!\n```json\n" + json.dumps([fact], ensure_ascii=False) + "\n```", 1
    )
    assert fenced is not None and len(fenced[0]) == 1
    # Single quotes, a trailing comma, a missing closing bracket: repaired.
    broken = "{'facts': [{'record': 1, 'subject': 'Alice', 'relation': 'likes', 'object': 'tea',},"
    repaired = parse_extraction(broken, 1)
    assert repaired is not None and [c.fact.object for c in repaired[0]] == ["tea"]
    thinking = "<think>hmm</think>" + json.dumps({"facts": []})
    assert parse_extraction(thinking, 1) == ([], 0)


@pytest.mark.parametrize(
    "reply",
    ["I could not find any facts.", "", "42", '"just a string"', '{"facts": "none"}', "[1, 2, 3]"],
)
def test_parse_extraction_rejects_garbage_replies(reply: str) -> None:
    assert parse_extraction(reply, 2) is None


def test_parse_extraction_rejects_bad_items_and_counts_them() -> None:
    good = {
        "record": 2,
        "subject": "Bob",
        "relation": "has pet",
        "object": "Rex",
        "confidence": "0.7",
    }
    bad = [
        "a string",
        {"subject": "Bob", "relation": "likes"},  # no object
        {"subject": "", "relation": "likes", "object": "tea"},
        {"subject": "Bob", "relation": "likes", "object": "   "},
        {"subject": "Bob", "relation": "likes", "object": "x" * 200},
        {"subject": "Bob", "relation": "r" * 100, "object": "tea"},
        {"subject": "Bob", "relation": "likes", "object": ["tea"]},
        {"subject": "Bob", "relation": "likes", "object": "tea", "confidence": "very"},
        {"subject": "Bob", "relation": "likes", "object": "tea", "confidence": 7},
        {"subject": "Bob", "relation": "likes", "object": "tea", "record": 9},
        {"subject": "Bob", "relation": "is", "object": "bob"},
        {"subject": "Bob", "relation": "{likes}", "object": "tea"},
    ]
    parsed = parse_extraction(json.dumps({"facts": [good, *bad]}), 2)
    assert parsed is not None
    candidates, rejected = parsed
    assert rejected == len(bad)
    assert [(c.record, c.fact.relation, c.fact.confidence) for c in candidates] == [
        (1, "has pet", 0.7)
    ]


# -- the distiller over a real log ---------------------------------------------------------


async def _log(path: Path, clock: FakeClock, lines: list[tuple[str, str]]) -> None:
    async with TextMemory(path, clock=clock) as log:
        for i, (member, text) in enumerate(lines):
            await log.append(
                text, "好的 / OK", turn_id=f"turn-{i}", member=member, meta={"session_id": "s1"}
            )
            clock.advance(days=1)


async def facts_of(db: Database) -> list[tuple]:
    rows = await db.fetchall(
        "SELECT s.name, f.relation, o.name, f.valid_to IS NULL, f.mention_count, f.member, f.turn_id,"
        " f.session_id FROM graph_facts f JOIN graph_entities s ON s.id = f.subject_id"
        " JOIN graph_entities o ON o.id = f.object_id ORDER BY f.id"
    )
    return [tuple(r) for r in rows]


async def test_rule_distillation_is_idempotent_and_records_member_and_turn(tmp_path: Path) -> None:
    clock = FakeClock()
    log_path = tmp_path / "memory.jsonl"
    await _log(log_path, clock, [
        ("小明", "我住在北京，我喜欢猫。"),
        ("", "I have a dog named Rex"),
        ("小明", "我搬到了上海"),
        ("小明", "我喜欢猫"),
    ])  # fmt: skip
    async with (
        Database(tmp_path / "d.db", MIGRATIONS) as db,
        TextMemory(log_path, clock=clock) as log,
    ):
        graph = GraphDB(db, clock=clock)
        distiller = Distiller(graph, log)
        report = await distiller.run()
        assert report.records == 4 and report.llm_calls == 0
        assert (report.facts_new, report.facts_repeated, report.facts_closed) == (5, 1, 1)
        assert report.offset == log.size() == await distiller.offset()
        facts = await facts_of(db)
        assert ("小明", "lives_in", "北京", 0, 1, "小明", "turn-0", "s1") in facts
        assert ("小明", "lives_in", "上海", 1, 1, "小明", "turn-2", "s1") in facts
        assert ("小明", "likes", "猫", 1, 2, "小明", "turn-0", "s1") in facts
        assert ("user", "has_pet", "Rex", 1, 1, "", "turn-1", "s1") in facts

        again = await distiller.run()
        assert again.records == 0 and await facts_of(db) == facts
        # A fresh distiller (a restart) reads the stored cursor and adds nothing either.
        assert (await Distiller(graph, log).run()).records == 0 and await facts_of(db) == facts

        await log.append("I work at Acme", "noted", turn_id="turn-9")
        forgotten = await log.append("我叫秘密", "好的", turn_id="turn-10")
        await log.forget(forgotten.id)
        more = await distiller.run()
        assert more.records == 1 and more.facts_new == 1
        assert not await distiller.pending()


async def test_llm_distillation_validates_and_falls_back_to_rules(tmp_path: Path) -> None:
    clock = FakeClock()
    log_path = tmp_path / "memory.jsonl"
    await _log(
        log_path,
        clock,
        [("Alice", "I live in Paris and my cat is called Felix"), ("Alice", "我喜欢咖啡")],
    )
    good = json.dumps({"facts": [
        {"record": 1, "subject": "Alice", "relation": "lives_in", "object": "Paris", "confidence": 0.95},
        {"record": 1, "subject": "I", "relation": "has_pet", "object": "Felix", "object_type": "pet"},
        {"record": 2, "subject": "Alice", "relation": "likes", "object": ""},
    ]})  # fmt: skip
    provider = ScriptedProvider([good])
    async with (
        Database(tmp_path / "d.db", MIGRATIONS) as db,
        TextMemory(log_path, clock=clock) as log,
    ):
        graph = GraphDB(db, clock=clock)
        distiller = Distiller(graph, log, provider=provider, batch_records=8)
        report = await distiller.run()
        assert report.llm_calls == 1 and report.facts_new == 2 and report.rejected == 1
        prompt = provider.requests[0].messages[-1].content
        assert "[1] (Alice) I live in Paris" in prompt and "[2] (Alice) 我喜欢咖啡" in prompt
        assert provider.requests[0].temperature == 0.0
        facts = await facts_of(db)
        assert ("Alice", "has_pet", "Felix", 1, 1, "Alice", "turn-0", "s1") in facts

        # Garbage from the model: the batch falls back to the rules.
        async with TextMemory(log_path, clock=clock) as writer:
            await writer.append("我搬到了上海", "好", turn_id="turn-5", member="Alice")
        provider.push("Sorry, I can't do that.")
        fallback = await distiller.run()
        assert fallback.llm_calls == 1 and fallback.rejected == 1 and fallback.facts_new == 1
        assert fallback.facts_closed == 1  # Paris → 上海
        history = await graph.history("Alice", "lives_in")
        assert [(f.object, f.current) for f in history] == [("Paris", False), ("上海", True)]

        # Nothing new: no model call at all.
        calls = len(provider.requests)
        assert (await distiller.run()).llm_calls == 0 and len(provider.requests) == calls


async def test_provider_failure_leaves_the_cursor_for_a_retry(tmp_path: Path) -> None:
    clock = FakeClock()
    log_path = tmp_path / "memory.jsonl"
    await _log(log_path, clock, [("", "I live in Oslo")])
    provider = ScriptedProvider([ScriptedReply(error="upstream down")])
    async with (
        Database(tmp_path / "d.db", MIGRATIONS) as db,
        TextMemory(log_path, clock=clock) as log,
    ):
        graph = GraphDB(db, clock=clock)
        distiller = Distiller(graph, log, provider=provider)
        failed = await distiller.run()
        assert failed.error and failed.records == 0 and failed.offset == 0
        assert await distiller.offset() == 0 and await facts_of(db) == []
        provider.push(
            json.dumps({"facts": [{"subject": "user", "relation": "lives_in", "object": "Oslo"}]})
        )
        retried = await distiller.run()
        assert retried.records == 1 and retried.facts_new == 1 and not retried.error
