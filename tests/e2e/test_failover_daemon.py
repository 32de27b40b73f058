"""The daemon as a subprocess with a provider chain: a cloud (the fault-injecting upstream,
in a thread of this process) in front of a local engine, driven by the openai client and
the CLI; failover, cooldown in /healthz, and the key never in any output."""

from __future__ import annotations

import json
import urllib.request

import openai
import pytest

from homeagent.llm.fake_upstream import FakeUpstream, Fault, serve_in_thread

KEY = "sk-e2e-secret-0123456789"


def chain(upstream: FakeUpstream, local: dict) -> dict:
    return {
        "providers": {
            "deepseek": {"type": "openai_compatible", "base_url": upstream.base_url, "model": "deepseek-v4-flash",
                         "api_key": KEY, "location": "cloud", "max_retries": 1, "read_timeout": "5s"},
            "local": local,
        },
        "chain": ["deepseek", "local"],
        "max_tokens": 24,
        "n_ctx": 4096,
    }


def healthz(daemon) -> dict:
    with urllib.request.urlopen(daemon.url + "/healthz", timeout=10) as resp:
        return json.load(resp)


def ask(daemon, text: str) -> str:
    with openai.OpenAI(base_url=daemon.url + "/v1", api_key="unused", max_retries=0, timeout=120) as oa:
        stream = oa.chat.completions.create(model="homeagent", messages=[{"role": "user", "content": text}],
                                            stream=True)
        return "".join(c.choices[0].delta.content or "" for c in stream if c.choices)


def test_daemon_fails_over_to_the_local_engine_and_shows_it(daemon_factory):
    with serve_in_thread(FakeUpstream(default=Fault(text="cloud says hi"))) as up:
        daemon = daemon_factory(llm=chain(up, {"type": "echo"}))
        assert ask(daemon, "hello") == "cloud says hi"
        h = healthz(daemon)
        assert h["status"] == "ok" and h["provider"]["active"] == "deepseek"
        assert up.chat_requests[-1].authorized

        up.default = Fault("status", status=500)
        answer = ask(daemon, "are you there?")
        assert "unavailable" in answer and answer.endswith("are you there?")  # echo = the local engine
        h = healthz(daemon)
        states = {p["name"]: p for p in h["provider"]["providers"]}
        assert h["status"] == "degraded" and h["provider"]["active"] == "local"
        assert states["deepseek"]["state"] == "cooling" and states["deepseek"]["error_kind"] == "upstream_unavailable"

        chat = daemon.cli("chat", "--url", daemon.url, "你好")
        assert chat.returncode == 0 and chat.stdout == "你好\n"  # cooling: straight to local, told once already
        assert daemon.stop() == 0
    lines = [json.loads(line) for line in daemon.stderr.splitlines() if line.startswith("{")]
    names = [line["event"] for line in lines]
    assert "llm.router.failover" in names and "llm.router.cooldown" in names
    failed = next(line for line in lines if line["event"] == "llm.provider.failed")
    assert failed["error_kind"] == "upstream_unavailable" and failed["status"] == 500
    assert KEY not in daemon.stderr and KEY not in json.dumps(h)


def test_without_a_key_the_cloud_is_skipped_without_a_call(daemon_factory):
    with serve_in_thread(FakeUpstream()) as up:
        llm = chain(up, {"type": "echo"})
        llm["providers"]["deepseek"]["api_key"] = "${NO_SUCH_KEY_ANYWHERE:-}"
        daemon = daemon_factory(llm=llm)
        assert ask(daemon, "plain local") == "plain local"  # no notice: nothing failed
        h = healthz(daemon)
        assert h["status"] == "ok" and h["provider"]["providers"][0]["state"] == "skipped"
        assert up.requests == []
        assert daemon.stop() == 0


@pytest.mark.llama
def test_dead_cloud_falls_back_to_the_real_local_model(daemon_factory):
    with serve_in_thread(FakeUpstream(default=Fault("status", status=503))) as up:
        daemon = daemon_factory(llm=chain(up, {"type": "llama_cpp"}))
        answer = ask(daemon, "你好，你是谁？")
        assert answer.startswith("（云端模型暂时不可用") and len(answer) > len("（云端模型暂时不可用，由本地模型回答。）")
        h = healthz(daemon)
        assert h["provider"]["active"] == "local" and h["provider"]["model"] == "smollm2-135m-instruct"
        assert len(up.chat_requests) == 2  # one retry, then the local engine
        assert daemon.stop() == 0
