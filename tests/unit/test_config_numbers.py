"""Negative and nonsensical numbers in the config are refused at start, naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeagent.config import load_config
from homeagent.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("api:\n  rate_limit_per_minute: -3\n", "api.rate_limit_per_minute: expected a number of at least 0, got -3"),
        ("memory:\n  context_top_k: -1\n", "memory.context_top_k"),
        ("agent:\n  history_turns: -6\n", "agent.history_turns"),
        ("knowledge:\n  max_file_bytes: 0\n", "knowledge.max_file_bytes: expected a number above 0"),
        ("actions:\n  page_size: 0\n", "actions.page_size"),
        ("knowledge:\n  prompt_min_score: .nan\n", "knowledge.prompt_min_score: expected a finite number"),
        ("daemon:\n  heartbeat_interval: -5\n", "daemon.heartbeat_interval"),
    ],
)
def test_bad_numbers_are_refused(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "homeagent.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path, env={})
    assert named in str(info.value)


def test_a_negative_seed_still_means_random(tmp_path: Path) -> None:
    path = tmp_path / "homeagent.yaml"
    path.write_text("llm:\n  seed: -1\n", encoding="utf-8")
    assert load_config(path, env={}).llm.seed == -1
