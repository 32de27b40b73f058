"""Token metering in SQLite (migration 40), the day boundary, `homeagent usage`; the catalog."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import anyio
import pytest

from homeagent.clock import FakeClock
from homeagent.errors import ConfigError, ModelError
from homeagent.llm.base import Usage
from homeagent.llm.catalog import CATALOG, find, load_catalog
from homeagent.llm.schema import MIGRATIONS as LLM_MIGRATIONS
from homeagent.llm.usage import UsageMeter, read_usage
from homeagent.store import MIGRATIONS, Database
from tests.conftest import write_config

pytestmark = pytest.mark.anyio


async def test_meter_sums_per_provider_per_day_in_sqlite(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 3, 1, 23, 30, tzinfo=ZoneInfo("Asia/Shanghai")))
    path = tmp_path / "homeagent.db"
    async with Database(path, (*MIGRATIONS, *LLM_MIGRATIONS)) as db:
        meter = UsageMeter(db, clock)
        await meter.load()
        await meter.record("deepseek", "v4", cloud=True, usage=Usage(100, 20, 80))
        await meter.record("deepseek", "v4", cloud=True, usage=Usage(50, 5))
        await meter.record("deepseek", "v4", cloud=True, usage=None, failed=True)
        await meter.record("local", "smollm2", cloud=False, usage=Usage(300, 30))
        assert meter.cloud_tokens_today() == 175
        clock.advance(hours=1)  # midnight in the home's timezone: a new day, a fresh budget
        assert meter.cloud_tokens_today() == 0
        await meter.record("deepseek", "v4", cloud=True, usage=Usage(1, 1))
        rows = await meter.rows()
    by = {(r.day, r.provider): r for r in rows}
    first = by[("2026-03-01", "deepseek")]
    assert (first.requests, first.failures, first.prompt_tokens, first.completion_tokens, first.cached_tokens) == (
        3, 1, 150, 25, 80)
    assert by[("2026-03-02", "deepseek")].total_tokens == 2 and not by[("2026-03-01", "local")].cloud

    # A restart reads today's cloud total back.
    async with Database(path, (*MIGRATIONS, *LLM_MIGRATIONS)) as db:
        again = UsageMeter(db, clock)
        await again.load()
        assert again.cloud_tokens_today() == 2
    assert [r.day for r in read_usage(path, "2026-03-02")] == ["2026-03-02"]
    assert read_usage(tmp_path / "none.db") == []


async def test_usage_command_prints_rows_and_json(tmp_path: Path) -> None:
    config = write_config(tmp_path, llm={"daily_cloud_tokens": 5000})
    data = tmp_path / "data"
    today = datetime.now().date().isoformat()
    async with Database(data / "homeagent.db", (*MIGRATIONS, *LLM_MIGRATIONS)) as db:
        meter = UsageMeter(db)
        await meter.record("deepseek", "deepseek-v4-flash", cloud=True, usage=Usage(1200, 300))
    cmd = [sys.executable, "-m", "homeagent.cli.models", "usage", "--config", str(config)]
    out = await anyio.run_process([*cmd, "--json"], check=False)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert rows == [{"day": today, "provider": "deepseek", "model": "deepseek-v4-flash", "cloud": True, "requests": 1,
                     "failures": 0, "prompt_tokens": 1200, "completion_tokens": 300, "cached_tokens": 0,
                     "total_tokens": 1500}]
    table = (await anyio.run_process(cmd, check=False)).stdout.decode()
    assert "deepseek-v4-flash" in table and "cloud tokens today: 1500 of 5000" in table


def test_catalog_has_the_eight_models_of_the_design_plus_the_bundled_one() -> None:
    ids = [m.id for m in CATALOG]
    assert ids[0] == "smollm2-135m-instruct" and CATALOG[0].bundled
    assert set(ids[1:]) == {"tinyllama-1.1b", "qwen2.5-0.5b", "qwen3-0.6b", "qwen2.5-1.5b", "phi-3-mini",
                            "gemma-2b", "minilm", "bge-small-zh"}
    assert [m.id for m in CATALOG if m.type == "embedding"] == ["minilm", "bge-small-zh"]
    for m in CATALOG[1:]:
        assert m.url.startswith("https://huggingface.co/") and m.url.endswith(".gguf"), m.id
        assert m.name and m.description and m.size.startswith("~") and m.parameters and m.quantization
        assert m.filename.endswith(".gguf") and m.size_bytes > 0


def test_extra_catalog_entries_extend_or_replace(tmp_path: Path) -> None:
    extra = tmp_path / "more.yaml"
    extra.write_text(
        "- {id: tiny-test, name: Tiny, url: 'http://127.0.0.1:1/t.gguf', type: chat, sha256: " + "a" * 64 + "}\n"
        "- {id: minilm, url: 'http://mirror/minilm.gguf', type: embedding}\n",
        encoding="utf-8",
    )
    catalog = load_catalog(extra)
    assert find(catalog, "tiny-test").sha256 == "a" * 64
    assert find(catalog, "minilm").url == "http://mirror/minilm.gguf"
    with pytest.raises(ModelError, match="unknown model 'nope'"):
        find(catalog, "nope")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "x", "url": "u", "sha256": "zz"}]), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"llm.model_catalog\[0\].sha256"):
        load_catalog(bad)
