"""Files and secrets at rest: private modes, redacted secrets, a corrupt or lost database."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from homeagent.app import App
from homeagent.errors import StartupError
from homeagent.llm.echo import EchoProvider
from homeagent.schema import all_migrations
from homeagent.store import Database

from .helpers import running_app, turn

pytestmark = pytest.mark.anyio

SECRET_KEY = "sk-live1234567890abcdef"
SECRET_PASSWORD = "hunter2-garden"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _loosen(data: Path) -> None:
    """A data dir and database as an older HomeAgent left them: 0755 and 0644."""
    data.mkdir(parents=True)
    data.chmod(0o755)
    (data / "homeagent.db").touch(mode=0o644)
    (data / "homeagent.db").chmod(0o644)


def _garbage_in_the_middle(db: Path) -> None:
    size = db.stat().st_size
    with open(db, "r+b") as fh:
        fh.seek(size // 2)
        fh.write(os.urandom(8192))


async def test_data_dir_is_0700_and_its_files_0600(make_config):
    config = make_config()
    data = Path(config.data_dir)
    _loosen(data)
    async with running_app(config, provider=EchoProvider()) as app:
        await turn(app, "hello there")
        assert mode(data) == 0o700
        for name in ("homeagent.db", "homeagent.db-wal", "memory.jsonl"):
            assert mode(data / name) == 0o600, name


async def test_secrets_typed_are_redacted_everywhere_they_are_stored(make_config):
    config = make_config()
    async with running_app(config, provider=EchoProvider()) as app:
        await turn(app, f"my key is {SECRET_KEY} and password: {SECRET_PASSWORD} 记住")
        stored = [r["content"] for r in await app.db.fetchall("SELECT content FROM messages")]
        stored += [r["content"] for r in await app.db.fetchall("SELECT content FROM memory_context")]
        stored += [r["input"] + r["output"] for r in await app.db.fetchall("SELECT input, output FROM runs")]
    stored.append((Path(config.data_dir) / "memory.jsonl").read_text(encoding="utf-8"))
    assert len(stored) >= 4
    for text in stored:
        assert SECRET_KEY not in text and SECRET_PASSWORD not in text, text
    assert any("[REDACTED]" in t and "记住" in t for t in stored)


async def test_corrupt_database_is_moved_aside_refused_then_rebuilt(make_config):
    config = make_config()
    async with running_app(config, provider=EchoProvider()) as app:
        for i in range(30):
            await turn(app, f"exchange number {i} about the garden " + "词" * 200)
    db = Path(config.data_dir) / "homeagent.db"
    _garbage_in_the_middle(db)
    # The CLI's tools refuse it too, and leave it where it is for the daemon or a restore.
    with pytest.raises(StartupError, match="corrupt"):
        async with Database(db, all_migrations()):
            pass
    assert db.exists()
    with pytest.raises(StartupError) as info:
        async with App(config, provider=EchoProvider()):
            pass
    message = str(info.value)
    assert "corrupt" in message and "moved aside" in message and "memory.jsonl" in message
    assert not db.exists()
    assert list(db.parent.glob("homeagent.db.corrupt-*"))
    # The next start rebuilds the conversation from memory.jsonl.
    async with running_app(config, provider=EchoProvider()) as app:
        rows = await app.db.fetchall("SELECT content FROM messages WHERE role = 'user' ORDER BY id")
        assert [r["content"] for r in rows][:2] == [f"exchange number {i} about the garden " + "词" * 200 for i in (0, 1)]
        assert len(rows) == 30
        assert await app.db.fetchall("SELECT 1 FROM memory_context")
        assert await app.db.check() == "ok"


async def test_zero_length_database_is_rebuilt_from_the_text_log(make_config):
    config = make_config()
    async with running_app(config, provider=EchoProvider()) as app:
        await turn(app, "remember the blue door")
    db = Path(config.data_dir) / "homeagent.db"
    for p in db.parent.glob("homeagent.db*"):
        p.unlink()
    db.write_bytes(b"")
    lines = (Path(config.data_dir) / "memory.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["user"] == "remember the blue door"
    async with running_app(config, provider=EchoProvider()) as app:
        rows = await app.db.fetchall("SELECT role, content FROM messages ORDER BY id")
        assert [(r["role"], r["content"]) for r in rows] == [
            ("user", "remember the blue door"), ("assistant", "remember the blue door")]
