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

from homeagent.io.channel import Capabilities
from homeagent.io.client_tools import ClientToolChannel

OLLAMA_CAPABILITIES = Capabilities(streams=True, confirms=False, receives_unasked=False)


class OllamaChannel(ClientToolChannel):
    name = "ollama"
    capabilities = OLLAMA_CAPABILITIES
