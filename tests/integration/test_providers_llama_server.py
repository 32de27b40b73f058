"""A genuine upstream: llama-cpp-python's own OpenAI-compatible server with the bundled
model, driven by the OpenAI-compatible provider (streaming and not) and by the daemon."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import anyio
import openai
import pytest

from homeagent.llm.base import ChatRequest, Message, StreamDone, TextDelta, Usage
from homeagent.llm.echo import EchoProvider
from homeagent.llm.http import HttpOptions
from homeagent.llm.models import bundled_model_path
from homeagent.llm.openai_compat import OpenAICompatProvider
from homeagent.llm.router import Route, Router
from tests.conftest import free_port
from tests.integration.helpers import running_app

pytestmark = [pytest.mark.anyio, pytest.mark.llama]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = bundled_model_path()
    if model is None:
        pytest.skip("the bundled model is not installed")
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError:
        pytest.skip("llama-cpp-python's server extras are not installed (make bench-deps)")
    port = free_port()
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "2048", "--seed", "7"],
            stdout=out, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"llama_cpp.server exited: {Path(log).read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/v1/models", timeout=2):
                break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        raise AssertionError("llama_cpp.server did not start in 180 s")
    try:
        yield url + "/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def server_provider(base: str, **kw) -> OpenAICompatProvider:
    return OpenAICompatProvider(
        name="llama-server", base_url=base, model="smollm2", needs_key=False, cloud=False,
        options=HttpOptions(connect_timeout=5, read_timeout=120, max_retries=1), **kw,
    )


def request(text: str) -> ChatRequest:
    return ChatRequest(messages=(Message("system", "You are a helpful assistant."), Message("user", text)),
                       temperature=0.0, max_tokens=24)


@pytest.mark.parametrize("prompt", ["Hello! Who are you?", "你好，你是谁？"])
async def test_streaming_from_the_real_server(llama_server: str, prompt: str):
    p = server_provider(llama_server)
    with anyio.fail_after(180):
        events = [e async for e in p.stream(request(prompt))]
    await p.aclose()
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1 and "".join(d.text for d in deltas).strip()  # really streamed
    assert isinstance(events[-1], StreamDone) and events[-1].finish_reason in ("stop", "length")
    assert p.status().state == "ready"


async def test_non_streaming_and_discovery_against_the_real_server(llama_server: str):
    p = server_provider(llama_server, streaming=False)
    with anyio.fail_after(180):
        events = [e async for e in p.stream(request("Say hi."))]
        models = await p.list_models()
    await p.aclose()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).strip()
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.prompt_tokens > 5 and 0 < usage.completion_tokens <= 24
    assert any(m.endswith(".gguf") for m in models)


async def test_the_daemon_answers_through_the_real_server(make_config, llama_server: str):
    router = Router([Route("llama-server", server_provider(llama_server), cloud=False, type="openai_compatible"),
                     Route("echo", EchoProvider(), type="echo")])
    config = make_config(llm={"max_tokens": 16, "temperature": 0.0})
    async with running_app(config, provider=router, http=True) as app:
        base = f"http://127.0.0.1:{app.health.port}"
        async with openai.AsyncOpenAI(base_url=base + "/v1", api_key="unused", max_retries=0, timeout=180) as oa:
            stream = await oa.chat.completions.create(
                model="homeagent", messages=[{"role": "user", "content": "Hello there"}], stream=True)
            chunks = [c async for c in stream]
        answer = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert answer.strip() and answer != "Hello there"  # the model, not the echo fallback
        async with aiohttp.ClientSession() as s, s.get(base + "/healthz") as r:
            health = await r.json()
    providers = health["provider"]["providers"]
    assert [p["name"] for p in providers] == ["llama-server", "echo"] and providers[0]["served"] >= 1
