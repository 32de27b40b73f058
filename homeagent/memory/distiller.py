"""The distiller: the text log's exchanges → facts in the graph.

With a provider it asks the model for facts as JSON (an extraction prompt), repairs what
small models get wrong (json-repair) and validates every item: wrong shapes, empty
strings, overlong values and self-loops are rejected and counted, never stored. A reply
that holds no usable JSON at all falls back to the rule-based extractor for that batch,
so the batch still yields what rules can find. Without a provider it uses the rules only.

Exactly once: the log offset reached is stored in `memory_distiller_state` in the same
transaction as the facts it produced, so re-running over the same log adds nothing and a
crash mid-way repeats nothing. A provider failure stops the run before the failed batch;
the next run retries it. With nothing new in the log no provider is called at all.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
import json_repair

from homeagent.errors import ProviderError
from homeagent.llm.base import ChatRequest, Message, Provider, StreamError, TextDelta
from homeagent.log import get_logger
from homeagent.memory.distill_rules import Extracted, extract_rules
from homeagent.memory.graph import MAX_RELATION_CHARS, FactInput, GraphDB
from homeagent.memory.textlog import TextRecord
from homeagent.memory.tools import speaker_name

log = get_logger("homeagent.memory.distiller")

EXTRACTION_PROMPT = """\
You extract lasting facts from a home assistant's conversation log.
Each numbered record shows what a household member (named in brackets) said, and the \
assistant's reply for context. Extract facts the member states or confirms about \
themselves, their family, pets, home, work, likes and dislikes, and other people, places \
and things. Skip questions, plans, small talk and anything only the assistant claims.

Answer with JSON only, no prose:
{"facts": [{"record": 1, "subject": "...", "relation": "...", "object": "...", \
"confidence": 0.9, "subject_type": "person", "object_type": "place"}]}

