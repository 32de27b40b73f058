"""What `homeagent serve` imports before its first answer: modules only some tools need
are imported when one is used, and the tools still check their arguments."""

from __future__ import annotations

import subprocess
import sys

import pytest

from homeagent.errors import ToolValidationError
from homeagent.tools.registry import ToolRegistry, ToolSpec


def test_the_daemon_imports_jsonschema_only_when_a_tool_is_checked():
    code = (
        "import sys, homeagent.app, homeagent.cli\n"
        "print('jsonschema' in sys.modules)\n"
        "from homeagent.tools.registry import ToolRegistry, ToolSpec\n"
        "async def run(ctx, args): return 'ok'\n"
        "r = ToolRegistry()\n"
        "r.register(ToolSpec('t', 'd', {'type': 'object'}, run), shipped=True)\n"
        "print('jsonschema' in sys.modules)\n"
        "r.validate('t', {})\n"
        "print('jsonschema' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["False", "False", "True"], out.stderr[-2000:]


async def _run(ctx, args):
    return "ok"


def test_a_tool_checks_its_arguments_against_its_schema_at_its_first_call():
    registry = ToolRegistry()
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    unregister = registry.register(ToolSpec("count", "counts", schema, _run), shipped=True)
    assert registry.validate("count", {"n": 3}) == {"n": 3}
    with pytest.raises(ToolValidationError, match="'n' is a required property"):
        registry.validate("count", {})
    with pytest.raises(ToolValidationError, match="n: 'x' is not of type 'integer'"):
        registry.validate("count", {"n": "x"})
    unregister()
    # A tool registered again under the name is checked against its own schema.
    registry.register(ToolSpec("count", "counts", {"type": "object", "properties": {"n": {"type": "string"}}}, _run))
    assert registry.validate("count", {"n": "x"}) == {"n": "x"}
    with pytest.raises(ValueError, match="invalid parameters schema"):
        registry.register(ToolSpec("bad", "b", {"type": "object", "properties": 5}, _run))
