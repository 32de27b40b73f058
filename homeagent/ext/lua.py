"""Device adapters in Lua (lupa): a folder with `adapter.yaml` and a script.

The manifest names the adapter, the hosts its script may reach and its tools (name,
description, JSON Schema, permission class, the Lua function to call). Tools join the
registry as `<adapter>__<tool>`.

The sandbox. The script runs in its own Lua state with only `string` (without `dump`),
`table`, `math`, `utf8` and the plain base functions; there is no `io`, `os`, `require`,
`package`, `debug`, `load`/`loadfile`/`dofile` (so no bytecode either), `coroutine`,
`pcall` or `collectgarbage`, and no Python object exposes an attribute. Each call has an
instruction budget (a count hook set outside the script's reach) and the state a memory
limit (lupa's allocator); going over either stops the call with an error result, as does
any Lua error. A call runs in a worker thread, one at a time per adapter.

The host API, all the script gets:
    http.get(url), http.post(url, body)  → {status = 200, body = "…"}; only to the
                                           manifest's hosts, no redirects followed
    json.decode(text), json.encode(value)
    state.get(key), state.set(key, value)  a small store kept in <data_dir>/adapters/<name>.state.json
    log(message)                           one structured log line
    host                                   the manifest's first host
    mqtt.publish(topic, payload[, qos, retain])  → true; only to topics matching the manifest's
                                           `mqtt_topics` filters, only when `adapters.mqtt.host`
                                           is set; a table payload is sent as JSON

A script or manifest that changes on disk is loaded again before the next call.
"""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import yaml

from homeagent.errors import ToolError
from homeagent.ext.mqtt import (
    MAX_PAYLOAD_BYTES,
    MqttPublisher,
    check_filter,
    check_topic,
    topic_allowed,
)
from homeagent.log import get_logger
from homeagent.tools.registry import Permission, ToolContext, ToolRegistry, ToolSpec

log = get_logger("homeagent.ext.lua")

MANIFEST = "adapter.yaml"
MAX_SCRIPT_BYTES = 256_000
MAX_BODY_BYTES = 1_000_000
_HOOK_EVERY = 1000

# Run once in a fresh state, before the script: strips the globals and keeps the count
# hook in a local the script cannot reach.
_PRELUDE = """
local sethook, pack, unpack, pcall_ = debug.sethook, table.pack, table.unpack, pcall
local keep = {
  assert=true, error=true, ipairs=true, next=true, pairs=true, select=true, tonumber=true,
  tostring=true, type=true, rawequal=true, rawlen=true, rawget=true, rawset=true,
  setmetatable=true, getmetatable=true, string=true, table=true, math=true, utf8=true,
  _G=true, _VERSION=true,
}
for name in pairs(_G) do
  if not keep[name] then _G[name] = nil end
end
string.dump = nil
math.randomseed = nil
local calls = {}
function calls.run(fn, budget, args)
  local used = 0
  sethook(function()
    used = used + HOOK_EVERY
    if used > budget then error("instruction budget exceeded", 0) end
  end, "", HOOK_EVERY)
  local result = pack(pcall_(fn, args))
  sethook()
  return unpack(result, 1, result.n)
end
return calls
""".replace("HOOK_EVERY", str(_HOOK_EVERY))


class AdapterError(ValueError):
    """A manifest or script that cannot be used; the message names the file and why."""


