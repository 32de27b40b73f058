"""The daemon's own output while the local engine loads its model: nothing of it is lost,
and llama.cpp's load chatter is not printed; the real engine and the bundled model, in a
process of its own (the load points whole file descriptors, which pytest also holds)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.llama

# A thread prints a counter to stdout and logs it to stderr every 2 ms while the main
# thread loads the model twice (the first load also starts llama.cpp's backend), then
# reports which numbers it wrote during the loads.
_LOADING = r"""
import json, logging, sys, threading, time
from homeagent.log import configure_logging
from homeagent.llm.llama_cpp import LlamaCppProvider
from homeagent.llm.models import bundled_model_path

configure_logging("info", "json")
stop, loading, during = threading.Event(), threading.Event(), []

def chatter():
    n = 0
    while not stop.is_set():
        print(f"n={n}", flush=True)
        logging.getLogger("chatter").warning("e=%d", n)
        if loading.is_set():
            during.append(n)
        n += 1
        time.sleep(0.002)
    print(f"last={n - 1}", flush=True)

thread = threading.Thread(target=chatter)
thread.start()
time.sleep(0.05)
loading.set()
for _ in range(2):
    engine = LlamaCppProvider(model_path=bundled_model_path(), model="smollm2", n_ctx=512)
    engine._load()
    engine._llm.close()
loading.clear()
time.sleep(0.05)
stop.set()
thread.join()
print("during=" + json.dumps(during), flush=True)
"""


def test_output_of_other_threads_survives_the_model_load():
    out = subprocess.run([sys.executable, "-c", _LOADING], capture_output=True, text=True,
                         timeout=180, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    last = int(next(line for line in lines if line.startswith("last="))[5:])
    during = json.loads(next(line for line in lines if line.startswith("during="))[7:])
    assert during, "the chatter thread wrote nothing while the model loaded"
    printed = {int(line[2:]) for line in lines if line.startswith("n=")}
    # two threads' log lines may share a line of stderr (each writes its own record whole)
    events = re.findall(r'"event": "([^"]*)"', out.stderr)
    logged = {int(e[2:]) for e in events if e.startswith("e=")}
    assert sorted(set(range(last + 1)) - printed) == [], "stdout lines lost during the load"
    assert sorted(set(range(last + 1)) - logged) == [], "log lines lost during the load"
    assert [line for line in lines if not line.startswith(("n=", "last=", "during="))] == []
    assert [e for e in events if not e.startswith("e=")] == [
        "llm.model.loaded", "llm.model.loaded"]


_BROKEN = r"""
import sys
from homeagent.errors import ModelError
from homeagent.log import configure_logging
from homeagent.llm.llama_cpp import LlamaCppProvider

configure_logging("info", "json")
try:
    LlamaCppProvider(model_path=sys.argv[1], model="broken", n_ctx=512)._load()
except ModelError as err:
    print(err)
"""


def test_the_engine_says_in_the_log_why_a_model_does_not_load(tmp_path):
    """Its reasons used to go to /dev/null with the rest of the load's output."""
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(range(256)) * 16)
    out = subprocess.run([sys.executable, "-c", _BROKEN, str(broken)], capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "cannot be loaded" in out.stdout
    said = [json.loads(line) for line in out.stderr.splitlines()]
    assert said, "nothing in the log"
    assert {r["event"] for r in said} == {"llm.engine.message"}
    assert any(r["level"] == "error" and "gguf" in r["text"].lower() for r in said), said
