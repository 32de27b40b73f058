"""Extensions: what a household adds to HomeAgent without changing its code.

    skills.py       SKILL.md folders: instructions that join the prompt for the messages
                    they are relevant to, reaching only the tools they declare
    mcp_client.py   plugins: stdio MCP servers whose tools join the registry as
                    `<plugin>__<tool>`, supervised and restarted with backoff
    mcp_server.py   HomeAgent itself as an MCP server (`homeagent mcp`)
    lua.py          device adapters in a Lua sandbox (lupa), with a small host API
    changes.py      the change tracker: every file the agent writes, versioned first
    supervisor.py   subsystem health checks and restarts with backoff

Optional packages (`mcp`, `lupa`: the `ext` extra) are imported only where used, so the
daemon starts without them and reports the missing part as unhealthy.
"""
