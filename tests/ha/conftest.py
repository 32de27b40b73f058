"""The real Home Assistant the tests in this folder run against (one per session).

It is built by `make ha-venv` (tests/ha/setup_ha_venv.sh; cached under
~/.cache/homeagent/ha-<version>, HOMEAGENT_HA_VENV overrides), started headless on a free
loopback port with a generated configuration, onboarded through its HTTP API, and stopped
at the end of the session. Install and start times are printed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ha.harness import HomeAssistantProcess, ensure_venv


@pytest.fixture(scope="session")
def home_assistant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HomeAssistantProcess]:
    began = time.monotonic()
    ensure_venv()
    installed = time.monotonic() - began
    ha = HomeAssistantProcess(Path(tmp_path_factory.mktemp("home-assistant")))
    try:
        seconds = ha.start()
        asyncio.run(ha.onboard())
        asyncio.run(ha.furnish())
        print(f"\nhome assistant: venv ready in {installed:.1f} s, started in {seconds:.1f} s on {ha.url}")
        yield ha
    finally:
        ha.stop()
