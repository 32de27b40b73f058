"""homeagent.memory.textlog: the JSONL exchange log on a real file, torn lines, tombstones."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import structlog
import structlog.testing

from homeagent.clock import FakeClock
from homeagent.memory.textlog import TextMemory

pytestmark = pytest.mark.anyio


def append_raw(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


async def test_append_then_read_with_offsets(tmp_path: Path) -> None:
    clock = FakeClock()
    async with TextMemory(tmp_path / "data" / "memory.jsonl", clock=clock) as log:
        first = await log.append("我的洗碗机漏水了", "要我帮你记下来吗？", turn_id="t1", channel="voice", member="mom")
        clock.advance(minutes=5)
        second = await log.append("The dishwasher is leaking", "I'll note that.", turn_id="t2")
        records = list(log.read_from(0))
        assert [r.id for r in records] == [first.id, second.id]
        assert records[0].user == "我的洗碗机漏水了" and records[0].member == "mom"
        assert records[0].at == FakeClock().now() and records[1].at == clock.now()
        assert records[0].offset == 0 and records[0].end == records[1].offset
        assert records[1].end == log.size()
        # Resuming from a record's end yields exactly what follows.
        assert [r.id for r in log.read_from(records[0].end)] == [second.id]
        assert list(log.read_from(records[1].end)) == []
        # The file is plain JSONL, UTF-8, Chinese kept as is.
        raw = (tmp_path / "data" / "memory.jsonl").read_text(encoding="utf-8").splitlines()
        assert json.loads(raw[0])["user"] == "我的洗碗机漏水了"


async def test_reopen_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "memory.jsonl"
    async with TextMemory(path, clock=FakeClock()) as log:
        ids = [(await log.append(f"第{i}句 line {i}", "ok")).id for i in range(20)]
    async with TextMemory(path, clock=FakeClock()) as log:
        assert [r.id for r in log.read_from()] == ids


async def test_torn_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "memory.jsonl"
    async with TextMemory(path, clock=FakeClock()) as log:
        kept = [await log.append(f"记录 {i}", "好的") for i in range(3)]
    data = path.read_bytes()
    # A crash in the middle of writing the last line: cut it inside a UTF-8 character.
    cut = kept[2].offset + len(json.dumps({"v": 1}).encode()) + 25
    path.write_bytes(data[:cut])
    with structlog.testing.capture_logs() as logs:
        async with TextMemory(path, clock=FakeClock()) as log:
            assert [r.id for r in log.read_from()] == [kept[0].id, kept[1].id]
            after = await log.append("crash 之后的第一句", "继续")
            records = list(log.read_from())
            assert [r.id for r in records] == [kept[0].id, kept[1].id, after.id]
            assert records[-1].user == "crash 之后的第一句"
    events = {entry["event"] for entry in logs if entry["log_level"] == "warning"}
    text = " ".join(events)
    assert "memory.textlog.torn_line" in text and "memory.textlog.bad_line" in text


async def test_a_line_still_being_written_is_not_read_yet(tmp_path: Path) -> None:
    path = tmp_path / "memory.jsonl"
    async with TextMemory(path, clock=FakeClock()) as log:
        done = await log.append("完整的一句", "ok")
        # Another writer half-way through its line.
        append_raw(path, b'{"v":1,"id":"half","kind":"exchange","at":"2026-01-01T09:00:00+00:00","user":"hal')
        assert [r.id for r in log.read_from()] == [done.id]
        append_raw(path, b'f"}\n')
        resumed = list(log.read_from(done.end))
        assert [r.id for r in resumed] == ["half"] and resumed[0].user == "half"


async def test_forget_blanks_text_for_every_reader(tmp_path: Path) -> None:
    path = tmp_path / "memory.jsonl"
    async with TextMemory(path, clock=FakeClock()) as log:
        secret = await log.append("我的银行卡密码是 1234", "请不要告诉我密码。")
        other = await log.append("Buy milk", "Noted.")
        tomb = await log.forget(secret.id, reason="user asked")
        assert tomb.kind == "forget" and tomb.target == secret.id
        assert [r.id for r in log.exchanges()] == [other.id]
        forgotten = next(r for r in log.read_from() if r.id == secret.id)
        assert forgotten.forgotten and forgotten.user == "" and forgotten.assistant == ""
    async with TextMemory(path, clock=FakeClock()) as log:
        assert [r.id for r in log.exchanges()] == [other.id]
        kinds = [r.kind for r in log.read_from()]
        assert kinds == ["exchange", "exchange", "forget"]
    # The log is append-only: the original line is still in the file.
    assert "1234" in path.read_text(encoding="utf-8")


async def test_concurrent_appends_stay_whole(tmp_path: Path) -> None:
    path = tmp_path / "memory.jsonl"
    async with TextMemory(path, clock=FakeClock()) as log:

        def worker(w: int) -> None:
            for i in range(50):
                log.append_sync(f"线程{w} 第{i}条 " + "长文本" * 50, f"thread {w} reply {i}")

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        records = list(log.read_from())
        assert len(records) == 200 and len({r.id for r in records}) == 200
        assert all(r.user.startswith("线程") for r in records)


async def test_negative_offset_is_refused(tmp_path: Path) -> None:
    async with TextMemory(tmp_path / "m.jsonl", clock=FakeClock()) as log:
        with pytest.raises(ValueError, match="offset"):
            list(log.read_from(-1))
