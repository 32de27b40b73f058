"""`homeagent memory …` as a subprocess on a real data dir: ingest, search, stats."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from pathlib import Path

import pytest
import structlog

from homeagent.cli.memory import parse_timestamp, run_cli
from tests.conftest import PYTHON, REPO, write_config

TURNS = [
    {"id": "t1", "text": "洗碗机又漏水了，地上全是水。", "timestamp": "2026-02-10T20:15:00+08:00"},
    {"id": "t2", "text": "The dishwasher is leaking again, water everywhere.", "timestamp": "2026-02-11T08:00:00+08:00"},
    {"id": "t3", "text": "周六带小狗去打疫苗。", "timestamp": 1772323200},
    {"id": "t4", "text": "Emma's piano lesson moved to Thursday.", "timestamp": "2026-03-03T18:00:00"},
    {"id": "t5", "text": "洗碗机修好了，换了密封圈。", "timestamp": "2026-03-12T10:00:00+08:00"},
]


def memory(config: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "homeagent.cli.memory", "memory", *args, "--config", str(config)],
        input=stdin, capture_output=True, text=True, cwd=REPO, timeout=120,
        env={**os.environ, **(env or {})},
    )


def write_jsonl(path: Path, lines: list[object]) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines) + "\n",
                    encoding="utf-8")
    return path


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write_config(tmp_path, daemon={"timezone": "Asia/Shanghai"})


def test_ingest_acknowledges_batches_and_reports_bad_lines(tmp_path: Path, config: Path) -> None:
    lines: list[object] = [*TURNS, "not json", {"id": "x", "text": ""}, {"text": "no id"},
                           {"id": "y", "text": "bad time", "timestamp": "next tuesday"}, ""]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    done = memory(config, "ingest", "--jsonl", str(source), "--namespace", "home.v1", "--batch", "2")
    assert done.returncode == 0, done.stderr
    acks = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["ingested"] for a in acks] == [2, 2, 1]
    assert [a["total"] for a in acks] == [2, 4, 5]
    assert acks[-1]["line"] == 5
    assert "in.jsonl:6:" in done.stderr and "not valid JSON" in done.stderr
    assert "in.jsonl:7:" in done.stderr and '"text"' in done.stderr
    assert "in.jsonl:8:" in done.stderr and '"id"' in done.stderr
    assert "in.jsonl:9:" in done.stderr and '"timestamp"' in done.stderr and "ISO 8601" in done.stderr
    assert "Traceback" not in done.stderr

    found = memory(config, "search", "--namespace", "home.v1", "--k", "3", "--json", "洗碗机", "漏水")
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)  # the whole of stdout is one JSON list
    assert results[0] == {"id": "t1", "score": results[0]["score"], "text": TURNS[0]["text"]}
    assert all(set(r) == {"id", "score", "text"} for r in results)
    english = json.loads(memory(config, "search", "--namespace", "home.v1", "--json", "dishwasher leaking").stdout)
    assert english[0]["id"] == "t2"
    # Other namespaces do not see these documents.
    assert json.loads(memory(config, "search", "--namespace", "other", "--json", "洗碗机").stdout) == []


def test_queries_file_and_pinned_now(tmp_path: Path, config: Path) -> None:
    memory(config, "ingest", "--jsonl", str(write_jsonl(tmp_path / "in.jsonl", TURNS)), "--namespace", "ev")
    queries = write_jsonl(tmp_path / "q.jsonl", [
        {"id": "q1", "query": "上个月洗碗机怎么了？"},
        {"id": "q2", "query": "这个月洗碗机怎么样了？"},
        "broken line",
        {"id": "q3", "query": "piano lesson"},
    ])
    done = memory(config, "search", "--namespace", "ev", "--k", "2", "--json", "--queries", str(queries),
                  "--now", "2026-03-20T12:00:00+08:00")
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == ["q1", "q2", "q3"]
    assert answers[0]["results"][0]["id"] == "t1"  # February is "last month" on 20 March
    assert answers[1]["results"][0]["id"] == "t5"
    assert answers[2]["results"][0]["id"] == "t4"
    assert "q.jsonl:3:" in done.stderr
    # The same question pinned a month later points at March.
    later = memory(config, "search", "--namespace", "ev", "--k", "1", "--json", "--now", "2026-04-02T09:00:00+08:00",
                   "上个月洗碗机怎么了？")
    assert json.loads(later.stdout)[0]["id"] == "t5"


def test_stats_and_data_dir_override(tmp_path: Path, config: Path) -> None:
    other = tmp_path / "elsewhere"
    env = {"HOMEAGENT_DATA_DIR": str(other)}
    memory(config, "ingest", "--jsonl", str(write_jsonl(tmp_path / "in.jsonl", TURNS)), "--namespace", "a", env=env)
    memory(config, "ingest", "--jsonl", str(write_jsonl(tmp_path / "b.jsonl", TURNS[:2])), "--namespace", "b", env=env)
    assert (other / "homeagent.db").is_file()
    stats = json.loads(memory(config, "stats", "--json", env=env).stdout)
    assert {n["namespace"]: n["documents"] for n in stats["namespaces"]} == {"a": 5, "b": 2}
    assert stats["database"] == str(other / "homeagent.db")
    human = memory(config, "stats", env=env)
    assert "a: 5 documents" in human.stdout and "b: 2 documents" in human.stdout
    # Without the override the configured data dir is still empty.
    assert json.loads(memory(config, "stats", "--json").stdout)["namespaces"] == []


def test_bad_input_gets_a_clear_error(tmp_path: Path, config: Path) -> None:
    bad_ns = memory(config, "search", "--namespace", "家/../x", "--json", "q")
    assert bad_ns.returncode == 2 and "--namespace" in bad_ns.stderr and "letters, digits" in bad_ns.stderr
    missing = memory(config, "ingest", "--jsonl", str(tmp_path / "nope.jsonl"), "--namespace", "a")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad_now = memory(config, "search", "--namespace", "a", "--now", "someday", "x")
    assert bad_now.returncode == 2 and "--now" in bad_now.stderr
    no_query = memory(config, "search", "--namespace", "a", "--json")
    assert no_query.returncode == 2 and "QUERY" in no_query.stderr
    assert all("Traceback" not in p.stderr for p in (bad_ns, missing, bad_now, no_query))


def test_ingest_from_stdin_and_in_process_entry_point(tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stdin = "\n".join(json.dumps(t, ensure_ascii=False) for t in TURNS)
    done = memory(config, "ingest", "--jsonl", "-", "--namespace", "pipe", stdin=stdin)
    assert json.loads(done.stdout.splitlines()[-1])["total"] == 5
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        assert run_cli(["search", "--namespace", "pipe", "--json", "--config", str(config), "小狗 疫苗"]) == 0
    finally:
        # run_cli configures logging onto this test's captured stderr: undo it.
        structlog.reset_defaults()
        root.handlers[:], root.level = handlers, level
    assert json.loads(capsys.readouterr().out)[0]["id"] == "t3"


def test_timestamps_iso_or_epoch() -> None:
    from zoneinfo import ZoneInfo

    tz = ZoneInfo("Asia/Shanghai")
    assert parse_timestamp("2026-03-01T09:00:00+08:00", tz) == parse_timestamp(1772326800, tz)
    assert parse_timestamp("2026-03-01T09:00:00", tz).utcoffset().total_seconds() == 8 * 3600  # type: ignore[union-attr]
    assert parse_timestamp(1772326800000, tz) == parse_timestamp("1772326800", tz)
    assert parse_timestamp("2026-03-01T01:00:00Z", tz) == parse_timestamp(1772326800, tz)
    for bad in ("tomorrow", True, None, [1]):
        with pytest.raises(ValueError):
            parse_timestamp(bad, tz)
