"""The channel layer: every input becomes an Interrupt on the agent's inbox."""

from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle, ask, new_turn_id
from homeagent.io.registry import Channel, DeviceRegistry

__all__ = ["Channel", "DeviceRegistry", "Inbox", "Interrupt", "ReplyHandle", "ask", "new_turn_id"]
