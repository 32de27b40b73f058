"""The daemon without the voice extra: it starts, serves text, and every speech route
answers 503 naming the extra; its Wyoming info then offers the agent alone."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

import anyio
from wyoming.client import AsyncTcpClient
from wyoming.info import Describe, Info

from tests.conftest import free_port

from .conftest import base_env, start_daemon

# Run first in the daemon's interpreter: the speech packages cannot be imported there,
# exactly as on an install without `homeagent[voice]`.
HIDE_EXTRA = "import sys\nfor name in ('faster_whisper', 'piper'):\n    sys.modules[name] = None\n"


def post(url: str, body: bytes, content_type: str) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": content_type}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


def test_daemon_without_the_voice_extra_starts_and_names_it(tmp_path):
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(HIDE_EXTRA)
    env = base_env(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(hide), env.get("PYTHONPATH", "")) if p)
    port = free_port()
    daemon = start_daemon(
        tmp_path, env=env, llm={"provider": "echo"}, io={"wyoming": {"enabled": True, "port": port}},
    )
    try:
        for path, body, kind in (
            ("/v1/audio/transcriptions", b"RIFF", "audio/wav"),
            ("/v1/audio/speech", json.dumps({"input": "hello"}).encode(), "application/json"),
            ("/api/voice", b"RIFF", "audio/wav"),
        ):
            status, reply = post(daemon.url + path, body, kind)
            assert status == 503, (path, reply)
            assert "homeagent[voice]" in reply["error"]["message"] and "faster_whisper" in reply["error"]["message"]
        status, reply = post(
            daemon.url + "/v1/chat/completions",
            json.dumps({"model": "echo", "messages": [{"role": "user", "content": "still here"}]}).encode(),
            "application/json",
        )
        assert status == 200 and reply["choices"][0]["message"]["content"] == "still here"

        async def describe() -> Info:
            async with AsyncTcpClient("127.0.0.1", port) as client:
                await client.write_event(Describe().event())
                with anyio.fail_after(5):
                    event = await client.read_event()
            assert event is not None
            return Info.from_event(event)

        info = anyio.run(describe)
        assert [p.name for p in info.handle] == ["homeagent"] and info.asr == [] and info.tts == []
    finally:
        assert daemon.stop() == 0
