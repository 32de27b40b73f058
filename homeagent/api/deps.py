"""What the HTTP API needs from the rest of the house, named and typed.

`app.py` builds one `ApiDeps` from the pieces it opened; `create_web_app` puts each
field under its own typed `web.AppKey` (homeagent/api/keys.py), and a route reads only
the keys it uses. The API never sees the composition root, and writes nothing back into
it: the port it bound goes back to the caller through `task_status.started(port)`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from homeagent.agent.conversation import Conversation, StoredMessage
from homeagent.agent.core import AgentStats
from homeagent.agent.runs import RunHub
from homeagent.api.web_deps import WebDeps
from homeagent.config import APIConfig
from homeagent.ext.changes import ChangeTracker
from homeagent.io.agent_chat import AgentChatChannel
from homeagent.io.channel import Channel
from homeagent.io.interrupt import Inbox
from homeagent.io.ollama import OllamaChannel
from homeagent.io.openai import OpenAIChannel
from homeagent.io.push import PushChannel
from homeagent.io.registry import DeviceRegistry
from homeagent.io.runs import RunsChannel
from homeagent.io.speech import SpeechChannel
from homeagent.knowledge import KnowledgeBase
from homeagent.llm.base import Provider
from homeagent.members import MemberStore
from homeagent.schedule import Scheduler
from homeagent.store import Database
from homeagent.store.health import WriterHealth
from homeagent.tools.permissions import PermissionBroker
from homeagent.tools.registry import ToolRegistry
from homeagent.voice import VoiceService


@dataclass
class Health:
    """The daemon's liveness, owned by the API (`GET /healthz`) and read by the app."""

    started_at: float
    serving: bool = False
    port: int = 0
    # More blocks of /healthz by name (e.g. "home_assistant"), each read when asked.
    sections: dict[str, Callable[[], dict[str, Any]]] = field(default_factory=dict)
    engine: str = "warming"  # warming | ready: the engine's stable prefix is primed


@dataclass(frozen=True)
class ApiDeps:
    settings: APIConfig
    max_upload_bytes: int
    health: Health
    provider: Provider
    db: Database
    agent_stats: Callable[[], AgentStats]
    inbox: Inbox
    tools: ToolRegistry
    devices: DeviceRegistry
    members: MemberStore
    runs: RunHub
    broker: PermissionBroker
    conversation: Conversation
    forget_message: Callable[[StoredMessage], Awaitable[dict[str, int]]]
    knowledge: KnowledgeBase
    openai: OpenAIChannel
    agent_chat: AgentChatChannel
    run_channel: RunsChannel
    ollama: OllamaChannel
    # Extensions: the change tracker (GET /api/changes) and the health of supervised parts.
    changes: ChangeTracker | None = None
    subsystems: Callable[[], dict[str, dict[str, Any]]] | None = None
    # The browser dashboard (homeagent/api/web.py); None serves no dashboard.
    web: WebDeps | None = None
    # GET /api/events (homeagent/api/push.py): the push channel and its keepalive interval.
    push: PushChannel | None = None
    push_keepalive: float = 15.0
    # /api/reminders (homeagent/api/reminders.py).
    scheduler: Scheduler | None = None
    # Speech (the voice routes); None: the routes answer 503 naming the missing extra.
    voice: VoiceService | None = None
    speech: SpeechChannel | None = None
    # Background writers besides the run recorder (text log, audit), shown in /healthz.
    writers: tuple[WriterHealth, ...] = ()

    def channels(self) -> tuple[Channel, ...]:
        """The channels the HTTP server carries; registered while it serves."""
        browser = (self.web.browser,) if self.web is not None else ()
        return (self.openai, self.agent_chat, self.run_channel, self.ollama, *browser)
