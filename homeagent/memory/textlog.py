"""The text log: every exchange, appended to a JSONL file, durable before acknowledged.

One JSON object a line, UTF-8. `append()` writes the whole line with one `write` on an
`O_APPEND` descriptor, then `fsync`s, and only then returns: an acknowledged exchange
survives `kill -9` and power loss. Nothing is rewritten in place; forgetting appends a
tombstone (`{"kind": "forget", "target": id}`) and readers blank the text of forgotten
exchanges from then on.

Readers resume by byte offset: `read_from(offset)` yields each record with the offset of
its line and the offset just after it (`end`), which is what the distiller stores as its
cursor. A crash can leave a torn last line; on open it is terminated with a newline so
the next append starts clean, and readers skip any unparsable line with a warning
instead of failing, so start-up is never blocked. A reader that meets a line still
being written (no newline yet) stops before it, without a warning.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import anyio

from homeagent.clock import Clock
from homeagent.log import get_logger
from homeagent.text import scrub_surrogates

log = get_logger("homeagent.memory.textlog")

FORMAT_VERSION = 1


@dataclass(frozen=True)
class TextRecord:
    id: str
    kind: Literal["exchange", "forget"]
    at: datetime
    offset: int  # byte offset of the record's line
    end: int  # byte offset just after it: where a reader resumes
    user: str = ""
    assistant: str = ""
    turn_id: str = ""
    channel: str = ""
    device_id: str = ""
    member: str = ""
    target: str = ""  # for "forget": the id of the forgotten exchange
    forgotten: bool = False  # an exchange whose text was forgotten (text blanked)
    meta: Mapping[str, Any] = field(default_factory=dict)


class TextMemory:
    """Append-only JSONL log of exchanges in the data dir."""

    def __init__(self, path: Path, *, clock: Clock):
        self.path = Path(path)
        self.clock = clock
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._forgotten: set[str] = set()

    # -- lifecycle --------------------------------------------------------------------

    async def __aenter__(self) -> TextMemory:
        await anyio.to_thread.run_sync(self.open)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await anyio.to_thread.run_sync(self.close)

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        if created:
            # The new file's directory entry must be durable too, not only its bytes.
            dir_fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            log.warning("memory.textlog.torn_line", path=str(self.path), offset=size)
            os.write(fd, b"\n")
            os.fsync(fd)
        self._fd = fd
        self._forgotten = self._scan_tombstones()

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def _scan_tombstones(self) -> set[str]:
        # Tombstones are rare; a byte scan for their marker avoids parsing every line.
        found: set[str] = set()
        with open(self.path, "rb") as fh:
            for line in fh:
                if b'"forget"' in line:
                    record = self._parse(line, 0)
                    if record is not None and record.kind == "forget":
                        found.add(record.target)
        return found

    # -- writes -----------------------------------------------------------------------

    async def append(self, user: str, assistant: str, **fields: Any) -> TextRecord:
        return await anyio.to_thread.run_sync(lambda: self.append_sync(user, assistant, **fields))

    def append_sync(
        self,
        user: str,
        assistant: str,
        *,
        turn_id: str = "",
        channel: str = "",
        device_id: str = "",
        member: str = "",
        meta: Mapping[str, Any] | None = None,
        at: datetime | None = None,
    ) -> TextRecord:
        """Append one exchange; returns once it is on disk (flushed and fsync'd)."""
        return self._write({
            "kind": "exchange", "user": user, "assistant": assistant, "turn_id": turn_id,
            "channel": channel, "device_id": device_id, "member": member,
            "meta": dict(meta or {}),
        }, at)  # fmt: skip

    async def forget(self, record_id: str, reason: str = "") -> TextRecord:
        return await anyio.to_thread.run_sync(self.forget_sync, record_id, reason)

    def forget_sync(self, record_id: str, reason: str = "") -> TextRecord:
        """Append a tombstone: readers no longer see the text of `record_id`."""
        record = self._write({"kind": "forget", "target": record_id, "meta": {"reason": reason}}, None)
        self._forgotten.add(record_id)
        return record

    def _write(self, body: dict[str, Any], at: datetime | None) -> TextRecord:
        when = at or self.clock.now()
        payload = {"v": FORMAT_VERSION, "id": uuid.uuid4().hex, "at": when.isoformat(), **body}
        # A lone surrogate (a model's glitch) would make the line unencodable: U+FFFD instead.
        line = (scrub_surrogates(json.dumps(payload, ensure_ascii=False, separators=(",", ":"))) + "\n").encode()
        with self._lock:
            if self._fd is None:
                raise RuntimeError("the text log is not open")
            offset = os.lseek(self._fd, 0, os.SEEK_END)
            # One write call for the whole line: O_APPEND keeps concurrent writers whole.
            written = os.write(self._fd, line)
            while written < len(line):
                written += os.write(self._fd, line[written:])
            os.fsync(self._fd)
        record = self._parse(line, offset)
        assert record is not None
        return record

    # -- reads ------------------------------------------------------------------------

    def read_from(self, offset: int = 0) -> Iterator[TextRecord]:
        """Records from byte `offset` on, each with its own offset and `end`."""
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        with open(self.path, "rb") as fh:
            fh.seek(offset)
            position = offset
            for line in fh:
                if not line.endswith(b"\n"):
                    return  # still being written: resume here next time
                record = self._parse(line, position)
                position += len(line)
                if record is None:
                    if line.strip():
                        log.warning(
                            "memory.textlog.bad_line", path=str(self.path), offset=position - len(line)
                        )
                    continue
                yield record

    def exchanges(self, offset: int = 0) -> Iterator[TextRecord]:
        """Exchanges that are not forgotten, from `offset` on."""
        for record in self.read_from(offset):
            if record.kind == "exchange" and not record.forgotten:
                yield record

    def size(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    def _parse(self, line: bytes, offset: int) -> TextRecord | None:
        try:
            data = json.loads(line)
            kind = data["kind"]
            if kind not in ("exchange", "forget"):
                return None
            at = datetime.fromisoformat(data["at"])
            record_id = str(data["id"])
        except (ValueError, KeyError, TypeError):
            return None
        forgotten = kind == "exchange" and record_id in self._forgotten
        meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
        return TextRecord(
            id=record_id,
            kind=kind,
            at=at,
            offset=offset,
            end=offset + len(line),
            user="" if forgotten else str(data.get("user", "")),
            assistant="" if forgotten else str(data.get("assistant", "")),
            turn_id=str(data.get("turn_id", "")),
            channel=str(data.get("channel", "")),
            device_id=str(data.get("device_id", "")),
            member=str(data.get("member", "")),
            target=str(data.get("target", "")),
            forgotten=forgotten,
            meta={} if forgotten else meta,
        )
