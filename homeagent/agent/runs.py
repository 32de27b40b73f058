"""Runs on record: every turn is a run, every event of it is stored.

`RunHub` is the turn's flight recorder. The agent calls its synchronous hooks (`begin`,
`event`, `note`): they assign each event its sequence number, push it to live
subscribers and queue it for storage, and never wait on the disk, so recording costs the
turn almost nothing. A writer task owned by the app's task group commits the queue in
batches; `(run_id, sequence)` is the idempotency key of a stored event. Text deltas are
coalesced (per ~100 ms or at the next other event) so a long answer is a handful of rows.

Secrets are redacted before anything is stored; long strings inside events are
truncated, but a run's own input and output are kept whole. Runs left `queued`,
`running` or `waiting_permission` by a crash become `interrupted` with code
AGENT_PROCESS_RESTARTED at the next start.

A run belongs to the member who asked for it. Reads take a `member` filter: a member
reads their own runs and the household's (member ""); None reads them all.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from homeagent.io.events import AgentEvent, AnswerDelta, TurnDone, TurnFailed, event_to_dict
from homeagent.log import get_logger, redact
from homeagent.store import Database
from homeagent.store.health import WriterHealth
from homeagent.text import scrub_surrogates

log = get_logger("homeagent.runs")

RunStatus = Literal[
    "queued", "running", "waiting_permission", "completed", "failed", "cancelled", "interrupted"
]
FINISHED: frozenset[str] = frozenset({"completed", "failed", "cancelled", "interrupted"})
RESTARTED = "AGENT_PROCESS_RESTARTED"
MAX_EVENT_STRING = 4000
MAX_EVENT_ITEMS = 200
TEXT_FLUSH_SECONDS = 0.1
LIVE_EVENTS_PER_RUN = 2000


@dataclass(frozen=True)
class StoredEvent:
    run_id: str
    sequence: int
    type: str
    payload: dict[str, Any]
    created_at: float

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "sequence": self.sequence, "type": self.type,
                "created_at": self.created_at, "data": self.payload}


@dataclass
class RunRecord:
    id: str
    channel: str
    device_id: str
    member: str
    input: str
    status: str
    output: str = ""
    error_code: str = ""
    error_message: str = ""
    provider: str = ""
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    created_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    config_snapshot: dict[str, Any] = field(default_factory=dict)
    last_sequence: int = 0

    def as_dict(self) -> dict[str, Any]:
        duration = (
            round((self.finished_at - self.started_at) * 1000, 1)
            if self.finished_at and self.started_at else None
        )
        return {
            "id": self.id, "channel": self.channel, "device_id": self.device_id,
            "member": self.member, "input": self.input, "status": self.status,
            "output": self.output,
            "error": {"code": self.error_code, "message": self.error_message} if self.error_code else None,
            "provider": self.provider, "model": self.model,
            "usage": {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                      "total_tokens": self.prompt_tokens + self.completion_tokens},
            "created_at": self.created_at, "started_at": self.started_at,
            "finished_at": self.finished_at, "duration_ms": duration,
            "last_sequence": self.last_sequence,
        }


def _truncate(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) > MAX_EVENT_STRING:
            return value[:MAX_EVENT_STRING] + f"…[truncated {len(value) - MAX_EVENT_STRING} chars]"
        return value
    if isinstance(value, Mapping):
        return {k: _truncate(v) for k, v in list(value.items())[:MAX_EVENT_ITEMS]}
    if isinstance(value, list | tuple):
        return [_truncate(v) for v in list(value)[:MAX_EVENT_ITEMS]]
    return value


def clean_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    """What an event may store: secrets redacted, long strings and lists cut."""
    return _truncate(redact(dict(payload)))


@dataclass
class _Live:
    """An unfinished run in memory: its recent events and who is waiting for more."""

    record: RunRecord
    events: deque[StoredEvent] = field(default_factory=lambda: deque(maxlen=LIVE_EVENTS_PER_RUN))
    changed: anyio.Event = field(default_factory=anyio.Event)
    text: list[str] = field(default_factory=list)
    text_since: float = 0.0
    cancel: Any = None  # the reply handle's cancel()
    sequence: int = 0
    finished: bool = False


_ROW_FIELDS = (
    "id, channel, device_id, member, input, status, output, error_code, error_message, provider, "
    "model, prompt_tokens, completion_tokens, created_at, started_at, finished_at, config_snapshot, "
    "last_sequence"
)


def _record_from_row(row: Any) -> RunRecord:
    data = dict(row)
    data["config_snapshot"] = json.loads(data["config_snapshot"] or "{}")
    return RunRecord(**data)


class RunHub:
    def __init__(self, db: Database, *, record: bool = True):
        self._db = db
        self.record_events = record
        self._live: dict[str, _Live] = {}
        self._queue: list[tuple[str, tuple[Any, ...]]] = []
        self._wake = anyio.Event()
        self._flushed = anyio.Event()
        self._snapshot_source: Mapping[str, Any] | None = None
        self._snapshot_clean: dict[str, Any] = {}
        self.health = WriterHealth("runs")

    # -- start-up -------------------------------------------------------------------------

    async def recover(self) -> int:
        """Close runs a previous process left unfinished; returns how many."""
        now = time.time()

        def fix(conn: Any) -> int:
            cur = conn.execute(
                "UPDATE runs SET status = 'interrupted', error_code = ?, error_message = ?, "
                "finished_at = ? WHERE status IN ('queued', 'running', 'waiting_permission')",
                (RESTARTED, "the daemon stopped before this run finished", now),
            )
            return cur.rowcount

        count = await self._db.write(fix)
        if count:
            log.warning("runs.interrupted_by_restart", runs=count)
        return count

    # -- recording hooks (synchronous: never wait on the disk) -------------------------

    def create(self, run_id: str, *, channel: str, device_id: str, member: str, text: str,
               cancel: Any = None) -> None:
        """Register a run as queued (an API client created it and will poll or stream it)."""
        if run_id in self._live:
            return
        record = RunRecord(run_id, channel, device_id, member, redact(text), "queued",
                           created_at=time.time())
        self._live[run_id] = _Live(record, cancel=cancel)
        self._enqueue("insert", record)

    async def open(self, run_id: str, *, channel: str, device_id: str, member: str, text: str,
                   cancel: Any = None) -> None:
        """Register a run with its row committed before returning: what a 202 acknowledges.

        Raises the database's error (a full disk); the run is then not registered."""
        if run_id in self._live:
            return
        record = RunRecord(run_id, channel, device_id, member, redact(text), "queued",
                           created_at=time.time())
        row = _scrubbed(_record_row(record))
        await self._db.write(lambda conn: _write_batch(conn, [("insert", row)]))
        self._live.setdefault(run_id, _Live(record, cancel=cancel))

    def begin(self, run_id: str, *, channel: str, device_id: str, member: str, text: str,
              provider: str, model: str, snapshot: Mapping[str, Any], cancel: Any = None) -> None:
        if run_id not in self._live:
            self.create(run_id, channel=channel, device_id=device_id, member=member, text=text,
                        cancel=cancel)
        live = self._live[run_id]
        live.cancel = cancel or live.cancel
        rec = live.record
        rec.status, rec.provider, rec.model = "running", provider, model
        rec.started_at = time.time()
        if self._snapshot_source is not snapshot:  # the agent's snapshot rarely changes
            self._snapshot_source, self._snapshot_clean = snapshot, clean_payload(snapshot)
        rec.config_snapshot = self._snapshot_clean
        self._enqueue("update", rec)
        self._notify(live)

    def set_status(self, run_id: str, status: RunStatus) -> None:
        live = self._live.get(run_id)
        if live is not None and not live.finished:
            live.record.status = status
            self._enqueue("update", live.record)
            self._notify(live)

    def event(self, run_id: str, event: AgentEvent) -> None:
        live = self._live.get(run_id)
        if live is None or live.finished:
            return
        if isinstance(event, AnswerDelta):
            if not live.text:
                live.text_since = time.monotonic()
            live.text.append(event.text)
            if time.monotonic() - live.text_since >= TEXT_FLUSH_SECONDS:
                self._flush_text(live)
            return
        self._flush_text(live)
        payload = event_to_dict(event)
        payload.pop("type", None)
        self._add(live, event.type, payload)
        if isinstance(event, TurnDone | TurnFailed):
            self._finish(live, event)

    def note(self, run_id: str, type_: str, payload: Mapping[str, Any]) -> None:
        """A trace-only event (model calls, permission decisions) not sent to the asker."""
        live = self._live.get(run_id)
        if live is not None and not live.finished:
            self._flush_text(live)
            self._add(live, type_, dict(payload))

    def cancel(self, run_id: str) -> bool:
        live = self._live.get(run_id)
        if live is None or live.finished or live.cancel is None:
            return False
        live.cancel()
        return True

    def _flush_text(self, live: _Live) -> None:
        if live.text:
            text, live.text = "".join(live.text), []
            self._add(live, "text_delta", {"text": text})

    def _add(self, live: _Live, type_: str, payload: dict[str, Any]) -> None:
        live.sequence += 1
        stored = StoredEvent(live.record.id, live.sequence, type_, clean_payload(payload), time.time())
        live.events.append(stored)
        live.record.last_sequence = live.sequence
        if self.record_events:
            self._enqueue("event", stored)
        self._notify(live)

    def _finish(self, live: _Live, outcome: TurnDone | TurnFailed) -> None:
        rec = live.record
        rec.finished_at = time.time()
        if isinstance(outcome, TurnFailed):
            rec.status, rec.error_code, rec.error_message = "failed", outcome.kind, outcome.message
        else:
            rec.status = "cancelled" if outcome.finish_reason == "cancelled" else "completed"
            rec.output = redact(outcome.text)
            rec.prompt_tokens, rec.completion_tokens = outcome.prompt_tokens, outcome.completion_tokens
        live.finished = True
        self._enqueue("update", rec)
        self._notify(live)

    def _notify(self, live: _Live) -> None:
        changed, live.changed = live.changed, anyio.Event()
        changed.set()

    def _enqueue(self, kind: str, item: Any) -> None:
        if kind == "event":
            e: StoredEvent = item
            row: tuple[Any, ...] = (e.run_id, e.sequence, e.type,
                                    json.dumps(e.payload, ensure_ascii=False, default=str), e.created_at)
        else:
            row = _record_row(item)
        # A lone surrogate (a model's or a client's) cannot be encoded for SQLite: it would
        # fail the whole batch for ever.
        self._queue.append((kind, _scrubbed(row)))
        self.health.pending = len(self._queue)
        self._wake.set()

    # -- the writer ---------------------------------------------------------------------

    async def run_writer(self) -> None:
        """Commit queued records in batches until cancelled; flushes what is left on exit.

        A failed commit (a full disk, an I/O error) never ends the writer: the batch is
        kept, the failure is logged and shown in /healthz, and the next attempt waits
        with backoff; when the disk has room again the queue drains by itself."""
        try:
            while True:
                await self._wake.wait()
                await anyio.sleep(0.02)  # let a burst of events share one transaction
                self._wake = anyio.Event()
                try:
                    await self.flush()
                except Exception as err:  # noqa: BLE001 - a writer must outlive its failures
                    delay = self.health.failed(err)
                    log.warning("runs.writer.failed", error=repr(err), pending=len(self._queue),
                                retry_in_s=delay, failures=self.health.failures)
                    self._wake.set()
                    await anyio.sleep(delay)
                else:
                    if not self.health.ok:
                        log.info("runs.writer.recovered", after_failures=self.health.failures)
                    self.health.succeeded()
        finally:
            with anyio.CancelScope(shield=True):
                for live in self._live.values():
                    self._flush_text(live)
                await self.flush()

    async def flush(self) -> None:
        for live in self._live.values():
            if live.text and time.monotonic() - live.text_since >= TEXT_FLUSH_SECONDS:
                self._flush_text(live)
        batch, self._queue = self._queue, []
        if batch:
            try:
                await self._db.write(lambda conn: _write_batch(conn, batch))
            except sqlite3.OperationalError:
                # Disk full, I/O error, locked: the batch is kept for the next attempt.
                self._queue[:0] = batch
                self.health.pending = len(self._queue)
                raise
            except Exception as err:  # noqa: BLE001 - one bad row must not hold back the rest
                log.warning("runs.writer.batch_failed", error=repr(err), rows=len(batch))
                dropped = await self._db.write(lambda conn: _write_each(conn, batch))
                self.health.dropped += dropped
            self.health.pending = len(self._queue)
        # Finished runs leave memory once stored; readers then use the database.
        for run_id in [rid for rid, live in self._live.items() if live.finished]:
            if not any(row[0] == run_id for _, row in self._queue):
                self._live.pop(run_id, None)
        flushed, self._flushed = self._flushed, anyio.Event()
        flushed.set()

    # -- reading --------------------------------------------------------------------------

    async def get(self, run_id: str, member: str | None = None) -> RunRecord | None:
        """The run, or None when there is none `member` may read."""
        live = self._live.get(run_id)
        if live is not None:
            record: RunRecord | None = live.record
        else:
            rows = await self._db.fetchall(f"SELECT {_ROW_FIELDS} FROM runs WHERE id = ?", (run_id,))
            record = _record_from_row(rows[0]) if rows else None
        if record is None or (member is not None and record.member not in ("", member)):
            return None
        return record

    async def list(self, *, status: str | None = None, limit: int = 50,
                   before: float | None = None, member: str | None = None) -> list[RunRecord]:
        clauses: list[str] = []
        params: list[Any] = []
        if member is not None:
            clauses.append("member IN ('', ?)")
            params.append(member)
        if status:
            clauses.append("status = ?")
            params.append(status)
        if before is not None:
            clauses.append("created_at < ?")
            params.append(before)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = await self._db.fetchall(
            f"SELECT {_ROW_FIELDS} FROM runs {where} ORDER BY created_at DESC LIMIT ?", (*params, limit)
        )
        records = [_record_from_row(r) for r in rows]
        # Live state is fresher than the last committed row.
        return [self._live[r.id].record if r.id in self._live else r for r in records]

    async def events(self, run_id: str, after: int = 0, limit: int = 1000) -> builtins.list[StoredEvent]:
        rows = await self._db.fetchall(
            "SELECT run_id, sequence, type, payload, created_at FROM run_events "
            "WHERE run_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
            (run_id, after, limit),
        )
        stored = [StoredEvent(r["run_id"], r["sequence"], r["type"], json.loads(r["payload"]),
                              r["created_at"]) for r in rows]
        live = self._live.get(run_id)
        if live is not None:
            # Events not yet committed are served from memory, without duplicates.
            seen = {e.sequence for e in stored}
            stored += [e for e in live.events if e.sequence > after and e.sequence not in seen]
            stored.sort(key=lambda e: e.sequence)
        return stored[:limit]

    async def follow(self, run_id: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        """Every event after `after`, then new ones as they happen, until the run ends."""
        cursor = after
        while True:
            live = self._live.get(run_id)
            changed = live.changed if live is not None else None
            batch = await self.events(run_id, cursor)
            for event in batch:
                cursor = event.sequence
                yield event
            if batch:
                continue
            record = await self.get(run_id)
            if record is None or (record.status in FINISHED and cursor >= record.last_sequence):
                return
            if changed is not None:
                await changed.wait()
            else:
                await anyio.sleep(0.05)

    async def trace_page(
        self, run_id: str, after: int = 0, limit: int = 200, member: str | None = None
    ) -> dict[str, Any] | None:
        record = await self.get(run_id, member)
        if record is None:
            return None
        events = await self.events(run_id, after, limit + 1)
        page, more = events[:limit], len(events) > limit
        all_events = await self.events(run_id, 0, 1_000_000) if not (after == 0 and not more) else events
        stats = _stats(all_events, record)
        return {
            "run": record.as_dict(),
            "events": [e.as_dict() for e in page],
            "next_cursor": page[-1].sequence if more and page else None,
            "has_more": more,
            "stats": stats,
            "config_snapshot": record.config_snapshot,
        }


def _stats(events: list[StoredEvent], record: RunRecord) -> dict[str, Any]:
    model_calls = [e for e in events if e.type == "model_call"]
    tool_results = [e for e in events if e.type == "tool_result"]
    return {
        "events": len(events),
        "model_calls": len(model_calls),
        "model_ms": round(sum(e.payload.get("duration_ms", 0) for e in model_calls), 1),
        "tool_calls": len(tool_results),
        "tool_failures": sum(1 for e in tool_results if not e.payload.get("ok", True)),
        "tool_ms": round(sum(e.payload.get("duration_ms", 0) for e in tool_results), 1),
        "prompt_tokens": record.prompt_tokens,
        "completion_tokens": record.completion_tokens,
        "duration_ms": round((record.finished_at - record.started_at) * 1000, 1)
        if record.finished_at and record.started_at else None,
    }


def _record_row(r: RunRecord) -> tuple[Any, ...]:
    return (r.id, r.channel, r.device_id, r.member, r.input, r.status, r.output, r.error_code,
            r.error_message, r.provider, r.model, r.prompt_tokens, r.completion_tokens,
            r.created_at, r.started_at, r.finished_at,
            json.dumps(r.config_snapshot, ensure_ascii=False, default=str), r.last_sequence)


def _scrubbed(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(scrub_surrogates(v) if isinstance(v, str) else v for v in row)


def _write_each(conn: Any, batch: list[tuple[str, tuple[Any, ...]]]) -> int:
    """Write row by row, skipping (and logging) the ones that cannot be written; returns
    how many were dropped. A transient error still aborts the whole attempt."""
    dropped = 0
    for item in batch:
        conn.execute("SAVEPOINT one_row")
        try:
            _write_batch(conn, [item])
        except sqlite3.OperationalError:
            raise
        except Exception as err:  # noqa: BLE001 - a poison row is dropped, not retried for ever
            conn.execute("ROLLBACK TO one_row")
            dropped += 1
            log.error("runs.writer.row_dropped", kind=item[0], run_id=item[1][0], error=repr(err))
        conn.execute("RELEASE one_row")
    return dropped


def _write_batch(conn: Any, batch: list[tuple[str, tuple[Any, ...]]]) -> None:
    for kind, row in batch:
        if kind == "event":
            conn.execute(
                "INSERT OR IGNORE INTO run_events(run_id, sequence, type, payload, created_at) "
                "VALUES (?, ?, ?, ?, ?)", row,
            )
        else:
            conn.execute(
                f"INSERT INTO runs({_ROW_FIELDS}) VALUES ({', '.join('?' * 18)}) "
                "ON CONFLICT(id) DO UPDATE SET status = excluded.status, output = excluded.output, "
                "error_code = excluded.error_code, error_message = excluded.error_message, "
                "provider = excluded.provider, model = excluded.model, "
                "prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens, "
                "started_at = excluded.started_at, finished_at = excluded.finished_at, "
                "config_snapshot = excluded.config_snapshot, last_sequence = excluded.last_sequence",
                row,
            )

