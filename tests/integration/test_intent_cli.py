"""`homeagent intent explain|examples|retrain` as a subprocess (`python -m homeagent`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ..conftest import REPO


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "homeagent", "intent", *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=REPO, timeout=300, check=False, env=env)


def test_explain_says_where_an_utterance_goes_and_why() -> None:
    proc = run_cli("explain", "--json", "提醒我明天下午3点交电费")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["path"] == "intent" and out["action"] == "create_task"
    assert out["calls"][0]["arguments"]["content"] == "交电费"
    assert out["ranked"][0][0] == "create_task" and out["confidence"] >= out["threshold"]
    assert 0.05 <= out["read_threshold"] <= out["threshold"] < 1
    question = json.loads(run_cli("explain", "--json", "What's on my shopping list?").stdout)
    assert question["question"] is True and question["action"] == "list_shopping"


@pytest.mark.timeout(900)  # four runs of the CLI, each building the training set; one trains it
def test_examples_and_retrain_print_the_training_set() -> None:
    listing = run_cli("examples")
    assert listing.returncode == 0, listing.stderr
    assert "create_task" in listing.stdout and "classes" in listing.stdout
    one = run_cli("examples", "--action", "add_shopping_item")
    assert one.returncode == 0 and "milk" in one.stdout.casefold()
    unknown = run_cli("examples", "--action", "no_such_action")
    assert unknown.returncode == 1 and "no examples for 'no_such_action'" in unknown.stdout
    retrain = run_cli("retrain")
    assert retrain.returncode == 0 and "held-out accuracy" in retrain.stdout
