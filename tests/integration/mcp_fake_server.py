"""A small MCP server for the tests, run over stdio: `python mcp_fake_server.py`.

Tools: `add` (two integers), `slow` (sleeps, for killing the server mid-call), `whoami`
(its pid, so a test can kill it), `read_env` (the value of one variable, to show which
secrets reach a plugin), and `Weird Name!` (a name to clean).
"""

from __future__ import annotations

import os
import time

from mcp.server.fastmcp import FastMCP

server = FastMCP("fake")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def slow(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "slept"


@server.tool()
def whoami() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool()
def read_env(name: str) -> str:
    """One environment variable of the server process."""
    return os.environ.get(name, "<unset>")


@server.tool(name="Weird Name!")
def weird() -> str:
    """A tool whose name must be cleaned."""
    return "weird"


if __name__ == "__main__":
    server.run("stdio")
