"""Fixtures shared by the unit tests."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.cli.tools import catalog
from homeagent.clock import FakeClock
from homeagent.intent import IntentLayer

# The intent tests' fixed now: a Wednesday morning in the home's timezone.
INTENT_NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.fixture(scope="session")
def layer() -> IntentLayer:
    """The intent layer on the real registry's actions, trained as the daemon trains it
    (no database, nothing is run)."""
    made = IntentLayer(catalog(), clock=FakeClock(INTENT_NOW))
    made.train_sync()
    return made
