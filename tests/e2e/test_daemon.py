"""The daemon as a subprocess, driven by the official openai SDK and the CLI."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import openai
import pytest

from tests.conftest import free_port, write_config

from .conftest import base_env, start_daemon


def oa(daemon, key: str = "unused") -> openai.OpenAI:
    return openai.OpenAI(base_url=daemon.url + "/v1", api_key=key, max_retries=0, timeout=120)


@pytest.mark.llama
def test_local_model_daemon_serves_openai_clients_and_the_cli(daemon_factory):
    daemon = daemon_factory(llm={"max_tokens": 24, "n_ctx": 4096, "temperature": 0.2})
    with oa(daemon) as client:
        ids = [m.id for m in client.models.list().data]
        assert "homeagent" in ids and "smollm2-135m-instruct" in ids

        reply = client.chat.completions.create(
            model="homeagent", messages=[{"role": "user", "content": "Hello! Who are you?"}]
        )
        assert reply.choices[0].message.content.strip()
        assert reply.usage.prompt_tokens > 100 and 0 < reply.usage.completion_tokens <= 24

        chunks = list(
            client.chat.completions.create(
                model="homeagent",
                messages=[{"role": "user", "content": "你好，你是谁？"}],
                stream=True,
                stream_options={"include_usage": True},
            )
        )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.strip()
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0
    assert any(c.choices and c.choices[0].finish_reason in ("stop", "length") for c in chunks)

    chat = daemon.cli("chat", "--url", daemon.url, "你好，你是谁？")
    assert chat.returncode == 0, chat.stderr
    assert chat.stdout.strip()

    assert daemon.stop() == 0
    events = [json.loads(line) for line in daemon.stderr.splitlines() if line.startswith("{")]
    names = [e["event"] for e in events]
    assert "daemon.ready" in names and "daemon.stopped" in names
    assert "llm.prefix_state.evaluated" in names


def test_echo_daemon_chat_cli_arguments_and_stdin(daemon_factory):
    daemon = daemon_factory(llm={"provider": "echo"})
    one = daemon.cli("chat", "--url", daemon.url, "你好，你是谁？")
    assert one.returncode == 0 and one.stdout == "你好，你是谁？\n"
    lines = daemon.cli("chat", "--url", daemon.url, input="first line\n\n第二行\n")
    assert lines.returncode == 0 and lines.stdout == "first line\n第二行\n"
    assert daemon.stop() == 0


def test_chat_without_a_daemon_says_how_to_start_one(tmp_path):
    env = base_env(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "homeagent", "chat", "--url", f"http://127.0.0.1:{free_port()}", "hi"],
        capture_output=True, text=True, timeout=60, env=env,
    )
    assert result.returncode == 1
    assert "cannot reach the daemon" in result.stderr and "homeagent serve" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.llama
def test_sigterm_during_a_streaming_turn_exits_zero(daemon_factory):
    daemon = daemon_factory(llm={"max_tokens": 400, "n_ctx": 4096, "repeat_penalty": 1.0})
    got_text = threading.Event()

    def stream() -> None:
        try:
            with oa(daemon) as client:
                for chunk in client.chat.completions.create(
                    model="homeagent", stream=True,
                    messages=[{"role": "user", "content": "Tell me a very long story about a dragon."}],
                ):
                    if chunk.choices and chunk.choices[0].delta.content:
                        got_text.set()
        except (openai.APIError, openai.APIConnectionError):
            pass

    worker = threading.Thread(target=stream, daemon=True)
    worker.start()
    assert got_text.wait(120)
    started = time.monotonic()
    daemon.proc.send_signal(signal.SIGTERM)
    assert daemon.proc.wait(timeout=10) == 0
    assert time.monotonic() - started < 10
    worker.join(timeout=10)


def test_start_up_failures_exit_non_zero_with_one_clear_line(tmp_path):
    env = base_env(tmp_path)

    def serve(config_text: str) -> subprocess.CompletedProcess:
        path = tmp_path / "bad.yaml"
        path.write_text(config_text, encoding="utf-8")
        return subprocess.run(
            [sys.executable, "-m", "homeagent", "serve", "--config", str(path)],
            capture_output=True, text=True, timeout=120, env=env,
        )

    personality = f"agent:\n  personality_file: {write_config.__globals__['REPO'] / 'personal.md'}\n"
    cases = [
        ("llm:\n  modle: x\n", "llm.modle"),
        ("llm:\n  max_tokens: lots\n", "llm.max_tokens"),
        ("llm:\n  api_key: ${NOT_SET_ANYWHERE}\n", "NOT_SET_ANYWHERE"),
        (personality + f"llm:\n  model_path: {tmp_path / 'missing.gguf'}\n", "missing.gguf"),
        ("agent:\n  personality_file: /nonexistent/personal.md\n", "personal.md"),
        (personality + "llm:\n  provider: echo\ndaemon:\n  listen_addr: 0.0.0.0:" + str(free_port()) + "\n", "api.token"),
    ]
    for text, needle in cases:
        result = serve(text)
        assert result.returncode != 0, text
        error_lines = [ln for ln in result.stderr.splitlines() if ln.startswith("homeagent: error:")]
        assert len(error_lines) == 1 and needle in error_lines[0], (text, result.stderr[-1500:])
        assert "Traceback" not in result.stderr

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = serve(personality + f"llm:\n  provider: echo\ndaemon:\n  listen_addr: 127.0.0.1:{port}\n")
    assert result.returncode != 0
    assert "cannot listen on 127.0.0.1" in result.stderr and "Traceback" not in result.stderr


def test_secrets_never_reach_the_logs(tmp_path):
    env = base_env(tmp_path)
    env["DEEPSEEK_API_KEY"] = "sk-deepseekSECRETvalue123456"
    token = "household-token-SECRET-98765"
    daemon = start_daemon(tmp_path, env=env, llm={"provider": "echo"}, api={"token": token}, log={"level": "debug"})
    try:
        with oa(daemon, key=token) as client:
            client.chat.completions.create(model="homeagent", messages=[{"role": "user", "content": "hi"}])
        with oa(daemon, key="wrong-token-SECRET-111") as client, pytest.raises(openai.AuthenticationError) as err:
            client.models.list()
        assert "SECRET" not in str(err.value)
        chat = daemon.cli("chat", "--url", daemon.url, "--token", token, "hello")
        assert chat.returncode == 0 and chat.stdout == "hello\n"
    finally:
        assert daemon.stop() == 0
    logs = daemon.stderr
    assert "turn.finished" in logs
    for secret in ("deepseekSECRET", "household-token-SECRET", "wrong-token-SECRET"):
        assert secret not in logs


def test_doctor_reports_problems_with_fixes(tmp_path):
    env = base_env(tmp_path)
    good = write_config(tmp_path, llm={"provider": "echo"})
    result = subprocess.run(
        [sys.executable, "-m", "homeagent", "doctor", "--config", str(good)],
        capture_output=True, text=True, timeout=120, env=env,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stdout

    bad = write_config(tmp_path, llm={"model_path": str(tmp_path / "absent.gguf")})
    as_json = subprocess.run(
        [sys.executable, "-m", "homeagent", "doctor", "--json", "--config", str(bad)],
        capture_output=True, text=True, timeout=120, env=env,
    )
    assert as_json.returncode == 1
    checks = {c["name"]: c for c in json.loads(as_json.stdout)}  # stdout is only JSON
    assert not checks["model"]["ok"] and "absent.gguf" in checks["model"]["detail"]
    assert checks["model"]["fix"]
    assert checks["database"]["ok"] and checks["personality"]["ok"]


def test_doctor_flags_a_busy_port(tmp_path):
    env = base_env(tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        cfg = write_config(tmp_path, llm={"provider": "echo"}, daemon={"listen_addr": f"127.0.0.1:{port}"})
        result = subprocess.run(
            [sys.executable, "-m", "homeagent", "doctor", "--config", str(cfg)],
            capture_output=True, text=True, timeout=120, env=env,
        )
    assert result.returncode == 1
    assert "port" in result.stdout and "fix:" in result.stdout


def test_env_overrides_pick_config_and_data_dir(tmp_path):
    cfg = write_config(tmp_path, llm={"provider": "echo"})
    env = base_env(tmp_path)
    env["HOMEAGENT_CONFIG"] = str(cfg)
    env["HOMEAGENT_DATA_DIR"] = str(tmp_path / "elsewhere")
    result = subprocess.run(
        [sys.executable, "-m", "homeagent", "doctor", "--json"],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
    )
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert str(cfg) in checks["config"]["detail"]
    assert str(tmp_path / "elsewhere") in checks["data_dir"]["detail"]
    assert os.path.isdir(tmp_path / "elsewhere")


def test_systemd_notify_ready_watchdog_and_stopping(tmp_path):
    sock_path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(sock_path)
        sock.settimeout(60)
        env = base_env(tmp_path)
        env["NOTIFY_SOCKET"] = sock_path
        env["WATCHDOG_USEC"] = "400000"  # ping every 0.2 s
        daemon = start_daemon(tmp_path, env=env, llm={"provider": "echo"})
        messages: list[str] = []
        while "READY=1" not in messages or messages.count("WATCHDOG=1") < 2:
            messages.append(sock.recv(4096).decode())
        daemon.proc.send_signal(signal.SIGTERM)
        while "STOPPING=1" not in messages:
            messages.append(sock.recv(4096).decode())
        assert daemon.proc.wait(timeout=10) == 0


@pytest.mark.llama
def test_restart_mid_run_marks_it_interrupted_and_keeps_finished_runs(tmp_path):
    import sqlite3
    import urllib.request

    def call(url: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.load(resp)

    settings = {"llm": {"max_tokens": 400, "n_ctx": 4096, "repeat_penalty": 1.0}}
    daemon = start_daemon(tmp_path, **settings)
    done = call(daemon.url + "/api/agent/runs", {"input": "Say hi."})["id"]
    deadline = time.monotonic() + 120
    while call(daemon.url + f"/api/agent/runs/{done}")["status"] != "completed":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    long_run = call(daemon.url + "/api/agent/runs", {"input": "Tell me a very long story about a dragon."})["id"]
    db = tmp_path / "data" / "homeagent.db"
    deadline = time.monotonic() + 180
    while True:  # wait until the run is on disk as running, with some events
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            row = conn.execute(
                "SELECT status, (SELECT COUNT(*) FROM run_events WHERE run_id = runs.id) FROM runs WHERE id = ?",
                (long_run,),
            ).fetchone()
        if row and row[0] == "running" and row[1] >= 3:
            break
        assert time.monotonic() < deadline
        time.sleep(0.1)
    daemon.proc.kill()
    daemon.proc.wait(timeout=10)

    again = start_daemon(tmp_path, env=daemon.env, llm={"provider": "echo"})
    try:
        run = call(again.url + f"/api/agent/runs/{long_run}")
        assert run["status"] == "interrupted" and run["error"]["code"] == "AGENT_PROCESS_RESTARTED"
        finished = call(again.url + f"/api/agent/runs/{done}")
        assert finished["status"] == "completed" and finished["output"]
        trace = call(again.url + f"/api/agent/runs/{done}/trace?limit=1000")
        assert trace["events"][0]["type"] == "turn_started" and trace["events"][-1]["type"] == "done"
        text = "".join(e["data"]["text"] for e in trace["events"] if e["type"] == "text_delta")
        assert text.strip() == finished["output"]
    finally:
        assert again.stop() == 0


def test_members_cli_tokens_work_against_the_daemon(tmp_path):
    daemon = start_daemon(tmp_path, llm={"provider": "echo"})
    try:
        added = daemon.cli("members", "add", "小红", "--json", "--config", str(daemon.config))
        assert added.returncode == 0, added.stderr
        token = json.loads(added.stdout)["token"]
        listed = daemon.cli("members", "list", "--json", "--config", str(daemon.config))
        assert json.loads(listed.stdout) == [{"name": "小红", "active": True, "created_at": pytest.approx(time.time(), abs=120)}]
    finally:
        assert daemon.stop() == 0
    # Tokens are loaded at start: a new daemon requires them.
    daemon = start_daemon(tmp_path, env=daemon.env, llm={"provider": "echo"})
    try:
        denied = daemon.cli("chat", "--url", daemon.url, "hi")
        assert denied.returncode == 1 and "token" in denied.stderr
        ok = daemon.cli("chat", "--url", daemon.url, "--token", token, "你好")
        assert ok.returncode == 0 and ok.stdout == "你好\n"
        revoked = daemon.cli("members", "revoke", "小红", "--config", str(daemon.config))
        assert revoked.returncode == 0
    finally:
        assert daemon.stop() == 0
    with sqlite3_connect(tmp_path) as conn:
        assert conn.execute("SELECT token_hash FROM members").fetchone()[0] != token  # only a hash is stored


def sqlite3_connect(tmp_path):
    import sqlite3

    return sqlite3.connect(tmp_path / "data" / "homeagent.db")
