"""Install the Python requirements of the Home Assistant integrations the tests configure.

Run with the Home Assistant venv's interpreter: ``python ha_requirements.py VENV CONSTRAINTS``.
It walks each integration's manifest (``dependencies`` and ``after_dependencies``) and pip
installs every ``requirements`` entry under Home Assistant's own constraints, so Home Assistant
can start with ``--skip-pip`` and never installs anything while a test runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# The integrations the generated configuration loads (tests/ha/harness.py writes it).
INTEGRATIONS = (
    "homeassistant", "http", "api", "auth", "onboarding", "websocket_api", "config",
    "conversation", "ollama", "openai_conversation", "input_boolean", "input_number",
    "template", "light", "switch", "lock", "cover", "climate", "sensor", "scene", "script",
    "generic_thermostat", "media_player", "intent", "logger", "person", "system_log",
    "shopping_list", "todo", "universal",
)


def manifests(components: Path, names: tuple[str, ...]) -> dict[str, dict]:
    found: dict[str, dict] = {}
    pending = list(names)
    while pending:
        name = pending.pop()
        if name in found:
            continue
        path = components / name / "manifest.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        found[name] = data
        pending.extend(data.get("dependencies", []))
        pending.extend(data.get("after_dependencies", []))
    return found


def main() -> int:
    venv, constraints = Path(sys.argv[1]), sys.argv[2]
    import homeassistant.components as comps
    from homeassistant import bootstrap

    components = Path(comps.__file__).parent
    # Home Assistant always sets these up (the frontend among them: without it, it starts
    # in recovery mode), whatever the configuration says.
    always = (*bootstrap.DEFAULT_INTEGRATIONS, *bootstrap.CORE_INTEGRATIONS,
              *bootstrap.LOGGING_AND_HTTP_DEPS_INTEGRATIONS)
    reqs: set[str] = set()
    for data in manifests(components, (*INTEGRATIONS, *always)).values():
        reqs.update(data.get("requirements", []))
    print(f"ha-venv: {len(reqs)} integration requirements", flush=True)
    if not reqs:
        return 0
    cmd = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check",
           "install", "--quiet", "-c", constraints, *sorted(reqs)]
    return subprocess.call(cmd)


if __name__ == "__main__":
    raise SystemExit(main())
