"""Plugins: stdio MCP servers (the `mcp` package, 1.x API) whose tools join the registry.

Each configured server runs as its own process, supervised by one `McpPlugin`:

    start → initialize → list tools → register `<plugin>__<tool>` → ping every
    `ping_interval` … the process dies or stops answering → withdraw its tools →
    wait (backoff doubling from `restart_initial` to `restart_max`) → start again

Tool names: MCP tool names are free-form, and the registry's names (and OpenAI-style
function names) allow no dots, so `<plugin>.<tool>` is written `<plugin>__<tool>`,
the tool part lower-cased with every other character turned into `_`. A tool whose
input schema is not valid JSON Schema (or not an object schema) is refused at load and
logged; arguments are validated against it by the registry before each call, and each
call has the plugin's `timeout`. A call to a server that dies mid-call ends as an error
result the model reads; the turn goes on.

The environment of a plugin process is the mcp package's safe default (HOME, PATH, USER,
SHELL, TERM, LOGNAME) plus exactly the variable names the config declares; nothing else
of the daemon's environment (API keys) reaches it.

What a plugin tool may do is the permission policy's: `<plugin>__*` is `confirm` unless
the config grants more (`plugins.servers.<name>.grant`).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import anyio

from homeagent.config import PluginConfig
from homeagent.errors import ToolError
from homeagent.log import get_logger
from homeagent.tools.registry import Permission, ToolContext, ToolRegistry, ToolSpec

log = get_logger("homeagent.ext.mcp")

_UNSAFE_RE = re.compile(r"[^a-z0-9_]+")


def tool_name(plugin: str, tool: str) -> str | None:
    """`<plugin>__<tool>` in the registry's alphabet, or None when nothing usable is left."""
    cleaned = _UNSAFE_RE.sub("_", tool.lower()).strip("_")
    name = f"{plugin}__{cleaned}"
    if not cleaned or len(name) > 64 or not cleaned[0].isalpha():
        return None
    return name


def mcp_available() -> bool:
    try:
        import mcp  # noqa: F401
    except ImportError:
        return False
    return True


