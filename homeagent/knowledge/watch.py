"""Watching the knowledge directory: file changes reach the index within seconds.

watchdog's observer thread only records which paths changed and hands them to the event
loop with `anyio.from_thread.run_sync`; the loop waits for a quiet spell (`debounce`
seconds without new events, at most `max_delay` after the first), so an editor's save
burst (temp file, rename, chmod) becomes one `KnowledgeBase.sync` of the touched paths.
A folder event (a topic folder created, moved in or deleted) syncs that whole folder.

Run it as a task in the app's task group (`await tg.start(watcher.run)`) or with
`async with watching(kb): ...`. A failing sync is logged and the watcher keeps going.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.abc import TaskStatus
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from homeagent.knowledge.base import KnowledgeBase
from homeagent.knowledge.files import TEXT_SUFFIXES
from homeagent.log import get_logger

log = get_logger("homeagent.knowledge.watch")


class _Handler(FileSystemEventHandler):
    """Runs in watchdog's thread: filter, then pass paths to the loop."""

    def __init__(self, watcher: KnowledgeWatcher, token: anyio.lowlevel.EventLoopToken):
        self._watcher = watcher
        self._token = token

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.is_directory and event.event_type == "modified":
            return  # the files inside report their own changes
        paths = [os.fsdecode(event.src_path)]
        if getattr(event, "dest_path", ""):
            paths.append(os.fsdecode(event.dest_path))
        relevant = [
            Path(p) for p in paths if event.is_directory or Path(p).suffix.lower() in TEXT_SUFFIXES
        ]
        if not relevant:
            return
        try:
            anyio.from_thread.run_sync(self._watcher.notify, relevant, token=self._token)
        except RuntimeError:
            # The loop is shutting down: nothing left to index for.
            pass


class KnowledgeWatcher:
    def __init__(
        self,
        kb: KnowledgeBase,
        *,
        debounce: float = 0.5,
        max_delay: float = 5.0,
        poll_interval: float = 2.0,
    ):
        self.kb = kb
        self.poll_interval = poll_interval
        self.debounce = debounce
        self.max_delay = max_delay
        self.syncs = 0  # completed syncs (for health and tests)
        self._pending: set[Path] = set()
        self._wake = anyio.Event()

    def notify(self, paths: list[Path]) -> None:
        """Record changed paths; called on the event loop thread."""
        self._pending.update(paths)
        self._wake.set()

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Watch until cancelled. Reports started once the observer is running."""
        handler = _Handler(self, anyio.lowlevel.current_token())
        observer = await anyio.to_thread.run_sync(self._start_observer, handler)
        try:
            # Changes made between the last sync and the observer's start would be missed.
            await self._sync(None)
            task_status.started()
            while True:
                await self._wake.wait()
                await self._settle()
                paths, self._pending = self._pending, set()
                self._wake = anyio.Event()
                await self._sync(paths)
        finally:
            with anyio.CancelScope(shield=True):
                observer.stop()
                await anyio.to_thread.run_sync(observer.join, 5.0)
                log.info("knowledge.watch.stopped")

    def _start_observer(self, handler: _Handler) -> BaseObserver:
        root = str(self.kb.root)
        observer: BaseObserver = Observer()
        try:
            observer.schedule(handler, root, recursive=True)
            observer.start()
        except OSError as err:
            # inotify can run out of watches on a big tree or be missing in a container;
            # polling is slower but still keeps the index current.
            log.warning("knowledge.watch.polling", root=root, error=str(err))
            observer = PollingObserver(timeout=self.poll_interval)
            observer.schedule(handler, root, recursive=True)
            observer.start()
        log.info("knowledge.watch.started", root=root, observer=type(observer).__name__)
        return observer

    async def _settle(self) -> None:
        """Wait until no new event arrived for `debounce` s, or `max_delay` s passed."""
        deadline = anyio.current_time() + self.max_delay
        while True:
            remaining = deadline - anyio.current_time()
            if remaining <= 0:
                return
            self._wake = anyio.Event()
            with anyio.move_on_after(min(self.debounce, remaining)):
                await self._wake.wait()
            if not self._wake.is_set():
                return

    async def _sync(self, paths: set[Path] | None) -> None:
        try:
            await self.kb.sync(sorted(paths) if paths is not None else None)
        except Exception as err:  # noqa: BLE001 - a bad sync must not stop the watcher
            log.warning("knowledge.watch.sync_failed", error=f"{type(err).__name__}: {err}")
        self.syncs += 1


@asynccontextmanager
async def watching(kb: KnowledgeBase, **kwargs: Any) -> AsyncIterator[KnowledgeWatcher]:
    """Watch `kb`'s directory for the duration of the block."""
    watcher = KnowledgeWatcher(kb, **kwargs)
    async with anyio.create_task_group() as tg:
        await tg.start(watcher.run)
        try:
            yield watcher
        finally:
            tg.cancel_scope.cancel()
