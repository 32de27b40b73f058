"""Run `homeagent serve` as a real subprocess on a free port with a temp data dir."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import write_config


@dataclass
class Daemon:
    proc: subprocess.Popen
    url: str
    config: Path
    stderr_path: Path
    env: dict[str, str]

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def cli(self, *args: str, input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "homeagent", *args],
            input=input, capture_output=True, text=True, timeout=timeout, env=self.env,
        )

    def stop(self, timeout: float = 10) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=timeout)


def base_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOMEAGENT_", "NOTIFY_SOCKET", "WATCHDOG_"))}
    env["HOMEAGENT_DATA_DIR"] = str(tmp_path / "data")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def start_daemon(tmp_path: Path, env: dict[str, str] | None = None, wait: bool = True, **sections) -> Daemon:
    config = write_config(tmp_path, **sections)
    env = env or base_env(tmp_path)
    stderr_path = tmp_path / "daemon.stderr"
    with open(stderr_path, "wb") as stderr:  # the child keeps its own descriptor
        proc = subprocess.Popen(
            [sys.executable, "-m", "homeagent", "serve", "--config", str(config)],
            stdout=subprocess.DEVNULL, stderr=stderr, env=env,
        )
    import yaml

    listen = yaml.safe_load(config.read_text())["daemon"]["listen_addr"]
    daemon = Daemon(proc, f"http://{listen}", config, stderr_path, env)
    if wait:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"daemon exited with {proc.returncode}: {daemon.stderr[-2000:]}")
            try:
                with urllib.request.urlopen(daemon.url + "/healthz", timeout=2) as resp:
                    if resp.status == 200 and json.load(resp)["status"] in ("ok", "degraded"):
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        else:
            proc.kill()
            raise AssertionError("daemon did not become healthy in 120 s")
    return daemon


@pytest.fixture
def daemon_factory(tmp_path):
    started: list[Daemon] = []

    def factory(**sections) -> Daemon:
        d = start_daemon(tmp_path, **sections)
        started.append(d)
        return d

    yield factory
    for d in started:
        if d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait(timeout=10)
