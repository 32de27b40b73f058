"""`homeagent serve` answers HTTP before the local engine is primed; turns wait for the prime."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request

import openai
import pytest

from tests.e2e.conftest import base_env, start_daemon


def _healthz(url: str) -> dict | None:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as resp:
            return json.load(resp)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def _serving(daemon, timeout: float = 120) -> dict:
    """The first full /healthz report (after the 'starting' answers of the first second)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert daemon.proc.poll() is None, daemon.stderr[-2000:]
        health = _healthz(daemon.url)
        if health is not None and health["status"] != "starting":
            return health
        time.sleep(0.02)
    raise AssertionError("the daemon never served")


class NotifyListener:
    """A stand-in for systemd's notify socket: a real AF_UNIX datagram socket."""

    def __init__(self, path: str):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.messages: list[tuple[str, dict | None]] = []  # (datagram, /healthz body seen right after)
        self.url = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096).decode()
            except TimeoutError:
                continue
            self.messages.append((data, _healthz(self.url) if data == "READY=1" else None))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


@pytest.mark.llama
def test_http_answers_while_the_engine_warms_and_a_turn_waits_for_the_prime(tmp_path):
    env = base_env(tmp_path)
    env["NOTIFY_SOCKET"] = str(tmp_path / "notify.sock")
    listener = NotifyListener(env["NOTIFY_SOCKET"])
    # One thread: the prime of the stable prefix takes seconds, long after HTTP is up.
    daemon = start_daemon(tmp_path, env=env, wait=False, llm={"max_tokens": 16, "n_threads": 1, "temperature": 0.2})
    listener.url = daemon.url
    try:
        deadline = time.monotonic() + 120
        first = None
        while first is None and time.monotonic() < deadline:
            assert daemon.proc.poll() is None, daemon.stderr[-2000:]
            first = _healthz(daemon.url)
            if first is None:
                time.sleep(0.02)
        assert first is not None, "healthz never answered"
        # The port is bound before the daemon is imported: the first answer says it starts.
        assert first["status"] == "starting" and first["engine"] == "starting", first
        serving = _serving(daemon)
        assert serving["status"] == "ok" and serving["engine"] == "warming"

        # A chat sent while the engine warms is answered once the prime is done, not failed.
        with openai.OpenAI(base_url=daemon.url + "/v1", api_key="unused", max_retries=0, timeout=300) as client:
            reply = client.chat.completions.create(
                model="homeagent", messages=[{"role": "user", "content": "Hello! Who are you?"}]
            )
        assert reply.choices[0].message.content.strip()
        assert _healthz(daemon.url)["engine"] == "ready"
        # Shutdown saves the engine's session state; a loaded machine takes a while.
        assert daemon.stop(timeout=90) == 0, daemon.stderr[-2000:]
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
        listener.close()

    events = [json.loads(line)["event"] for line in daemon.stderr.splitlines() if line.startswith("{")]
    # HTTP first, then the prime, then the turn that waited for it.
    assert events.index("http.listening") < events.index("llm.prefix_state.evaluated")
    assert events.index("daemon.ready") < events.index("engine.ready") < events.index("turn.finished")
    assert "turn.crashed" not in events and "turn.provider_failed" not in events

    # systemd READY means "HTTP answers": sent while the engine still warmed, then a STATUS
    # update once it is primed.
    datagrams = [m for m, _ in listener.messages]
    ready = datagrams.index("READY=1")
    assert datagrams[ready + 1] == "STATUS=serving; engine warming"
    assert listener.messages[ready][1] is not None  # /healthz answered when READY arrived
    assert any("engine ready" in m for m in datagrams[ready + 1 :])
    assert "STOPPING=1" in datagrams[-1]


@pytest.mark.llama
def test_sigterm_while_the_engine_warms_exits_zero_and_keeps_no_partial_state(tmp_path):
    daemon = start_daemon(tmp_path, wait=False, llm={"n_threads": 1})
    try:
        health = _serving(daemon)
        assert health["engine"] == "warming"
        # The prime stops within one batch instead of running to its end.
        assert daemon.stop(timeout=60) == 0, daemon.stderr[-2000:]
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    events = [json.loads(line)["event"] for line in daemon.stderr.splitlines() if line.startswith("{")]
    assert "llm.prefix_state.halted" in events and "llm.prefix_state.evaluated" not in events
    assert "daemon.stopped" in events
    data = tmp_path / "data"
    assert not list(data.rglob("prefix-*.bin")) and not list(data.rglob("session-*.bin"))
