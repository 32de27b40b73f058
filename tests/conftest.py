"""Shared fixtures: the anyio backend, configs on temp data dirs, free ports."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from homeagent.config import Config, load_config

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _knowledge_copy(tmp_path: Path) -> Path:
    """The preset knowledge, copied so a test's uploads never touch the repository."""
    import shutil

    target = tmp_path / "knowledge"
    if not target.exists():
        shutil.copytree(REPO / "knowledge", target)
    return target


def write_config(tmp_path: Path, text: str = "", **sections: dict) -> Path:
    """A config file in tmp_path using the repo's personal.md and a temp data dir."""
    import yaml

    raw: dict = {
        "daemon": {"data_dir": str(tmp_path / "data"), "listen_addr": f"127.0.0.1:{free_port()}"},
        "agent": {"personality_file": str(REPO / "personal.md")},
        "knowledge": {"dir": str(_knowledge_copy(tmp_path))},
        "log": {"level": "info", "format": "json"},
    }
    # The shipped config answers household commands in the intent layer, before the
    # model; tests script the model's replies, so here it is off unless a test asks
    # for it (actions={"intent": True}, as tests/integration/test_intent*.py do).
    raw["actions"] = {"intent": False}
    # Memory ranks lexically in tests unless one asks for dense retrieval (memory.dense:
    # on, as tests/integration/test_dense_memory.py does): embedding every document of
    # every test's daemon would only slow the suite down.
    raw["memory"] = {"dense": "off"}
    for name, values in sections.items():
        raw.setdefault(name, {}).update(values)
    path = tmp_path / "homeagent.yaml"
    path.write_text(text or yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    return path


@pytest.fixture
def make_config(tmp_path: Path):
    def make(**sections: dict) -> Config:
        return load_config(write_config(tmp_path, **sections), env={})

    return make


PYTHON = sys.executable
