"""Fixtures shared by the unit tests."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.cli.tools import catalog
from homeagent.clock import FakeClock
from homeagent.intent import IntentLayer
from homeagent.intent.training import all_templates

# The intent tests' fixed now: a Wednesday morning in the home's timezone.
INTENT_NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.fixture(scope="session")
def layer() -> IntentLayer:
    """The intent layer on the real registry's actions, trained as the daemon trains it
    (no database, nothing is run)."""
    made = IntentLayer(catalog(), clock=FakeClock(INTENT_NOW))
    made.train_sync()
    return made


@pytest.fixture(scope="session")
def filler() -> IntentLayer:
    """The intent layer for argument filling alone: `fill` reads the registry's schemas and
    the templates, so the classifier is not trained."""
    made = IntentLayer(catalog(), clock=FakeClock(INTENT_NOW))
    made.templates = all_templates(made._action_defs())
    return made


def plain(value: object) -> object:
    """A value as the bench grades it: a leading article is not a difference."""
    return re.sub(r"^(?:the|a|an)\s+", "", value, flags=re.I) if isinstance(value, str) else value


def has_args(got: dict, expected: dict) -> bool:
    """Whether `got` holds each expected argument, graded as `plain` does."""
    return {k: plain(got.get(k)) for k in expected} == {k: plain(v) for k, v in expected.items()}