Rules:
- Refer to the speaker by the name in brackets, never as "I" or "我".
- relation: short snake_case English, preferably one of: name, lives_in, works_at, \
occupation, age, birthday, spouse, likes, dislikes, has_pet, has, is_a, knows, friend_of, \
parent_of, child_of, member_of. A move is lives_in with the new place.
- subject and object: short names of people, places or things, in the language used.
- confidence: 0 to 1, how sure the statement is.
- No facts: {"facts": []}
"""
_THINK_RE = re.compile(r"<think>.*?</think>", re.S)
_FENCE_RE = re.compile(r"```(?:json)?|```")
_RELATION_RE = re.compile(r"^[\w\u4e00-\u9fff][\w\u4e00-\u9fff \-]*$")


class LogReader(Protocol):
    def read_from(self, offset: int = 0) -> Any:
        """Records (`TextRecord`) from byte `offset` on."""
        ...


@dataclass(frozen=True)
class DistillReport:
    records: int = 0  # exchanges read
    facts_new: int = 0
    facts_repeated: int = 0
    facts_closed: int = 0  # older facts a new one contradicted
    rejected: int = 0  # extracted items (or whole replies) that failed validation
    llm_calls: int = 0
    offset: int = 0  # where the next run starts
    error: str = ""


@dataclass(frozen=True)
class Candidate:
    record: int  # index into the batch
    fact: Extracted


def parse_extraction(
    reply: str, n_records: int, *, max_value_chars: int = 80
) -> tuple[list[Candidate], int] | None:
    """The valid facts in a model's reply and how many items were rejected; None when
    the reply holds no facts structure at all."""
    text = _FENCE_RE.sub("", _THINK_RE.sub("", reply)).strip()
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        data = json_repair.loads(text) if text else None
    if isinstance(data, dict) and isinstance(data.get("facts"), list):
        items = data["facts"]
    elif isinstance(data, list) and all(isinstance(i, dict) for i in data):
        items = data
    else:
        return None
    good: list[Candidate] = []
    rejected = 0
    for item in items:
        cand = _validate(item, n_records, max_value_chars)
        if cand is None:
            rejected += 1
        else:
            good.append(cand)
    return good, rejected


def _validate(item: Any, n_records: int, max_chars: int) -> Candidate | None:
    if not isinstance(item, dict):
        return None
    values = [item.get(k) for k in ("subject", "relation", "object")]
    if not all(isinstance(v, str) for v in values):
        return None
    subject, relation, obj = (str(v).strip() for v in values)
    if not subject or not relation or not obj or subject.casefold() == obj.casefold():
        return None
    if len(subject) > max_chars or len(obj) > max_chars or len(relation) > MAX_RELATION_CHARS:
        return None
    if any("\n" in v for v in (subject, relation, obj)) or not _RELATION_RE.match(relation):
        return None
    confidence = item.get("confidence", 0.8)
    if isinstance(confidence, str):
        try:
            confidence = float(confidence)
        except ValueError:
            return None
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return None
    if not 0.0 <= float(confidence) <= 1.0:
        return None
    record = item.get("record", n_records)
    if isinstance(record, str) and record.strip().isdigit():
        record = int(record)
    if isinstance(record, bool) or not isinstance(record, int) or not 1 <= record <= n_records:
        return None
    types = [item.get(k, "") for k in ("subject_type", "object_type")]
    types = [t.strip()[:40] if isinstance(t, str) else "" for t in types]
    return Candidate(record - 1, Extracted(subject, relation, obj, float(confidence), *types))


def render_batch(records: Sequence[TextRecord], speakers: Sequence[str]) -> str:
    lines = []
    for i, (rec, who) in enumerate(zip(records, speakers, strict=True), start=1):
        lines.append(f"[{i}] ({who}) {rec.user.strip()}")
        if rec.assistant.strip():
            reply = rec.assistant.strip().replace("\n", " ")
            lines.append(f"    assistant: {reply[:300]}")
    return "\n".join(lines)


class Distiller:
    def __init__(
        self,
        graph: GraphDB,
        textlog: LogReader,
        *,
        provider: Provider | None = None,
        name: str = "default",
        speaker: str = "user",
        batch_records: int = 8,
        max_records: int = 2000,
        max_value_chars: int = 80,
        timeout: float = 120.0,
        max_tokens: int = 800,
    ):
        self.graph = graph
        self.textlog = textlog
        self.provider = provider
        self.name = name
        self.speaker = speaker
        self.batch_records = max(1, batch_records)
        self.max_records = max(1, max_records)
        self.max_value_chars = max_value_chars
        self.timeout = timeout
        self.max_tokens = max_tokens

    # -- the cursor -------------------------------------------------------------------

    async def offset(self) -> int:
        rows = await self.graph.db.fetchall(
            "SELECT log_offset FROM memory_distiller_state WHERE name = ?", (self.name,)
        )
        return int(rows[0][0]) if rows else 0

    def _save_offset(self, conn: sqlite3.Connection, offset: int, records: int) -> None:
        conn.execute(
            "INSERT INTO memory_distiller_state(name, log_offset, records, updated_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET log_offset = excluded.log_offset,"
            " records = records + excluded.records, updated_at = excluded.updated_at",
            (self.name, offset, records, self.graph.clock.now().timestamp()),
        )

    def _read(self, offset: int) -> tuple[list[TextRecord], int]:
        """Up to `max_records` exchanges worth distilling, and the offset after the last
        record looked at (tombstones and forgotten exchanges are passed over)."""
        work: list[TextRecord] = []
        end = offset
        try:
            for record in self.textlog.read_from(offset):
                if len(work) >= self.max_records:
                    break
                end = record.end
                if record.kind == "exchange" and not record.forgotten and record.user.strip():
                    work.append(record)
        except FileNotFoundError:
            return [], offset
        return work, end

    # -- a run ------------------------------------------------------------------------

    async def pending(self) -> bool:
        """Whether the log holds records past the cursor (reads at most one)."""
        start = await self.offset()

        def peek() -> bool:
            try:
                return next(iter(self.textlog.read_from(start)), None) is not None
            except FileNotFoundError:
                return False

        return await anyio.to_thread.run_sync(peek)

    async def run(self) -> DistillReport:
        start = await self.offset()
        work, end = await anyio.to_thread.run_sync(self._read, start)
        if not work:
            if end != start:
                await self.graph.db.write(lambda c: self._save_offset(c, end, 0))
            return DistillReport(offset=end)
        totals = {"new": 0, "repeated": 0, "closed": 0, "rejected": 0, "llm": 0}
        offset, error, done = start, "", 0
        batches = [
            work[i : i + self.batch_records] for i in range(0, len(work), self.batch_records)
        ]
        for n, batch in enumerate(batches):
            speakers = [r.member.strip() or self.speaker for r in batch]
            try:
                candidates = await self._extract(batch, speakers, totals)
            except ProviderError as err:
                error = str(err)
                log.warning("memory.distiller.provider_failed", error=error, offset=offset)
                break
            batch_end = end if n == len(batches) - 1 else batch[-1].end
            inputs = [self._input(c, batch, speakers) for c in candidates]
            store = functools.partial(self._store, inputs=inputs, prev=offset, end=batch_end, records=len(batch))
            counts = await self.graph.db.write(store)
            if counts is None:
                error = "another distiller run advanced the log cursor; stopped to avoid duplicates"
                log.warning("memory.distiller.cursor_moved", offset=offset)
                break
            for key in ("new", "repeated", "closed", "rejected"):
                totals[key] += counts[key]
            offset = batch_end
            done += len(batch)
        report = DistillReport(
            done, totals["new"], totals["repeated"], totals["closed"], totals["rejected"],
            totals["llm"], offset, error,
        )  # fmt: skip
        log.info(
            "memory.distiller.finished", records=done, facts_new=report.facts_new,
            facts_repeated=report.facts_repeated, facts_closed=report.facts_closed,
            rejected=report.rejected, llm_calls=report.llm_calls, offset=offset,
        )  # fmt: skip
        return report

    def _store(
        self,
        conn: sqlite3.Connection,
        inputs: Sequence[FactInput],
        prev: int,
        end: int,
        records: int,
    ) -> dict[str, int] | None:
        row = conn.execute(
            "SELECT log_offset FROM memory_distiller_state WHERE name = ?", (self.name,)
        ).fetchone()
        if (int(row[0]) if row else 0) != prev:
            return None  # a concurrent run (another process) got here first
        counts = {"new": 0, "repeated": 0, "closed": 0, "rejected": 0}
        for item in inputs:
            try:
                result = self.graph.commit_tx(conn, item)
            except ValueError:
                counts["rejected"] += 1
                continue
            counts["new" if result.outcome != "repeated" else "repeated"] += 1
            counts["closed"] += len(result.closed)
        self._save_offset(conn, end, records)
        return counts

    def _input(
        self, cand: Candidate, batch: Sequence[TextRecord], speakers: Sequence[str]
    ) -> FactInput:
        record, who, fact = batch[cand.record], speakers[cand.record], cand.fact
        return FactInput(
            subject=speaker_name(fact.subject, who),
            relation=fact.relation,
            object=speaker_name(fact.object, who),
            confidence=fact.confidence,
            subject_type=fact.subject_type,
            object_type=fact.object_type,
            session_id=str(record.meta.get("session_id", "")) if record.meta else "",
            turn_id=record.turn_id,
            # Facts from an exchange said for everyone are the household's.
            member="" if record.meta.get("shared") else record.member,
            source=f"log:{record.id}",
            at=record.at.timestamp(),
        )

    async def _extract(
        self, batch: Sequence[TextRecord], speakers: Sequence[str], totals: dict[str, int]
    ) -> list[Candidate]:
        if self.provider is not None:
            totals["llm"] += 1
            reply = await self._ask(render_batch(batch, speakers))
            parsed = parse_extraction(reply, len(batch), max_value_chars=self.max_value_chars)
            if parsed is not None:
                totals["rejected"] += parsed[1]
                return parsed[0]
            totals["rejected"] += 1
            log.warning("memory.distiller.unusable_reply", chars=len(reply))

        def rules() -> list[Candidate]:
            return [
                Candidate(i, fact)
                for i, (rec, who) in enumerate(zip(batch, speakers, strict=True))
                for fact in extract_rules(rec.user, who)
            ]

        return await anyio.to_thread.run_sync(rules)

    async def _ask(self, body: str) -> str:
        assert self.provider is not None
        request = ChatRequest(
            messages=(Message("system", EXTRACTION_PROMPT), Message("user", body)),
            temperature=0.0,
            max_tokens=self.max_tokens,
        )
        parts: list[str] = []
        try:
            with anyio.fail_after(self.timeout):
                async with aclosing(self.provider.stream(request)) as stream:
                    async for event in stream:
                        if isinstance(event, TextDelta):
                            parts.append(event.text)
                        elif isinstance(event, StreamError):
                            raise ProviderError(
                                event.message, retryable=event.retryable, kind=event.kind
                            )
        except TimeoutError as err:
            raise ProviderError(
                f"fact extraction took longer than {self.timeout:g} s", retryable=True
            ) from err
        return "".join(parts)
