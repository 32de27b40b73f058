"""Scanning the knowledge directory: which files changed since they were indexed.

A `Scanner` walks the folders it is pointed at (the whole directory, or the paths the
watcher reported), compares each knowledge file with what was indexed (size and mtime
first, then the SHA-256 of its bytes) and returns a `Plan`: files to re-chunk, files whose
mtime alone changed, files to drop, files skipped and why. It reads files but writes
nothing; the knowledge base commits the plan. Runs in a worker thread.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from homeagent.knowledge.chunker import Chunk, chunk_markdown
from homeagent.knowledge.files import BadFile, is_knowledge_file, read_text
from homeagent.log import get_logger

log = get_logger("homeagent.knowledge")


@dataclass(frozen=True)
class Known:
    sha256: str
    size: int
    mtime: float


@dataclass(frozen=True)
class Update:
    path: str
    topic: str
    sha256: str
    size: int
    mtime: float
    chunks: list[Chunk]


@dataclass
class Plan:
    updates: list[Update] = field(default_factory=list)
    touches: list[tuple[str, int, float]] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unchanged: int = 0


class Scanner:
    def __init__(self, root: Path, *, max_file_bytes: int, chunk_tokens: int):
        self.root = root
        self.max_file_bytes = max_file_bytes
        self.chunk_tokens = chunk_tokens
        # Files already warned about, by (size, mtime): a bad file is reported once,
        # not on every watcher event.
        self._warned: dict[str, tuple[int, float]] = {}

    def rel(self, path: Path) -> str | None:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(self.root))
        if rel == ".":
            return ""
        if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
            return None
        return Path(rel).as_posix()

    def _walk(self, folder: Path, found: dict[str, Path]) -> None:
        for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                self._consider(Path(dirpath) / name, found)

    def _consider(self, path: Path, found: dict[str, Path]) -> None:
        rel = self.rel(path)
        if not rel:
            return
        if is_knowledge_file(Path(rel)):
            found[rel] = path
        elif "/" not in rel and is_knowledge_file(Path("topic") / rel):
            self._warn_once(rel, path, "outside any topic folder; move it into knowledge/<topic>/")

    def _warn_once(self, rel: str, path: Path, reason: str) -> bool:
        try:
            st = path.stat()
            key = (st.st_size, st.st_mtime)
        except OSError:
            key = (-1, -1.0)
        if self._warned.get(rel) == key:
            return False
        self._warned[rel] = key
        log.warning("knowledge.file.skipped", path=rel, reason=reason)
        return True

    def plan(self, targets: list[Path], known: dict[str, Known]) -> Plan:
        scopes: list[str] = []
        found: dict[str, Path] = {}
        for target in targets:
            rel = self.rel(target)
            if rel is None:
                continue
            scopes.append(rel)
            if target.is_dir():
                self._walk(target, found)
            elif target.is_file():
                self._consider(target, found)
        plan = Plan()
        for rel in known:
            if rel not in found and any(
                s == "" or rel == s or rel.startswith(s + "/") for s in scopes
            ):
                plan.deletes.append(rel)
        for rel, path in sorted(found.items()):
            old = known.get(rel)
            try:
                st = path.stat()
            except OSError:
                if old is not None:
                    plan.deletes.append(rel)
                continue
            if not stat.S_ISREG(st.st_mode):
                # A FIFO or device named *.md would block the reader forever.
                reason = f"{path.name} is not a regular file"
                plan.skipped.append((rel, reason))
                self._warn_once(rel, path, reason)
                if old is not None:
                    plan.deletes.append(rel)
                continue
            if old is not None and old.size == st.st_size and old.mtime == st.st_mtime:
                plan.unchanged += 1
                continue
            try:
                text, data = read_text(path, max_bytes=self.max_file_bytes)
            except BadFile as err:
                plan.skipped.append((rel, str(err)))
                self._warn_once(rel, path, str(err))
                if old is not None:
                    plan.deletes.append(rel)
                continue
            self._warned.pop(rel, None)
            digest = hashlib.sha256(data).hexdigest()
            if old is not None and old.sha256 == digest:
                plan.touches.append((rel, st.st_size, st.st_mtime))
                plan.unchanged += 1
                continue
            chunks = chunk_markdown(text, max_tokens=self.chunk_tokens)
            plan.updates.append(
                Update(rel, rel.split("/", 1)[0], digest, st.st_size, st.st_mtime, chunks)
            )
        return plan
