"""What the dashboard's routes need, named and typed, under one key of their own.

`app.py` builds one `WebDeps`; `setup_web(web_app, deps)` (homeagent/api/web.py) puts it
under `WEB` and adds the static files and the dashboard's routes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from homeagent.io.browser import BrowserChannel
from homeagent.llm.base import Provider
from homeagent.llm.usage import UsageMeter
from homeagent.members import MemberStore
from homeagent.memory.context import RelevanceContext
from homeagent.memory.documents import DocumentStore
from homeagent.memory.graph import GraphDB
from homeagent.tools.audit import AuditLog
from homeagent.tools.permissions import PermissionBroker, PermissionGate
from homeagent.tools.registry import ToolRegistry


@dataclass(frozen=True)
class WebDeps:
    tools: ToolRegistry
    gate: PermissionGate
    audit: AuditLog
    broker: PermissionBroker
    browser: BrowserChannel
    members: MemberStore
    graph: GraphDB
    documents: DocumentStore
    context: RelevanceContext
    provider: Provider
    usage: UsageMeter
    # The last heartbeats, oldest first: {"at": epoch seconds, **HeartbeatReport.counts()}.
    heartbeats: Callable[[], Sequence[dict[str, Any]]]
    # The running configuration with secrets masked (the admin token's settings view).
    settings: Callable[[], dict[str, Any]]


WEB = web.AppKey("homeagent.web", WebDeps)
