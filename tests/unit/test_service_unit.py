"""systemd/homeagent.service: systemd accepts it, and every place the daemon writes is
writable inside its sandbox (ProtectSystem=strict makes the rest of the system read-only)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "homeagent.service"


def directives() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in UNIT.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def environment() -> dict[str, str]:
    return dict(item.split("=", 1) for item in directives()["Environment"])


def writable() -> list[str]:
    unit = directives()
    paths = [p for value in unit.get("ReadWritePaths", []) for p in value.split()]
    paths += [f"/var/lib/{name}" for name in unit.get("StateDirectory", [])]
    paths += [f"/var/cache/{name}" for name in unit.get("CacheDirectory", [])]
    return paths


def within(path: str, roots: list[str]) -> bool:
    path = path.replace("%C", "/var/cache").replace("%S", "/var/lib")
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def test_the_daemon_writes_only_where_its_sandbox_lets_it():
    unit, env = directives(), environment()
    assert unit["ProtectSystem"] == ["strict"]
    roots = writable()
    assert within(env["HOMEAGENT_DATA_DIR"], roots), (env["HOMEAGENT_DATA_DIR"], roots)
    assert within("/opt/homeagent/knowledge", roots)
    # the bytecode Python compiles goes where it can be kept, not into the read-only tree
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert within(env["PYTHONPYCACHEPREFIX"], roots), (env["PYTHONPYCACHEPREFIX"], roots)
    assert not within(env["PYTHONPYCACHEPREFIX"], [unit["WorkingDirectory"][0]])


def test_systemd_accepts_the_unit(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (a machine without systemd)")
    # the installed command does not exist here: verify checks that it does
    text = UNIT.read_text(encoding="utf-8").replace(
        "/opt/homeagent/.venv/bin/homeagent", shutil.which("true") or "/bin/true")
    copy = tmp_path / "homeagent.service"
    copy.write_text(text, encoding="utf-8")
    out = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Unknown" not in out.stderr and "ignoring" not in out.stderr.lower(), out.stderr