def plugin_environment(cfg: PluginConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The declared variables that are set; the mcp package adds its safe defaults."""
    return {name: environ[name] for name in cfg.env if name in environ}


def _permission_of(cfg: PluginConfig) -> Permission:
    # The tool's class shown to people and audits: the strongest the plugin declares.
    order = ["secrets", "delete", "network", "write", "read"]
    for perm in order:
        if perm in cfg.permissions:
            return Permission(perm)
    return Permission.NETWORK


@dataclass
class PluginStatus:
    name: str
    state: str = "starting"  # starting | ready | down | unavailable
    tools: list[str] = field(default_factory=list)
    restarts: int = 0
    last_error: str = ""
    since: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return {"state": self.state, "tools": list(self.tools), "restarts": self.restarts,
                "last_error": self.last_error, "since": round(self.since, 3)}


class McpPlugin:
    """One stdio MCP server, kept running; its tools are in the registry while it is up."""

    def __init__(
        self,
        name: str,
        cfg: PluginConfig,
        registry: ToolRegistry,
        *,
        restart_initial: float = 1.0,
        restart_max: float = 60.0,
        ping_interval: float = 5.0,
        environ: Mapping[str, str] | None = None,
    ):
        self.name = name
        self.cfg = cfg
        self.registry = registry
        self.restart_initial = restart_initial
        self.restart_max = restart_max
        self.ping_interval = ping_interval
        self.environ = os.environ if environ is None else environ
        self.status = PluginStatus(name)
        self._session: Any = None
        self._lost = anyio.Event()
        self._unregister: list[Callable[[], None]] = []
        self._probed: list[str] = []
        self.ready = anyio.Event()  # set each time the tools are registered

    # -- the supervising loop ----------------------------------------------------------------

    async def run(self) -> None:
        """Keep the server running until cancelled."""
        if not mcp_available():
            self._set("unavailable", "the mcp package is not installed (pip install 'homeagent[ext]')")
            await anyio.sleep_forever()
        delay = self.restart_initial
        while True:
            started = time.monotonic()
            try:
                await self._session_once()
            except Exception as err:  # noqa: BLE001 - a plugin's failure is its own, never the daemon's
                self._set("down", _describe(err))
                log.warning("ext.mcp.down", plugin=self.name, error=self.status.last_error)
            finally:
                self._withdraw()
            if time.monotonic() - started > 4 * delay:
                delay = self.restart_initial  # it ran a good while: start over from the short wait
            log.info("ext.mcp.restart_scheduled", plugin=self.name, in_s=delay)
            await anyio.sleep(delay)
            delay = min(delay * 2, self.restart_max)
            self.status.restarts += 1

    async def _session_once(self, probe: bool = False) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(
            command=self.cfg.command, args=list(self.cfg.args),
            env=plugin_environment(self.cfg, self.environ) or None,
        )
        self._set("starting", "")
        self._lost = anyio.Event()
        # A plugin's stderr is not our log; opening /dev/null does not block.
        with open(os.devnull, "w") as errlog:  # noqa: ASYNC230
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                # Starting an interpreter and importing a server takes a while on a small box.
                with anyio.fail_after(max(self.cfg.timeout, 30)):
                    await session.initialize()
                    listed = await session.list_tools()
                self._session = session
                try:
                    self._register(listed.tools)
                    self._set("ready", "")
                    log.info("ext.mcp.ready", plugin=self.name, tools=self.status.tools)
                    self.ready.set()
                    if probe:
                        self._probed = list(self.status.tools)
                        return
                    await self._watch(session)
                finally:
                    self._session = None
                    self._withdraw()
        self._set("down", self.status.last_error or "the server stopped")

    async def probe(self) -> list[str]:
        """Start the server, list its tools, stop it (`homeagent doctor --probe`)."""
        await self._session_once(probe=True)
        return self._probed

    async def _watch(self, session: Any) -> None:
        """Return when the server is gone: a failed call saw it, or a ping went unanswered."""
        while not self._lost.is_set():
            with anyio.move_on_after(self.ping_interval):
                await self._lost.wait()
            if self._lost.is_set():
                break
            try:
                with anyio.fail_after(max(2.0, min(self.cfg.timeout, 10.0))):
                    await session.send_ping()
            except Exception as err:  # noqa: BLE001 - an unanswered ping means the server is gone
                self.status.last_error = f"ping failed: {_describe(err)}"
                return
        self.status.last_error = self.status.last_error or "the server stopped during a call"

    # -- tools ---------------------------------------------------------------------------

    def _register(self, tools: list[Any]) -> None:
        import jsonschema  # here: off the daemon's start

        names = []
        for tool in tools:
            name = tool_name(self.name, str(tool.name))
            if name is None:
                log.warning("ext.mcp.tool_refused", plugin=self.name, tool=str(tool.name), reason="unusable name")
                continue
            schema = dict(tool.inputSchema or {"type": "object"})
            try:
                jsonschema.Draft202012Validator.check_schema(schema)
                if schema.get("type") != "object":
                    raise ValueError("the input schema must have type object")
                spec = ToolSpec(
                    name=name, description=(tool.description or f"{tool.name} (plugin {self.name})")[:1000],
                    parameters=schema, executor=self._executor(str(tool.name)),
                    permission=_permission_of(self.cfg), timeout=self.cfg.timeout + 1.0,
                    category=f"plugin:{self.name}",
                )
                self._unregister.append(self.registry.register(spec))
            except (jsonschema.SchemaError, ValueError) as err:
                log.warning("ext.mcp.tool_refused", plugin=self.name, tool=str(tool.name),
                            reason=getattr(err, "message", str(err)))
                continue
            names.append(name)
        self.status.tools = names

    def _withdraw(self) -> None:
        for unregister in self._unregister:
            unregister()
        if self._unregister:
            log.info("ext.mcp.tools_withdrawn", plugin=self.name, tools=len(self._unregister))
        self._unregister = []
        self.status.tools = []
        self.ready = anyio.Event()

    def _executor(self, remote: str) -> Callable[[ToolContext, dict[str, Any]], Any]:
        async def call(ctx: ToolContext, args: dict[str, Any]) -> str:
            session = self._session
            if session is None:
                raise ToolError(f"plugin {self.name} is not running just now (it is being restarted)")
            try:
                with anyio.fail_after(self.cfg.timeout):
                    result = await session.call_tool(
                        remote, args, read_timeout_seconds=timedelta(seconds=self.cfg.timeout)
                    )
            except TimeoutError as err:
                raise ToolError(f"plugin {self.name} did not answer {remote} within {self.cfg.timeout:g} s") from err
            except Exception as err:  # noqa: BLE001 - the server failed or went away mid-call
                detail = _describe(err)
                if "closed" in detail.lower() or isinstance(err, anyio.ClosedResourceError | anyio.BrokenResourceError):
                    self.status.last_error = f"connection lost during {remote}"
                    self._lost.set()
                raise ToolError(f"plugin {self.name} failed on {remote}: {detail}") from err
            text = _content_text(result)
            if getattr(result, "isError", False):
                raise ToolError(f"plugin {self.name} reported an error from {remote}: {text}")
            return text

        return call

    def _set(self, state: str, error: str) -> None:
        if state != self.status.state:
            self.status.since = time.time()
        self.status.state = state
        if error:
            self.status.last_error = error


def _content_text(result: Any) -> str:
    parts = []
    structured = getattr(result, "structuredContent", None)
    for item in getattr(result, "content", None) or []:
        text = getattr(item, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(item, 'type', 'content')}]")
    if not parts and structured is not None:
        import json

        return json.dumps(structured, ensure_ascii=False, default=str)
    return "\n".join(parts)


def _describe(err: BaseException) -> str:
    if isinstance(err, BaseExceptionGroup) and err.exceptions:
        return _describe(err.exceptions[0])
    message = str(err) or type(err).__name__
    error = getattr(err, "error", None)
    if error is not None and getattr(error, "message", None):
        message = str(error.message)
    return f"{type(err).__name__}: {message}"[:300]


class PluginHost:
    """Every configured plugin; `run()` keeps them all going, `status()` is for /healthz."""

    def __init__(self, plugins: list[McpPlugin]):
        self.plugins = plugins

    async def run(self) -> None:
        async with anyio.create_task_group() as tg:
            for plugin in self.plugins:
                tg.start_soon(plugin.run)

    def status(self) -> dict[str, dict[str, Any]]:
        return {p.name: p.status.as_dict() for p in self.plugins}
