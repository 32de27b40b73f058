#!/usr/bin/env python3
"""Start-up of `homeagent serve` on the bundled model: fresh start and restart.

For each tree (the HomeAgent source to run, `--tree LABEL=PATH`, default this one) and
each run, `homeagent serve` is started as a subprocess on a new data dir and timed from
the moment it is spawned:

    healthz     the first 200 from GET /healthz (and the `engine` field it reported)
    READY       the READY=1 datagram on a notify socket of our own (as systemd gets it)
    engine      the engine's prime done (STATUS "engine ready", or READY for a daemon
                that primes before it serves)
    1st token   a short chat, sent the moment /healthz answers, streams its first token
    answer      ... and its last

Then, once the daemon has prepared its next turn while idle, it is stopped with SIGTERM
(it saves the engine's session state) and started again on the same data dir: the same
figures for a restart with saved session state, plus the provider's `prefix_source`.

Nothing here asserts a time; it only reports. Absolute figures depend on the load of
the machine: compare trees measured in the same run.

    .venv/bin/python bench/start.py                                  # this tree, 1 run
    .venv/bin/python bench/start.py --tree before=/path/to/old --tree after=. --runs 2
    .venv/bin/python bench/start.py --restarts 3        # three restarts after each fresh start
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 600.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Notify:
    """A notify socket like systemd's: records when each datagram arrived."""

    def __init__(self, path: Path, t0_ref: list[float]):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.t0 = t0_ref
        self.seen: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096).decode()
            except TimeoutError:
                continue
            self.seen.append((time.perf_counter() - self.t0[0], data))

    def first(self, needle: str) -> float | None:
        return next((t for t, m in self.seen if needle in m), None)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


def get_json(port: int, path: str, timeout: float = 2.0) -> dict | None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return json.loads(resp.read()) if resp.status == 200 else None
    except (OSError, http.client.HTTPException, ValueError):
        return None
    finally:
        conn.close()


def stream_chat(port: int, text: str, max_tokens: int) -> tuple[float | None, float, str]:
    """(first content delta, end) in perf_counter seconds, and the text."""
    body = json.dumps({"model": "homeagent", "stream": True, "max_tokens": max_tokens, "temperature": 0,
                       "messages": [{"role": "user", "content": text}]})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        raise RuntimeError(f"chat: HTTP {resp.status}: {resp.read()[:300]!r}")
    first, parts = None, []
    for raw in resp:
        line = raw.strip()
        if not line.startswith(b"data:") or line[5:].strip() == b"[DONE]":
            continue
        for choice in json.loads(line[5:]).get("choices") or []:
            content = (choice.get("delta") or {}).get("content")
            if content:
                first = first or time.perf_counter()
                parts.append(content)
    conn.close()
    return first, time.perf_counter(), "".join(parts)


def write_config(path: Path, data_dir: Path, port: int, threads: int) -> None:
    path.write_text(
        "daemon:\n"
        f"  data_dir: {json.dumps(str(data_dir))}\n"
        f"  listen_addr: 127.0.0.1:{port}\n"
        "llm:\n"
        "  provider: llama_cpp\n"
        f"  n_threads: {threads}\n"
        "  temperature: 0\n"
        "  seed: 1\n"
        "agent:\n"
        f"  personality_file: {json.dumps(str(ROOT / 'personal.md'))}\n"
        "knowledge:\n"
        f"  dir: {json.dumps(str(ROOT / 'knowledge'))}\n"
        "  watch: false\n"
        "log:\n"
        "  level: info\n"
        "  format: json\n",
        encoding="utf-8",
    )


