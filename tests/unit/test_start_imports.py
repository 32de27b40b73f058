"""What `homeagent serve` imports before its first answer: modules only some tools or
settings need are imported when one is used (jsonschema, rich, the distiller, the
Wyoming protocol, watchdog), and each still works then."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from homeagent.errors import ToolValidationError
from homeagent.tools.registry import ToolRegistry, ToolSpec
from tests.conftest import write_config

# A fresh interpreter imports what `homeagent serve` imports, then runs a test's code;
# `app(path)` opens the daemon on a config file with a scripted model.
_PRELUDE = """
import sys, anyio, homeagent.app, homeagent.cli
from homeagent.config import load_config
from homeagent.llm.testing import ScriptedProvider
from homeagent.log import configure_logging
configure_logging("warning", "json")  # on stderr: stdout is the test's

def app(path):
    return homeagent.app.App(load_config(path, env={}), provider=ScriptedProvider())

def loaded(name):
    print(name in sys.modules)
"""


def _fresh(code: str, *args: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", _PRELUDE + code, *args], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.split()


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


def test_the_daemon_never_imports_rich_and_its_console_still_shows_a_redacted_traceback():
    code = (
        "import io, logging\n"
        "from homeagent.log import configure_logging, get_logger\n"
        "loaded('rich')\n"
        "out = io.StringIO()\n"
        "configure_logging('info', 'console', stream=out)\n"
        "try:\n"
        "    raise ValueError('upstream said token=abcd1234efgh')\n"
        "except ValueError:\n"
        "    get_logger('t').exception('turn.failed', api_key='sk-abcdefghijkl')\n"
        "    logging.getLogger('aiohttp.server').exception('handler failed')\n"
        "text = out.getvalue()\n"
        "print(text.count('Traceback (most recent call last)'), text.count('token=[REDACTED]'),\n"
        "      'abcd1234' in text or 'sk-abcdefghijkl' in text, 'turn.failed' in text and 'handler failed' in text)\n"
        "loaded('rich')\n"
    )
    assert _fresh(code) == ["False", "2", "2", "False", "True", "False"]


def test_the_distiller_is_imported_at_the_first_heartbeat_and_distills(tmp_path: Path):
    code = (
        "async def main():\n"
        "    async with app(sys.argv[1]) as a:\n"
        "        await a.memory.textlog.append('我有一只猫叫咪咪，我住在北京。', '好的，记住了。', turn_id='t1')\n"
        "        loaded('homeagent.memory.distiller')\n"
        "        report = await a.heartbeat()\n"
        "        loaded('homeagent.memory.distiller')\n"
        "        print(report.records_distilled, report.facts_new > 0, list(report.errors))\n"
        "anyio.run(main)\n"
    )
    assert _fresh(code, str(write_config(tmp_path))) == ["False", "True", "1", "True", "[]"]


_RUN = (
    "async def served(path, show):\n"
    "    async with app(path) as a, anyio.create_task_group() as tg:\n"
    "        ready = anyio.Event()\n"
    "        tg.start_soon(lambda: a.run(http=False, on_ready=ready.set))\n"
    "        await ready.wait()\n"
    "        show(a)\n"
    "        tg.cancel_scope.cancel()\n"
)


def test_the_wyoming_protocol_is_imported_only_when_its_channel_is_enabled(tmp_path: Path):
    off = write_config(tmp_path / "off")
    on = write_config(tmp_path / "on", io={"wyoming": {"enabled": True, "host": "127.0.0.1", "port": 0}})
    code = _RUN + (
        "async def main():\n"
        "    await served(sys.argv[1], lambda a: print(a.wyoming is None))\n"
        "    loaded('homeagent.io.wyoming')\n"
        "    loaded('wyoming')\n"
        "    await served(sys.argv[2], lambda a: print(a.wyoming.port > 0, a.devices.channel('wyoming') is a.wyoming))\n"
        "    loaded('wyoming')\n"
        "anyio.run(main)\n"
    )
    assert _fresh(code, str(off), str(on)) == ["True", "False", "False", "True", "True", "True"]


def test_watchdog_is_imported_only_by_a_daemon_that_watches_the_knowledge_folder(tmp_path: Path):
    off = write_config(tmp_path / "off", knowledge={"watch": False})
    on = write_config(tmp_path / "on", knowledge={"watch": True})
    code = _RUN + (
        "async def main():\n"
        "    await served(sys.argv[1], lambda a: print('knowledge_watcher' in a.subsystems()))\n"
        "    loaded('watchdog')\n"
        "    await served(sys.argv[2], lambda a: print(a.subsystems()['knowledge_watcher']['state']))\n"
        "    loaded('watchdog')\n"
        "    from homeagent.knowledge import KnowledgeWatcher, watching\n"
        "    print(KnowledgeWatcher.__module__, callable(watching))\n"
        "anyio.run(main)\n"
    )
    assert _fresh(code, str(off), str(on)) == [
        "False", "False", "ready", "True", "homeagent.knowledge.watch", "True"]


@pytest.mark.llama
def test_the_engine_begins_to_load_before_the_daemon_imports_its_http_client(tmp_path: Path):
    """`homeagent serve` preloads right after it binds its port: nothing on that path
    imports aiohttp or the provider factory (a quarter of a second before the load)."""
    code = (
        "import sys, homeagent.cli\n"
        "from homeagent.config import load_config\n"
        "from homeagent.llm.specs import preload_local\n"
        "homeagent.cli.configure_logging('warning', 'json')\n"
        "engines = preload_local(load_config(sys.argv[1], env={}))\n"
        "print('aiohttp' in sys.modules, 'homeagent.llm.factory' in sys.modules, sorted(engines))\n"
        "engines['llama_cpp'].preloaded()\n"
        "print(engines['llama_cpp'].status().state)\n"
    )
    path = write_config(tmp_path, llm={"provider": "llama_cpp", "n_ctx": 512})
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["False", "False", "['llama_cpp']", "ready"]


_DATES = (
    "from datetime import datetime, timezone\n"
    "from homeagent.actions import dates\n"
    "now = datetime(2026, 12, 3, 9, 30, tzinfo=timezone.utc)\n"
    "def read(text):\n"
    "    try:\n"
    "        return dates.parse_when(text, now).value.isoformat()\n"
    "    except dates.DateError:\n"
    "        return 'unreadable'\n"
)


def test_dates_read_the_same_after_dateparser_was_preloaded_in_its_thread():
    phrases = ["March 3rd", "a week ago", "3 weeks from now on March 3rd", "the day after tomorrow at noon",
               "5 days ago", "上个月的", "Friday 6pm EST", "明天下午3点"]
    code = _DATES + "import threading, sys\n{}print([read(p) for p in sys.argv[1:]])\n"
    preload = ("dates.preload()\n"
               "print([t.name for t in threading.enumerate() if t.name == 'dateparser-preload'])\n"
               "dates._preloading.join()\n"
               "print('dateparser' in sys.modules)\n")
    runs = [subprocess.run([sys.executable, "-c", code.format(first), *phrases], capture_output=True,
                           text=True, timeout=120, check=False) for first in ("", preload)]
    assert all(run.returncode == 0 for run in runs), runs[1].stderr[-3000:]
    plain, preloaded = runs[0].stdout.splitlines(), runs[1].stdout.splitlines()
    assert preloaded[:2] == ["['dateparser-preload']", "True"]
    assert preloaded[2] == plain[0] and plain[0].count("unreadable") < len(phrases) / 2, plain
