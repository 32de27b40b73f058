"""Reading a request's client-side tools (OpenAI's and Ollama's function format alike).

`{"type": "function", "function": {"name", "description", "parameters"}}` becomes a
`ToolDef` the turn offers beside the agent's own tools (homeagent/io/client_tools.py).
A name that is one of HomeAgent's own tools, a duplicate, or a malformed entry is a 400
naming the entry.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Any

from homeagent.chat import ToolDef
from homeagent.errors import RequestError

_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
MAX_CLIENT_TOOLS = 128


def parse_client_tools(raw: Any, own: Container[str], *, param: str = "tools") -> tuple[ToolDef, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise RequestError(f"{param}: expected a list of tool objects", param=param)
    if len(raw) > MAX_CLIENT_TOOLS:
        raise RequestError(f"{param}: at most {MAX_CLIENT_TOOLS} tools, got {len(raw)}", param=param)
    out: list[ToolDef] = []
    seen: set[str] = set()
    for i, tool in enumerate(raw):
        where = f"{param}[{i}]"
        if not isinstance(tool, dict):
            raise RequestError(f"{where}: expected a tool object", param=param)
        kind = tool.get("type", "function")
        if kind != "function":
            raise RequestError(f"{where}.type: only 'function' tools are supported, got {kind!r}", param=param)
        function = tool.get("function")
        if not isinstance(function, dict):
            raise RequestError(f"{where}.function: expected an object with a name", param=param)
        name = function.get("name")
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise RequestError(
                f"{where}.function.name: expected 1 to 64 letters, digits, '_', '.' or '-', got {name!r}",
                param=param,
            )
        if name in own:
            raise RequestError(f"{where}.function.name: {name!r} is one of HomeAgent's own tools; rename it", param=param)
        if name in seen:
            raise RequestError(f"{where}.function.name: {name!r} appears twice", param=param)
        seen.add(name)
        description = function.get("description") or ""
        if not isinstance(description, str):
            raise RequestError(f"{where}.function.description: expected a string", param=param)
        parameters = function.get("parameters")
        if parameters is None:
            parameters = {"type": "object", "properties": {}}
        if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
            raise RequestError(f"{where}.function.parameters: expected a JSON Schema of type object", param=param)
        properties = parameters.get("properties") or {}
        if not isinstance(properties, dict):
            raise RequestError(f"{where}.function.parameters.properties: expected an object", param=param)
        out.append(ToolDef(name, description, {**parameters, "type": "object", "properties": properties}))
    return tuple(out)