def one_start(tree: Path, config: Path, port: int, workdir: Path, label: str, args) -> dict:
    sock = workdir / f"notify-{label}.sock"
    sock.unlink(missing_ok=True)
    t0 = [0.0]
    notify = Notify(sock, t0)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOMEAGENT_", "WATCHDOG_"))}
    env.update(PYTHONPATH=str(tree), NOTIFY_SOCKET=str(sock), PYTHONUNBUFFERED="1")
    log = open(workdir / f"{label}.log", "ab")  # noqa: SIM115 - closed with the process
    t0[0] = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "homeagent", "serve", "--config", str(config)],
                            env=env, cwd=workdir,  # not a source tree: `-m` puts the cwd first on sys.path
                            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    log.close()
    out: dict = {}
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"daemon exited {proc.returncode}; see {workdir / label}.log")
            health = get_json(port, "/healthz", timeout=1)
            if health is not None:
                out["healthz_s"] = time.perf_counter() - t0[0]
                out["engine_at_healthz"] = health.get("engine", "(no field)")
                break
            if time.perf_counter() - t0[0] > TIMEOUT:
                raise RuntimeError("no /healthz")
            time.sleep(0.02)
        first, end, text = stream_chat(port, args.message, args.max_tokens)
        out["first_token_s"] = (first - t0[0]) if first else None
        out["answer_s"] = end - t0[0]
        out["answer"] = text
        health = get_json(port, "/healthz") or {}
        out["prefix_source"] = health.get("provider", {}).get("prefix_source")
        out["ready_s"] = notify.first("READY=1")
        out["engine_s"] = notify.first("engine ready") or out["ready_s"]
        # As after a real answer: the daemon prepares the next turn while idle, then stops.
        deadline = time.perf_counter() + TIMEOUT
        while time.perf_counter() < deadline:
            if ((get_json(port, "/healthz") or {}).get("agent") or {}).get("next_turns_prepared", 0) >= 1:
                break
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        notify.close()
    return out


def run_tree(label: str, tree: Path, args, workdir: Path) -> list[dict]:
    runs = []
    for i in range(args.runs):
        data_dir = workdir / f"{label}-{i}" / "data"
        data_dir.mkdir(parents=True)
        port = free_port()
        config = data_dir.parent / "homeagent.yaml"
        write_config(config, data_dir, port, args.threads)
        fresh = one_start(tree, config, port, workdir, f"{label}-{i}-fresh", args)
        for j in range(args.restarts):
            restart = one_start(tree, config, port, workdir, f"{label}-{i}-restart{j}", args)
            runs.append({"fresh": fresh, "restart": restart})
        print(f"# {label} run {i + 1}: {json.dumps(runs[-1], ensure_ascii=False)}", file=sys.stderr)
    return runs


def med(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=PATH",
                        help="a HomeAgent source tree to run (default: this one)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--restarts", type=int, default=1,
                        help="restarts after each fresh start (each one a row of the restart median)")
    parser.add_argument("--threads", type=int, default=1, help="llm.n_threads (default 1)")
    parser.add_argument("--message", default="Hello!")
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    trees = [(t.split("=", 1)[0], Path(t.split("=", 1)[1]).resolve()) for t in args.tree] or [("this", ROOT)]
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="homeagent-start-") as tmp:
        for label, tree in trees:
            results[label] = run_tree(label, tree, args, Path(tmp))
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return 0
    print(f"seconds from spawn, median of {args.runs} run(s) ({args.runs * args.restarts} restarts), "
          f"n_threads={args.threads}, load {os.getloadavg()[0]:.1f}")
    print("| tree | start | /healthz | engine at /healthz | READY | engine primed | 1st token | answer | prefix |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, runs in results.items():
        for kind in ("fresh", "restart"):
            rows = [r[kind] for r in runs]
            if kind == "fresh":  # each fresh start once, however many restarts followed it
                rows = list({id(row): row for row in rows}.values())
            print(f"| {label} | {kind} | {fmt(med([r['healthz_s'] for r in rows]))} | {rows[0]['engine_at_healthz']} "
                  f"| {fmt(med([r['ready_s'] for r in rows]))} | {fmt(med([r['engine_s'] for r in rows]))} "
                  f"| {fmt(med([r['first_token_s'] for r in rows]))} | {fmt(med([r['answer_s'] for r in rows]))} "
                  f"| {rows[0]['prefix_source']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
