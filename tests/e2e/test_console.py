"""`homeagent chat --local` as a subprocess: the console channel answers each line."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import write_config

from .conftest import base_env


def test_chat_local_answers_each_line_and_a_single_text(tmp_path):
    config = write_config(tmp_path, llm={"provider": "echo"})
    env = base_env(tmp_path)
    lines = subprocess.run(
        [sys.executable, "-m", "homeagent", "chat", "--local", "--config", str(config)],
        input="你好\n\nhello there\n", capture_output=True, text=True, env=env, timeout=120,
    )
    assert lines.returncode == 0, lines.stderr
    assert lines.stdout == "你好\nhello there\n"
    one = subprocess.run(
        [sys.executable, "-m", "homeagent", "chat", "--local", "--config", str(config), "good", "night"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert one.returncode == 0 and one.stdout == "good night\n", one.stderr
