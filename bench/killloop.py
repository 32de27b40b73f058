#!/usr/bin/env python3
"""Acknowledged means durable: kill -9 the daemon at random moments, count what was lost.

Each cycle starts `homeagent serve` (echo provider, loopback, a temp data dir kept across
cycles), runs concurrent writers over every write route until a random moment, kills the
daemon with SIGKILL, and then checks, with the daemon stopped, that every write it had
acknowledged (202/200/201, or a CLI exit 0) is in the files:

    runs        POST /api/agent/runs         the run row (any status; unfinished ones
                                             become `interrupted` at the next start)
    chats       POST /v1/chat/completions    both messages of the exchange
    uploads     POST /api/knowledge          the file, whole, in the knowledge dir
    members     homeagent members add        the member row

and that `PRAGMA integrity_check` says ok and memory.jsonl parses (a torn last line is
allowed only until the next start repairs it; a torn line in the middle is a failure).
The next cycle's start is the restart. Nothing is asserted; it prints counts.

    .venv/bin/python bench/killloop.py                 # 100 cycles
    .venv/bin/python bench/killloop.py --cycles 20 --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "killloop-household-token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_config(tmp: Path, port: int) -> Path:
    import shutil

    knowledge = tmp / "knowledge"
    if not knowledge.exists():
        shutil.copytree(ROOT / "knowledge", knowledge)
    config = tmp / "homeagent.yaml"
    config.write_text(json.dumps({
        "daemon": {"data_dir": str(tmp / "data"), "listen_addr": f"127.0.0.1:{port}",
                   "heartbeat_interval": 0},
        "agent": {"personality_file": str(ROOT / "personal.md")},
        "knowledge": {"dir": str(knowledge), "watch": False},
        "llm": {"provider": "echo"},
        "api": {"token": TOKEN},
        "log": {"level": "warning", "format": "json"},
    }), encoding="utf-8")
    return config


def post(url: str, body: dict, timeout: float = 10) -> tuple[int, dict]:
    data = json.dumps(body, ensure_ascii=False).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json",
                                                           "Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as err:
        return err.code, {}


class Writers:
    """Concurrent writers; each records what the daemon acknowledged."""

    def __init__(self, url: str, config: Path, cycle: int, env: dict[str, str]):
        self.url, self.config, self.cycle, self.env = url, config, cycle, env
        self.runs: list[str] = []
        self.chats: list[str] = []
        self.uploads: list[tuple[str, str]] = []
        self.members: list[str] = []
        self.stop = threading.Event()
        self.errors = 0

    def _loop(self, name: str, one) -> None:
        i = 0
        while not self.stop.is_set():
            i += 1
            try:
                one(f"c{self.cycle}-{name}-{i}")
            except (OSError, ValueError):
                self.errors += 1  # the daemon died mid-request: nothing was acknowledged
                if self.stop.is_set():
                    return
                time.sleep(0.01)

    def run(self, key: str) -> None:
        status, body = post(self.url + "/api/agent/runs", {"input": f"run {key} 记一下"})
        if status == 202:
            self.runs.append(body["id"])

    def chat(self, key: str) -> None:
        status, _ = post(self.url + "/v1/chat/completions",
                         {"model": "homeagent", "messages": [{"role": "user", "content": f"chat {key}"}]})
        if status == 200:
            self.chats.append(f"chat {key}")

    def upload(self, key: str) -> None:
        content = f"# {key}\n\n" + "家里的记录 line\n" * 50
        status, _ = post(self.url + "/api/knowledge", {"topic": "killloop", "filename": f"{key}.md",
                                                     "content": content})
        if status in (200, 201):
            self.uploads.append((f"{key}.md", content))

    def member(self, key: str) -> None:
        name = key.replace("-", "_")[:40]
        done = subprocess.run([sys.executable, "-m", "homeagent", "members", "add", name, "--json",
                               "--config", str(self.config)], capture_output=True, env=self.env, timeout=60)
        if done.returncode == 0:
            self.members.append(name)

    def start(self) -> list[threading.Thread]:
        threads = [threading.Thread(target=self._loop, args=(n, f), daemon=True)
                   for n, f in (("run", self.run), ("run2", self.run), ("chat", self.chat),
                                ("upload", self.upload), ("member", self.member))]
        for t in threads:
            t.start()
        return threads


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"daemon exited with {proc.returncode} at start")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as resp:  # open route
                if resp.status == 200:
                    return
        except (OSError, ValueError):
            time.sleep(0.1)
    raise SystemExit("daemon did not become healthy")


def check(tmp: Path, w: Writers) -> dict[str, int]:
    db = tmp / "data" / "homeagent.db"
    conn = sqlite3.connect(db)
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        runs = {r[0] for r in conn.execute("SELECT id FROM runs")}
        users = {r[0] for r in conn.execute("SELECT content FROM messages WHERE role = 'user'")}
        members = {r[0] for r in conn.execute("SELECT name FROM members")}
    finally:
        conn.close()
    lost_uploads = 0
    for name, content in w.uploads:
        path = tmp / "knowledge" / "killloop" / name
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            lost_uploads += 1
    torn_middle = 0
    jsonl = tmp / "data" / "memory.jsonl"
    if jsonl.exists():
        lines = jsonl.read_bytes().split(b"\n")
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                json.loads(line)
            except ValueError:
                if i < len(lines) - 1 and any(x.strip() for x in lines[i + 1:]):
                    torn_middle += 1
    return {
        "integrity_failures": 0 if integrity == "ok" else 1,
        "lost_runs": sum(1 for r in w.runs if r not in runs),
        "lost_chats": sum(1 for c in w.chats if c not in users),
        "lost_uploads": lost_uploads,
        "lost_members": sum(1 for m in w.members if m not in members),
        "jsonl_torn_middle": torn_middle,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--min-s", type=float, default=0.05, help="earliest kill after writes start")
    parser.add_argument("--max-s", type=float, default=1.5, help="latest kill after writes start")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    totals: dict[str, int] = {"cycles": 0, "acked_runs": 0, "acked_chats": 0, "acked_uploads": 0,
                              "acked_members": 0, "start_failures": 0}
    with tempfile.TemporaryDirectory(prefix="killloop-") as raw_tmp:
        tmp = Path(raw_tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HOMEAGENT_", "NOTIFY_SOCKET"))}
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        started = time.monotonic()
        for cycle in range(args.cycles):
            port = free_port()
            config = write_config(tmp, port)
            url = f"http://127.0.0.1:{port}"
            proc = subprocess.Popen([sys.executable, "-m", "homeagent", "serve", "--config", str(config)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            try:
                wait_healthy(url, proc)
            except SystemExit:
                totals["start_failures"] += 1
                proc.kill()
                proc.wait()
                continue
            writers = Writers(url, config, cycle, env)
            threads = writers.start()
            time.sleep(rng.uniform(args.min_s, args.max_s))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            writers.stop.set()
            for t in threads:
                t.join(timeout=30)
            result = check(tmp, writers)
            totals["cycles"] += 1
            totals["acked_runs"] += len(writers.runs)
            totals["acked_chats"] += len(writers.chats)
            totals["acked_uploads"] += len(writers.uploads)
            totals["acked_members"] += len(writers.members)
            for key, value in result.items():
                totals[key] = totals.get(key, 0) + value
            if not args.json:
                print(f"cycle {cycle + 1}/{args.cycles}: acked runs={len(writers.runs)} chats={len(writers.chats)} "
                      f"uploads={len(writers.uploads)} members={len(writers.members)} "
                      f"lost={sum(v for k, v in result.items() if k.startswith('lost'))} "
                      f"integrity={'ok' if not result['integrity_failures'] else 'FAILED'}", flush=True)
        # One last start: the daemon must come up on what the last kill left.
        port = free_port()
        config = write_config(tmp, port)
        proc = subprocess.Popen([sys.executable, "-m", "homeagent", "serve", "--config", str(config)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        try:
            wait_healthy(f"http://127.0.0.1:{port}", proc)
            totals["final_start_ok"] = 1
        except SystemExit:
            totals["final_start_ok"] = 0
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
        totals["elapsed_s"] = round(time.monotonic() - started)
    totals["lost_total"] = sum(v for k, v in totals.items() if k.startswith("lost"))
    print(json.dumps(totals, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
