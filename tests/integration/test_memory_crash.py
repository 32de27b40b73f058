"""Crash tolerance: `kill -9` an ingest mid-way; every acknowledged document survives."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path

import anyio
import pytest

from homeagent.cli.memory import all_migrations
from homeagent.clock import FakeClock
from homeagent.memory.documents import DocumentStore
from homeagent.store import Database
from tests.conftest import PYTHON, REPO, write_config

TOTAL = 200_000  # far more than can be ingested before the kill


def _corpus(path: Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(TOTAL):
            text = (f"第{i}条记录 洗碗机 记号{i}号 marker{i} the dishwasher note"
                    if i % 2 else f"note {i}: marker{i} 家里的冰箱 fridge 今天 买菜")
            fh.write(json.dumps({"id": f"doc-{i}", "text": text, "timestamp": 1772323200 + i}, ensure_ascii=False) + "\n")


def test_kill_9_mid_ingest_keeps_every_acknowledged_document(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    source = tmp_path / "big.jsonl"
    _corpus(source)
    proc = subprocess.Popen(
        [PYTHON, "-m", "homeagent.cli.memory", "memory", "ingest", "--jsonl", str(source),
         "--namespace", "crash", "--batch", "250", "--config", str(config)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO,
    )
    acks: list[dict[str, int]] = []
    try:
        assert proc.stdout is not None
        while len(acks) < 6:
            line = proc.stdout.readline()
            assert line, "ingest ended before it could be killed"
            acks.append(json.loads(line))
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    # Acknowledgements are cumulative and name the last input line they cover.
    assert [a["total"] for a in acks] == [250 * (i + 1) for i in range(len(acks))]
    acknowledged = acks[-1]["line"]

    db_path = tmp_path / "data" / "homeagent.db"
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        ids = {r[0] for r in conn.execute("SELECT doc_id FROM documents WHERE namespace = 'crash'")}
        vectors = {r[0] for r in conn.execute(
            "SELECT doc_id FROM vector_terms WHERE namespace = 'doc:crash'")}
    expected = {f"doc-{i}" for i in range(acknowledged)}
    assert expected <= ids
    assert ids == vectors  # no document without its vector, no vector without its document

    async def reopen() -> None:
        async with Database(db_path, all_migrations()) as db:
            store = DocumentStore(db, clock=FakeClock(), namespace="crash")
            await store.load()
            assert len(store.index) == len(ids)
            for i in (0, 1, acknowledged // 2, acknowledged - 1):
                hits = await store.query(f"marker{i}", k=1, touch=False)
                assert hits and hits[0].document.id == f"doc-{i}"
                assert f"marker{i}" in hits[0].document.text

    anyio.run(reopen)


@pytest.mark.parametrize("cut", [0.3, 0.97])
def test_truncated_textlog_never_blocks_startup(tmp_path: Path, cut: float) -> None:
    from homeagent.memory.textlog import TextMemory

    path = tmp_path / "memory.jsonl"
    log = TextMemory(path, clock=FakeClock())
    log.open()
    for i in range(5):
        log.append_sync(f"第{i}句", f"reply {i}")
    log.close()
    data = path.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[: last_start + int((len(data) - last_start) * cut)])
    log = TextMemory(path, clock=FakeClock())
    log.open()
    try:
        assert [r.user for r in log.read_from()] == [f"第{i}句" for i in range(4)]
        log.append_sync("重启后", "ok")
        assert [r.user for r in log.exchanges()][-1] == "重启后"
    finally:
        log.close()
