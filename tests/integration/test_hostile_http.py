"""Hostile and malformed HTTP input: every answer a 4xx naming the problem, the daemon up.

Raw bytes go over a real socket where an HTTP client would refuse to send them (a lone
surrogate escape, a header that is not text, a JSON body nested 100,000 deep).
"""

from __future__ import annotations

import json

import aiohttp
import anyio
import pytest

from homeagent.llm.echo import EchoProvider
from homeagent.llm.testing import FunctionProvider

from .helpers import running_app

pytestmark = pytest.mark.anyio

SURROGATE_CHAT = b'{"model":"homeagent","messages":[{"role":"user","content":"hi \\ud800"}]}'


def base(app) -> str:
    return f"http://127.0.0.1:{app.health.port}"


async def raw(app, request: bytes) -> bytes:
    """Send raw bytes over a socket; return everything the server answers."""
    async with await anyio.connect_tcp("127.0.0.1", app.health.port) as sock:
        await sock.send(request)
        data = b""
        with anyio.move_on_after(10):
            while True:
                try:
                    data += await sock.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    break
    return data


def post(path: str, body: bytes, ctype: str = "application/json", extra: str = "") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
        f"{extra}Connection: close\r\n\r\n"
    ).encode("latin-1") + body


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def error_of(answer: bytes) -> str:
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["message"]


async def still_serving(app) -> None:
    async with aiohttp.ClientSession() as s:
        async with s.get(base(app) + "/healthz") as r:
            assert r.status == 200
            health = await r.json()
        async with s.post(base(app) + "/v1/chat/completions",
                          json={"model": "homeagent", "messages": [{"role": "user", "content": "still here"}]}) as r:
            assert r.status == 200, await r.text()
    assert health["status"] == "ok", health


async def test_lone_surrogates_are_refused_and_the_daemon_stays_up(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        bodies = [
            ("/v1/chat/completions", SURROGATE_CHAT),
            ("/v1/chat/completions",
             b'{"model":"homeagent","user":"\\udfff","messages":[{"role":"user","content":"hi"}]}'),
            ("/api/chat", b'{"message":"hi \\ud800"}'),
            ("/api/chat", b'{"message":"hi","device_id":"\\ud800x"}'),
            ("/api/agent/runs", b'{"input":"hi \\ud800"}'),
            ("/api/knowledge", b'{"topic":"t","filename":"a.md","content":"x \\ud800"}'),
        ]
        for path, body in bodies:
            answer = await raw(app, post(path, body))
            assert status_of(answer) == 400, (path, answer[:300])
            assert "surrogate" in error_of(answer), answer
        await anyio.sleep(0.2)  # the run writer had its chance to choke
        await still_serving(app)


async def test_deep_nesting_is_refused_before_parsing(make_config):
    deep = b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        for path in ("/v1/chat/completions", "/api/chat", "/api/agent/runs", "/api/knowledge"):
            answer = await raw(app, post(path, deep))
            assert status_of(answer) == 400, (path, answer[:300])
            assert "nested deeper than" in error_of(answer)
        await still_serving(app)


@pytest.mark.parametrize("value", ["--5", "²", "9223372036854775808", "1" * 40, "-1x"])
async def test_last_event_id_is_validated_before_the_stream(make_config, value):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/agent/runs", json={"input": "hello"}) as r:
                run = await r.json()
        request = (
            f"GET {run['events_url']} HTTP/1.1\r\nHost: x\r\nLast-Event-ID: {value}\r\nConnection: close\r\n\r\n"
        ).encode()
        answer = await raw(app, request)
        assert status_of(answer) == 400, answer[:400]
        assert "Last-Event-ID" in error_of(answer)
        await still_serving(app)


async def test_authorization_header_that_is_not_text_gets_401(make_config):
    async with running_app(make_config(api={"token": "s3cret-token"}), provider=EchoProvider(), http=True) as app:
        for header in (b"Bearer \xff\xfe", b"\xff\xfe", "Bearer 令牌".encode()):
            request = b"GET /api/devices HTTP/1.1\r\nHost: x\r\nAuthorization: " + header + b"\r\nConnection: close\r\n\r\n"
            answer = await raw(app, request)
            assert status_of(answer) == 401, (header, answer[:300])
            assert "Authorization" in error_of(answer) or "token" in error_of(answer)


async def test_bad_multipart_uploads_get_400(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        b = "XyZ"
        nul_name = (
            f"--{b}\r\nContent-Disposition: form-data; name=\"topic\"\r\n\r\ncooking\r\n"
            f"--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\x00b.md\"\r\n"
            f"Content-Type: text/markdown\r\n\r\n# hi\r\n--{b}--\r\n"
        ).encode()
        garbage = b"\x00\xff garbage that is no multipart at all \r\n--" * 20
        for body, ctype in (
            (nul_name, f"multipart/form-data; boundary={b}"),
            (garbage, f"multipart/form-data; boundary={b}"),
            (garbage, "multipart/form-data"),
            (b"--" + b.encode() + b"\r\nno headers end", f"multipart/form-data; boundary={b}"),
        ):
            answer = await raw(app, post("/api/knowledge", body, ctype))
            assert 400 <= status_of(answer) < 500, answer[:400]
        await still_serving(app)


async def test_error_after_the_stream_started_is_an_error_event(make_config):
    def reply(request):
        return "broken \ud800 text"  # a model that emits a lone surrogate

    async with running_app(make_config(), provider=FunctionProvider(reply), http=True) as app:
        answer = await raw(app, post("/api/chat", b'{"message":"hi"}'))
        assert status_of(answer) == 200
        body = answer.split(b"\r\n\r\n", 1)[1]
        assert b"HTTP/1.1 500" not in body, body
        assert b"event: done" in body or b"event: error" in body, body
        await anyio.sleep(0.2)
        async with aiohttp.ClientSession() as s, s.get(base(app) + "/healthz") as r:
            assert r.status == 200


async def test_undecodable_paths_and_queries_get_4xx(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        for target in (
            "/api/knowledge/search?q=%ff%fe", "/api/knowledge/search?q=%ED%A0%80&topic=%ff",
            "/api/agent/runs/%ff%fe", "/api/agent/runs/%ED%A0%80/events", "/api/agent/runs?status=%ff",
            "/api/agent/runs?before=%ED%A0%80", "/api/messages?before=%ff", "/api/agent/runs/x/trace?limit=%ff",
        ):
            answer = await raw(app, f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            assert status_of(answer) < 500, (target, answer[:300])
        answer = await raw(app, b"DELETE /api/messages/%ED%A0%80 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert status_of(answer) < 500, answer[:300]
        await still_serving(app)