@dataclass(frozen=True)
class AdapterTool:
    name: str
    description: str
    parameters: Mapping[str, Any]
    permission: Permission
    function: str
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class Manifest:
    name: str
    description: str
    script: Path
    hosts: tuple[str, ...]
    tools: tuple[AdapterTool, ...]
    mqtt_topics: tuple[str, ...] = ()


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST
    where = str(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise AdapterError(f"{where}: cannot be read: {err}") from err
    if not isinstance(raw, dict):
        raise AdapterError(f"{where}: expected a mapping of keys")
    name = raw.get("name")
    if name != folder.name:
        raise AdapterError(f"{where}: name must be the folder's name {folder.name!r}, got {name!r}")
    script_name = raw.get("script", "adapter.lua")
    script = (folder / str(script_name)).resolve()
    if script.parent != folder.resolve() or not script.is_file():
        raise AdapterError(f"{where}: script {script_name!r} must be a file in the adapter's folder")
    hosts = raw.get("hosts") or []
    if not isinstance(hosts, list) or not all(isinstance(h, str) and h and "/" not in h for h in hosts):
        raise AdapterError(f"{where}: hosts must be a list of host or host:port strings")
    mqtt_topics = raw.get("mqtt_topics") or []
    if not isinstance(mqtt_topics, list) or not all(isinstance(t, str) for t in mqtt_topics):
        raise AdapterError(f"{where}: mqtt_topics must be a list of MQTT topic filters such as home/plug/#")
    for topic_filter in mqtt_topics:
        why = check_filter(topic_filter)
        if why:
            raise AdapterError(f"{where}: mqtt_topics: {topic_filter!r} {why}")
    tools = []
    for i, entry in enumerate(raw.get("tools") or []):
        at = f"{where}: tools[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise AdapterError(f"{at}: each tool needs a name")
        params = entry.get("parameters") or {"type": "object", "properties": {}}
        import jsonschema  # here: off the daemon's start when there are no adapters

        try:
            jsonschema.Draft202012Validator.check_schema(params)
        except jsonschema.SchemaError as err:
            raise AdapterError(f"{at}: parameters is not a valid JSON Schema: {err.message}") from err
        try:
            permission = Permission(entry.get("permission", "write"))
        except ValueError as err:
            raise AdapterError(f"{at}: permission must be one of {', '.join(p.value for p in Permission)}") from err
        tools.append(AdapterTool(
            name=f"{folder.name}__{entry['name']}", description=str(entry.get("description", entry["name"])),
            parameters=params, permission=permission, function=str(entry.get("function", entry["name"])),
            examples=tuple(str(e) for e in entry.get("examples") or ()),
        ))
    if not tools:
        raise AdapterError(f"{where}: declares no tools")
    return Manifest(str(name), str(raw.get("description", "")), script, tuple(hosts), tuple(tools),
                    tuple(mqtt_topics))


def _to_lua(lua: Any, value: Any) -> Any:
    if isinstance(value, dict):
        return lua.table_from({k: _to_lua(lua, v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return lua.table_from([_to_lua(lua, v) for v in value])
    return value


def _from_lua(value: Any, depth: int = 0) -> Any:
    if depth > 20:
        raise ToolError("the adapter returned a value nested too deeply")
    if hasattr(value, "items") and type(value).__name__ == "_LuaTable":
        items = list(value.items())
        keys = [k for k, _ in items]
        if keys and all(isinstance(k, int) for k in keys) and sorted(keys) == list(range(1, len(keys) + 1)):
            return [_from_lua(v, depth + 1) for _, v in sorted(items, key=lambda kv: kv[0])]
        return {str(k): _from_lua(v, depth + 1) for k, v in items}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _deny_attributes(obj: Any, name: Any, is_setting: bool) -> Any:
    raise AttributeError("Python attributes are not reachable from an adapter")


@dataclass
class AdapterStatus:
    name: str
    state: str = "loading"  # ready | failed | unavailable
    tools: list[str] = field(default_factory=list)
    last_error: str = ""
    loads: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"state": self.state, "tools": list(self.tools), "last_error": self.last_error,
                "loads": self.loads}


class LuaAdapter:
    """One adapter: its Lua state, its tools in the registry, reloaded on file change."""

    def __init__(self, folder: Path, registry: ToolRegistry, state_dir: Path, *,
                 instruction_budget: int = 1_000_000, memory_limit_mb: int = 16, http_timeout: float = 5.0,
                 mqtt: MqttPublisher | None = None):
        self.folder = folder
        self.name = folder.name
        self.registry = registry
        self.state_path = state_dir / f"{self.name}.state.json"
        self.instruction_budget = instruction_budget
        self.memory_limit = memory_limit_mb * 1024 * 1024
        self.http_timeout = http_timeout
        self.mqtt = mqtt
        self.status = AdapterStatus(self.name)
        self._lock = threading.Lock()
        self._lua: Any = None
        self._calls: Any = None
        self._manifest: Manifest | None = None
        self._stamp: tuple[float, ...] = ()
        self._unregister: list[Callable[[], None]] = []

    # -- loading ----------------------------------------------------------------------------

    def _files_stamp(self) -> tuple[float, ...]:
        stamps = []
        for path in (self.folder / MANIFEST, self._manifest.script if self._manifest else None):
            try:
                stamps.append(path.stat().st_mtime_ns if path is not None else 0)
            except OSError:
                stamps.append(-1)
        return tuple(stamps)

    def load(self) -> None:
        """(Re)load manifest and script; on failure the adapter's tools are withdrawn."""
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> None:
        self._withdraw()
        self.status.loads += 1
        try:
            import lupa  # noqa: F401
        except ImportError:
            self.status.state, self.status.last_error = "unavailable", "the lupa package is not installed"
            return
        try:
            manifest = read_manifest(self.folder)
            self._manifest = manifest
            if manifest.script.stat().st_size > MAX_SCRIPT_BYTES:
                raise AdapterError(f"{manifest.script}: larger than {MAX_SCRIPT_BYTES} bytes")
            data = manifest.script.read_bytes()
            if data.startswith(b"\x1bLua"):
                raise AdapterError(f"{manifest.script}: precompiled Lua bytecode is not accepted")
            try:
                source = data.decode("utf-8")
            except UnicodeDecodeError as err:
                raise AdapterError(f"{manifest.script}: not UTF-8 text ({err})") from err
            self._lua, self._calls = self._new_state(manifest)
            self._run_budgeted(self._compile(source))
            for tool in manifest.tools:
                if self._lua.globals()[tool.function] is None:
                    raise AdapterError(f"{manifest.script}: no function {tool.function!r} for tool {tool.name}")
            for tool in manifest.tools:
                self._unregister.append(self.registry.register(ToolSpec(
                    name=tool.name, description=tool.description, parameters=tool.parameters,
                    executor=self._executor(tool), permission=tool.permission,
                    examples=tool.examples, category=f"adapter:{self.name}",
                )))
        except Exception as err:  # noqa: BLE001 - a broken adapter is reported, never the daemon's end
            self._withdraw()
            self.status.state, self.status.last_error = "failed", str(err)[:500]
            log.warning("ext.lua.load_failed", adapter=self.name, error=self.status.last_error)
        else:
            self.status.state, self.status.last_error = "ready", ""
            self.status.tools = [t.name for t in manifest.tools]
            log.info("ext.lua.loaded", adapter=self.name, tools=self.status.tools)
        finally:
            self._stamp = self._files_stamp()

    def _compile(self, source: str) -> Any:
        # `load` exists only here, in text mode: the script is never bytecode.
        loader = self._loader
        chunk = loader(source, f"={self.name}", "t")
        if chunk is None:
            raise AdapterError(f"{self.name}: the script does not compile")
        return chunk

    def _new_state(self, manifest: Manifest) -> tuple[Any, Any]:
        from lupa import LuaRuntime

        lua = LuaRuntime(register_eval=False, register_builtins=False, unpack_returned_tuples=True,
                         attribute_filter=_deny_attributes, max_memory=self.memory_limit)
        g = lua.globals()
        raw_load = g.load
        self._loader = lua.eval("function(load) return function(src, name, mode) "
                                "local f, err = load(src, name, mode, _G) if not f then error(err, 0) end "
                                "return f end end")(raw_load)
        calls = lua.execute(_PRELUDE)
        g.python = None
        hosts = manifest.hosts
        g.host = hosts[0] if hosts else ""
        g.http = _to_lua(lua, {})
        g.http.get = lambda url: self._http(lua, "GET", url, None)
        g.http.post = lambda url, body=None: self._http(lua, "POST", url, body)
        g.json = _to_lua(lua, {})
        g.json.decode = lambda text: _to_lua(lua, json.loads(str(text)))
        g.json.encode = lambda value: json.dumps(_from_lua(value), ensure_ascii=False)
        g.state = _to_lua(lua, {})
        g.state.get = lambda key: self._state_get(lua, key)
        g.state.set = lambda key, value: self._state_set(key, value)
        g.mqtt = _to_lua(lua, {})
        g.mqtt.publish = lambda topic, payload="", qos=0, retain=False: self._mqtt_publish(
            topic, payload, qos, retain)
        g.log = lambda message: log.info("ext.lua.script", adapter=self.name, message=str(message)[:500])
        return lua, calls

    def _run_budgeted(self, fn: Any, args: Any = None) -> Any:
        from lupa import LuaError, LuaMemoryError

        try:
            results = self._calls.run(fn, self.instruction_budget, args)
        except LuaMemoryError as err:
            raise ToolError(f"adapter {self.name} went over its memory limit "
                            f"({self.memory_limit // (1024 * 1024)} MB)") from err
        except LuaError as err:
            raise ToolError(f"adapter {self.name} failed: {err}") from err
        if not isinstance(results, tuple):
            results = (results,)
        ok, value = (results + (None, None))[:2]
        if not ok:
            message = str(value)
            if "not enough memory" in message:
                message = f"went over its memory limit ({self.memory_limit // (1024 * 1024)} MB)"
            raise ToolError(f"adapter {self.name}: {message}")
        return value

    def reload_if_changed_sync(self) -> bool:
        """Load again when the manifest or script changed on disk; True when it did."""
        with self._lock:
            if self.status.state == "stopped" or self._files_stamp() == self._stamp:
                return False
            log.info("ext.lua.reloading", adapter=self.name)
            self._load_locked()
            return True

    async def check(self) -> tuple[bool, str]:
        """The supervisor's probe: picks up file changes, reports whether the adapter is usable."""
        await anyio.to_thread.run_sync(self.reload_if_changed_sync)
        return self.status.state == "ready", self.status.last_error or f"{len(self.status.tools)} tool(s)"

    def unload(self) -> None:
        """Withdraw the adapter's tools and drop its Lua state (a config reload)."""
        with self._lock:
            self._withdraw()
            self._lua = None
            self.status.state = "stopped"

    def _withdraw(self) -> None:
        for unregister in self._unregister:
            unregister()
        self._unregister = []
        self.status.tools = []

    # -- calls ------------------------------------------------------------------------------

    def _executor(self, tool: AdapterTool) -> Callable[[ToolContext, dict[str, Any]], Any]:
        async def call(ctx: ToolContext, args: dict[str, Any]) -> Any:
            return await anyio.to_thread.run_sync(self.call_sync, tool.function, args)

        return call

    def call_sync(self, function: str, args: dict[str, Any]) -> Any:
        with self._lock:
            if self._files_stamp() != self._stamp:
                log.info("ext.lua.reloading", adapter=self.name)
                self._load_locked()
            if self.status.state != "ready" or self._lua is None:
                raise ToolError(f"adapter {self.name} is not loaded: {self.status.last_error}")
            fn = self._lua.globals()[function]
            if fn is None:
                raise ToolError(f"adapter {self.name} has no function {function!r} any more")
            started = time.monotonic()
            value = self._run_budgeted(fn, _to_lua(self._lua, args))
            log.info("ext.lua.call", adapter=self.name, function=function,
                     duration_ms=round((time.monotonic() - started) * 1000, 1))
            return _from_lua(value)

    # -- the host API -------------------------------------------------------------------------

    def _http(self, lua: Any, method: str, url: Any, body: Any) -> Any:
        manifest = self._manifest
        parts = urlsplit(str(url))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ToolError(f"http: {url!r} is not an http(s) URL")
        netloc = parts.netloc.rsplit("@", 1)[-1]
        allowed = manifest.hosts if manifest else ()
        if netloc not in allowed and parts.hostname not in allowed:
            raise ToolError(f"http: host {netloc!r} is not declared in the adapter's manifest")
        conn_cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(parts.hostname, parts.port, timeout=self.http_timeout)
        try:
            path = parts.path or "/"
            if parts.query:
                path += "?" + parts.query
            data = None if body is None else str(body).encode("utf-8")
            headers = {"Content-Type": "application/json"} if data is not None else {}
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            payload = response.read(MAX_BODY_BYTES + 1)
        except OSError as err:
            raise ToolError(f"http: {method} {netloc} failed: {err}") from err
        finally:
            conn.close()
        if len(payload) > MAX_BODY_BYTES:
            raise ToolError(f"http: the answer from {netloc} is larger than {MAX_BODY_BYTES} bytes")
        return _to_lua(lua, {"status": response.status, "body": payload.decode("utf-8", "replace")})

    def _mqtt_publish(self, topic: Any, payload: Any, qos: Any, retain: Any) -> bool:
        if not isinstance(topic, str):
            raise ToolError("mqtt.publish: the topic must be a string")
        why = check_topic(topic)
        if why:
            raise ToolError(f"mqtt.publish: {why}")
        filters = self._manifest.mqtt_topics if self._manifest else ()
        if not topic_allowed(topic, filters):
            raise ToolError(f"mqtt.publish: topic {topic!r} is not declared in the adapter's manifest "
                            f"(mqtt_topics: {list(filters)})")
        if qos not in (0, 1, 2) or isinstance(qos, bool):
            raise ToolError(f"mqtt.publish: qos must be 0, 1 or 2, got {qos!r}")
        if self.mqtt is None:
            raise ToolError("mqtt.publish: no MQTT broker is configured (adapters.mqtt.host is empty)")
        if isinstance(payload, str):
            data = payload.encode("utf-8")
        elif isinstance(payload, bytes):
            data = payload
        elif payload is None or isinstance(payload, bool | int | float):
            data = b"" if payload is None else json.dumps(payload).encode("utf-8")
        else:
            data = json.dumps(_from_lua(payload), ensure_ascii=False).encode("utf-8")
        if len(data) > MAX_PAYLOAD_BYTES:
            raise ToolError(f"mqtt.publish: the payload is larger than {MAX_PAYLOAD_BYTES} bytes")
        self.mqtt.publish(topic, data, qos=int(qos), retain=bool(retain))
        return True

    def _state(self) -> dict[str, Any]:
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _state_get(self, lua: Any, key: Any) -> Any:
        return _to_lua(lua, self._state().get(str(key)))

    def _state_set(self, key: Any, value: Any) -> None:
        data = self._state()
        data[str(key)] = _from_lua(value)
        text = json.dumps(data, ensure_ascii=False)
        if len(text) > 64_000:
            raise ToolError("state: the adapter's store is full (64 kB)")
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, self.state_path)


def adapter_folders(dirs: list[Path], enabled: tuple[str, ...]) -> list[Path]:
    """The enabled adapters' folders; a folder in a later dir (the data dir) wins."""
    found: dict[str, Path] = {}
    for root in dirs:
        for name in enabled:
            if (root / name / MANIFEST).is_file():
                found[name] = root / name
    return [found[name] for name in enabled if name in found]
