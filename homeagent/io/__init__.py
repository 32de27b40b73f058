"""The channel layer: every input becomes an Interrupt on the agent's inbox.

The core (exported here): `Interrupt`, `Inbox`, `ReplyHandle`, the `Channel` protocol and
its `Capabilities`, the `DeviceRegistry`; reply events in `homeagent.io.events`. The
adapters, one module each, build their own interrupts with their own capabilities:
`openai` (/v1/chat/completions), `agent_chat` (/api/chat), `runs` (/api/agent/runs),
`console` (chat --local), `wyoming` (Home Assistant's voice protocol, satellites) and
`speech` (/api/voice). A new channel is a new adapter here; the agent is not touched.
"""

from homeagent.io.channel import STREAM_ONLY, Capabilities, Channel, OutboundMessage
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle, ask, new_turn_id
from homeagent.io.registry import DeviceRegistry

__all__ = [
    "STREAM_ONLY", "Capabilities", "Channel", "DeviceRegistry", "Inbox", "Interrupt",
    "OutboundMessage", "ReplyHandle", "ask", "new_turn_id",
]
