"""Knowledge base: scan, chunk, index, watch, search and extend knowledge/<topic>/ files."""

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
from homeagent.knowledge.watch import KnowledgeWatcher, watching

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
