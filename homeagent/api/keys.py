"""Typed application keys: one per dependency a route needs (see homeagent/api/deps.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from homeagent.agent.conversation import Conversation, StoredMessage
from homeagent.agent.core import AgentStats
from homeagent.agent.runs import RunHub
from homeagent.api.deps import Health
from homeagent.io.agent_chat import AgentChatChannel
from homeagent.io.interrupt import Inbox
from homeagent.io.openai import OpenAIChannel
from homeagent.io.registry import DeviceRegistry
from homeagent.io.runs import RunsChannel
from homeagent.llm.base import Provider
from homeagent.store import Database
from homeagent.store.health import WriterHealth
from homeagent.tools.permissions import PermissionBroker
from homeagent.tools.registry import ToolRegistry

Forget = Callable[[StoredMessage], Awaitable[dict[str, int]]]
StatsSource = Callable[[], AgentStats]

HEALTH = web.AppKey("homeagent.health", Health)
MAX_BODY_BYTES = web.AppKey("homeagent.max_body_bytes", int)
# A protocol is no concrete class for AppKey's type argument; the annotation carries it.
PROVIDER: web.AppKey[Provider] = web.AppKey("homeagent.provider")
DB = web.AppKey("homeagent.db", Database)
AGENT_STATS: web.AppKey[StatsSource] = web.AppKey("homeagent.agent_stats")
INBOX = web.AppKey("homeagent.inbox", Inbox)
TOOLS = web.AppKey("homeagent.tools", ToolRegistry)
DEVICES = web.AppKey("homeagent.devices", DeviceRegistry)
RUNS = web.AppKey("homeagent.runs", RunHub)
BROKER = web.AppKey("homeagent.broker", PermissionBroker)
CONVERSATION = web.AppKey("homeagent.conversation", Conversation)
FORGET: web.AppKey[Forget] = web.AppKey("homeagent.forget_message")
OPENAI_CHANNEL = web.AppKey("homeagent.channel.openai", OpenAIChannel)
AGENT_CHAT_CHANNEL = web.AppKey("homeagent.channel.agent_chat", AgentChatChannel)
RUNS_CHANNEL = web.AppKey("homeagent.channel.runs", RunsChannel)
WRITERS: web.AppKey[tuple[WriterHealth, ...]] = web.AppKey("homeagent.writers")
