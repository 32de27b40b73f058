"""The Ollama-protocol route (`/ollama/api/chat`) as a channel: how Home Assistant's
built-in Ollama integration talks to HomeAgent as its conversation agent.

Home Assistant sends its own tools (its intents: `HassTurnOn`, `GetLiveContext`, …) with
every request and runs them itself, so every turn here is a client-tools turn
(homeagent/io/client_tools.py): a call to one of them ends the response with
`message.tool_calls`, and Home Assistant's next request, carrying the `tool` results,
resumes the same turn. Like the OpenAI endpoint, the client cannot answer a permission
request mid-answer (a confirm-class tool of HomeAgent's own is refused here) and hears
only answers to its own requests. The HTTP route (homeagent/api/ollama.py) parses the
wire format; this adapter turns it into the turn's interrupt.
"""

from __future__ import annotations

from homeagent.chat import ToolDef
from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.io.client_tools import ClientToolBroker, ClientTurn
from homeagent.io.ha_intents import compact_context, enrich, is_home_assistant, readable_result
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle
from homeagent.io.registry import DeviceRegistry

OLLAMA_CAPABILITIES = Capabilities(streams=True, confirms=False, receives_unasked=False)


class OllamaChannel:
    name = "ollama"
    capabilities = OLLAMA_CAPABILITIES

    def __init__(self, inbox: Inbox, devices: DeviceRegistry, *, client_tool_timeout: float = 30.0) -> None:
        self._inbox = inbox
        self._devices = devices
        self.client_tools = ClientToolBroker(client_tool_timeout)

    async def deliver(self, message: OutboundMessage) -> bool:
        return False  # a client of this API only hears the answers to its own requests

    async def client_turn(
        self, text: str, tools: tuple[ToolDef, ...], *, device_id: str, context: str = "", member: str = ""
    ) -> ClientTurn:
        """A turn offering the client's `tools` beside the agent's own."""
        await self._devices.touch(self.name, device_id)
        tools = enrich(tools, text, context)
        home_assistant = is_home_assistant(tools)
        if home_assistant:
            context = compact_context(context)
        template = Interrupt(
            text=text, channel=self.name, reply=ReplyHandle(), device_id=device_id, member=member,
            context=context, capabilities=self.capabilities,
        )
        # Home Assistant's intents learn the values its device overview offers.
        return await self.client_tools.open(self._inbox, template, tools, readable_result if home_assistant else None)
