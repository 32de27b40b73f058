"""Knowledge base: scan, chunk, index, watch, search and extend knowledge/<topic>/ files.

The watcher (`KnowledgeWatcher`, `watching`) is imported at its first use: watchdog is
not needed by a daemon that does not watch (`knowledge.watch: false`)."""

from typing import TYPE_CHECKING, Any

from homeagent.knowledge.base import (
    KnowledgeBase,
    KnowledgeHit,
    SavedFile,
    SyncReport,
    TopicInfo,
)
from homeagent.knowledge.files import BadFile, NameTaken, NotText, TooLarge
from homeagent.knowledge.schema import MIGRATIONS
from homeagent.knowledge.tools import knowledge_tools

if TYPE_CHECKING:
    from homeagent.knowledge.watch import KnowledgeWatcher, watching


def __getattr__(name: str) -> Any:
    if name in ("KnowledgeWatcher", "watching"):
        from homeagent.knowledge import watch

        return getattr(watch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MIGRATIONS",
    "BadFile",
    "KnowledgeBase",
    "KnowledgeHit",
    "KnowledgeWatcher",
    "NameTaken",
    "NotText",
    "SavedFile",
    "SyncReport",
    "TooLarge",
    "TopicInfo",
    "knowledge_tools",
    "watching",
]
