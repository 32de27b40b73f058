"""HomeAgent as an MCP server over stdio (`homeagent mcp`): memory search, knowledge search
and the life actions, for an MCP client such as a desktop assistant.

Every call goes through the same path as a turn's tool calls (`execute_guarded`): the
registry validates the arguments, the household's permission policy decides, the audit
log records it. The MCP client cannot be asked to confirm, so a `confirm`-class tool
(deleting, secrets) is refused with the policy's message, as on any channel that cannot
confirm. Calls run as channel `mcp` with no member: private records stay private.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from typing import Any

from homeagent.chat import ToolCall
from homeagent.log import get_logger
from homeagent.tools.audit import AuditLog
from homeagent.tools.permissions import PermissionGate, execute_guarded
from homeagent.tools.registry import ToolContext, ToolRegistry, ToolSpec

log = get_logger("homeagent.ext.mcp_server")

SEARCH_TOOLS = ("memory_recall", "doc_query", "knowledge_search", "knowledge_list")


def offered(registry: ToolRegistry) -> list[ToolSpec]:
    """Memory and knowledge search, and every life action (never plugins or adapters:
    one plugin does not reach another's tools through us)."""
    out = []
    for spec in registry:
        if spec.name in SEARCH_TOOLS or spec.category and not spec.category.startswith(("plugin:", "adapter:")) and "__" not in spec.name:
            out.append(spec)
    return out


def build_server(registry: ToolRegistry, gate: PermissionGate | None, audit: AuditLog | None,
                 specs: Iterable[ToolSpec] | None = None) -> Any:
    import mcp.types as types
    from mcp.server.lowlevel import Server

    from homeagent import __version__

    chosen = {s.name: s for s in (offered(registry) if specs is None else specs)}
    server: Any = Server("homeagent", version=__version__)

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name=s.name, description=s.description, inputSchema=dict(s.parameters))
                for s in chosen.values()]

    # Our registry validates, with messages naming the field; the package's check would
    # answer first with its own.
    @server.call_tool(validate_input=False)
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if name not in chosen:
            return types.CallToolResult(content=[types.TextContent(type="text", text=f"error: unknown tool {name!r}")],
                                        isError=True)
        call = ToolCall(id=f"mcp_{secrets.token_hex(6)}", name=name, arguments=json.dumps(arguments, ensure_ascii=False))
        ctx = ToolContext(turn_id=call.id, channel="mcp")
        result = await execute_guarded(registry, call, ctx, gate=gate, audit=audit, confirmer=None)
        log.info("ext.mcp_server.call", tool=name, ok=result.ok)
        return types.CallToolResult(content=[types.TextContent(type="text", text=result.content)],
                                    isError=not result.ok)

    return server


async def run_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
