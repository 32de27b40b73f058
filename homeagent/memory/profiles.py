"""Household members' profiles: what the agent knows about each person who speaks to it.

A profile is rebuilt at every heartbeat from what memory already holds: the member's
current facts in the graph (preferences, interests and everything else stated about
them) and the topics they talk about most (term counts over their recent messages). It
is short by construction, and goes into the prompt only when that member is speaking.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from homeagent.memory.graph import GraphDB
from homeagent.store import Database
from homeagent.store.db import Migration
from homeagent.text import tokenize

PREFERENCE_RELATIONS = frozenset({"likes", "dislikes", "prefers", "favorite", "allergic_to", "avoids"})
INTEREST_RELATIONS = frozenset({"likes", "hobby", "interested_in", "plays", "learns"})
RECENT_MESSAGES = 200
TOPICS = 5
# Words that say nothing about what a person cares about.
_STOP = frozenset(
    ["the", "a", "an", "and", "or", "but", "to", "of", "in", "on", "at", "for", "with", "is", "are", "was", "were", "be", "been", "it", "this", "that", "i", "you", "me", "my", "we", "our", "your", "he", "she", "they", "them", "what", "when", "where", "how", "why", "do", "does", "did", "can", "could", "would", "will", "please", "thanks", "thank", "ok", "okay", "yes", "no", "我的", "你的", "什么", "怎么", "一下", "可以", "今天", "明天", "现在", "是不", "不是", "我们", "你们", "他们", "这个", "那个", "一个", "帮我", "谢谢", "好的", "吗"]
)


def _0032_member_profiles(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE member_profiles (
            member TEXT PRIMARY KEY,
            preferences TEXT NOT NULL DEFAULT '[]',
            interests TEXT NOT NULL DEFAULT '[]',
            facts TEXT NOT NULL DEFAULT '[]',
            topics TEXT NOT NULL DEFAULT '[]',
            summary TEXT NOT NULL DEFAULT '',
            updated_at REAL NOT NULL
        )"""
    )


MIGRATIONS: tuple[Migration, ...] = (Migration(32, "member_profiles", _0032_member_profiles),)


@dataclass(frozen=True)
class Profile:
    member: str
    preferences: tuple[str, ...]
    interests: tuple[str, ...]
    facts: tuple[str, ...]
    topics: tuple[str, ...]
    summary: str
    updated_at: float


def _summary(member: str, prefs: Sequence[str], interests: Sequence[str], facts: Sequence[str],
             topics: Sequence[str]) -> str:
    parts = []
    if facts:
        parts.append("; ".join(facts[:6]))
    if prefs:
        parts.append("preferences: " + ", ".join(prefs[:6]))
    if interests:
        parts.append("interests: " + ", ".join(interests[:6]))
    if topics:
        parts.append("often talks about: " + ", ".join(topics))
    return f"{member} — " + " | ".join(parts) if parts else ""


class ProfileStore:
    def __init__(self, db: Database, graph: GraphDB):
        self._db = db
        self._graph = graph

    async def rebuild(self, members: Sequence[str]) -> int:
        """Recompute the profiles of `members`; returns how many were written."""
        written = 0
        for member in dict.fromkeys(m for m in members if m):
            profile = await self._build(member)
            await self._db.execute(
                "INSERT INTO member_profiles(member, preferences, interests, facts, topics, summary, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(member) DO UPDATE SET "
                "preferences = excluded.preferences, interests = excluded.interests, "
                "facts = excluded.facts, topics = excluded.topics, summary = excluded.summary, "
                "updated_at = excluded.updated_at",
                (member, *(json.dumps(list(v), ensure_ascii=False) for v in
                           (profile.preferences, profile.interests, profile.facts, profile.topics)),
                 profile.summary, profile.updated_at),
            )
            written += 1
        return written

    async def _build(self, member: str) -> Profile:
        entity = await self._graph.entity(member)
        # Only what the member may see: another member's private facts about them stay out.
        facts = (
            await self._graph.facts_about([entity.id], include_past=False, limit=100, reader=member)
            if entity else []
        )  # fmt: skip
        prefs, interests, other = [], [], []
        for fact in facts:
            if fact.subject != entity.name:  # type: ignore[union-attr]
                continue
            text = f"{fact.relation} {fact.object}"
            if fact.relation in PREFERENCE_RELATIONS:
                prefs.append(text)
            if fact.relation in INTEREST_RELATIONS:
                interests.append(fact.object)
            if fact.relation not in PREFERENCE_RELATIONS:
                other.append(text)
        rows = await self._db.fetchall(
            "SELECT content FROM messages WHERE member = ? AND role = 'user' ORDER BY id DESC LIMIT ?",
            (member, RECENT_MESSAGES),
        )
        counts = Counter(
            term for row in rows for term in set(tokenize(row["content"]))
            if term not in _STOP and len(term) > 1 and not term.isdigit()
        )
        topics = tuple(term for term, n in counts.most_common(TOPICS) if n >= 2)
        prefs_t, interests_t, other_t = (tuple(dict.fromkeys(x)) for x in (prefs, interests, other))
        return Profile(member, prefs_t, interests_t, other_t, topics,
                       _summary(member, prefs_t, interests_t, other_t, topics), time.time())

    async def get(self, member: str) -> Profile | None:
        rows = await self._db.fetchall("SELECT * FROM member_profiles WHERE member = ?", (member,))
        if not rows:
            return None
        r = rows[0]
        lists = [tuple(json.loads(r[k])) for k in ("preferences", "interests", "facts", "topics")]
        return Profile(r["member"], lists[0], lists[1], lists[2], lists[3], r["summary"], r["updated_at"])

    async def section(self, text: str, member: str) -> tuple[str, str] | None:
        """The speaking member's profile for the prompt (nothing for an unknown speaker)."""
        if not member:
            return None
        profile = await self.get(member)
        if profile is None or not profile.summary:
            return None
        return "About the person speaking", profile.summary
