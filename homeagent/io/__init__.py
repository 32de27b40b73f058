"""The channel layer: every input becomes an Interrupt on the agent's inbox."""

from homeagent.io.channel import STREAM_ONLY, Capabilities, Channel, OutboundMessage
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle, ask, new_turn_id
from homeagent.io.registry import DeviceRegistry

__all__ = [
    "STREAM_ONLY", "Capabilities", "Channel", "DeviceRegistry", "Inbox", "Interrupt",
    "OutboundMessage", "ReplyHandle", "ask", "new_turn_id",
]
