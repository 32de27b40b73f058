"""What the HTTP API needs from the rest of the house, named and typed.

`app.py` builds one `ApiDeps` from the pieces it opened; `create_web_app` puts each
field under its own typed `web.AppKey` (homeagent/api/keys.py), and a route reads only
the keys it uses. The API never sees the composition root, and writes nothing back into
it: the port it bound goes back to the caller through `task_status.started(port)`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from homeagent.agent.conversation import Conversation, StoredMessage
from homeagent.agent.core import AgentStats
from homeagent.agent.runs import RunHub
from homeagent.config import APIConfig
from homeagent.io.agent_chat import AgentChatChannel
from homeagent.io.interrupt import Inbox
from homeagent.io.openai import OpenAIChannel
from homeagent.io.registry import DeviceRegistry
from homeagent.io.runs import RunsChannel
from homeagent.knowledge import KnowledgeBase
from homeagent.llm.base import Provider
from homeagent.members import MemberStore
from homeagent.store import Database
from homeagent.tools.permissions import PermissionBroker
from homeagent.tools.registry import ToolRegistry


@dataclass
class Health:
    """The daemon's liveness, owned by the API (`GET /healthz`) and read by the app."""

    started_at: float
    serving: bool = False
    port: int = 0
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

    def channels(self) -> tuple[OpenAIChannel, AgentChatChannel, RunsChannel]:
        """The channels the HTTP server carries; registered while it serves."""
        return (self.openai, self.agent_chat, self.run_channel)
