"""Property tests against the running daemon: arbitrary bodies, headers and multipart
uploads never get a 5xx and never stop it (hypothesis drives raw HTTP on loopback)."""

from __future__ import annotations

import http.client
import json
import urllib.request
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import start_daemon

TOKEN = "property-token"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("properties")
    d = start_daemon(tmp, llm={"provider": "echo"}, api={"token": TOKEN, "max_body_bytes": 65536})
    yield d
    d.stop()


def send(url: str, method: str, path: str, body: bytes = b"", headers: dict[str, bytes] | None = None) -> int:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        if body or method == "POST":
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        if resp.getheader("Content-Type", "").startswith("text/event-stream"):
            data = resp.read()
            assert b"HTTP/1.1 5" not in data
        return resp.status
    finally:
        conn.close()


def alive(url: str) -> None:
    with urllib.request.urlopen(url + "/healthz", timeout=10) as resp:
        assert json.load(resp)["status"] == "ok"


AUTH = {"Authorization": f"Bearer {TOKEN}".encode()}
header_bytes = st.binary(max_size=40).filter(lambda b: b"\r" not in b and b"\n" not in b)
json_ish = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(str.encode),
    st.recursive(st.text(max_size=10) | st.integers() | st.none(),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                 max_leaves=10).map(lambda v: json.dumps(v).encode()),
    st.sampled_from([b'{"message": "hi \\ud800"}', b'{"input": "\\udfff"}', b"[" * 5000,
                     b'{"model": "homeagent", "messages": [{"role": "user", "content": "\\ud83d"}]}']),
)


@SETTINGS
@given(path=st.sampled_from(["/v1/chat/completions", "/api/chat", "/api/agent/runs", "/api/knowledge"]),
       body=json_ish)
def test_json_routes_never_fail_on_any_body(daemon, path, body):
    status = send(daemon.url, "POST", path, body, {**AUTH, "Content-Type": b"application/json"})
    assert status < 500, (path, body[:80])


@SETTINGS
@given(value=header_bytes)
def test_authorization_header_of_any_bytes_is_401_or_accepted(daemon, value):
    status = send(daemon.url, "GET", "/api/devices", headers={"Authorization": value})
    assert status in (200, 400, 401) and (status != 200 or value == AUTH["Authorization"])


@SETTINGS
@given(value=header_bytes)
def test_last_event_id_of_any_bytes_gets_an_answer_before_the_stream(daemon, value):
    status, run = 0, None
    body = json.dumps({"input": "hello"}).encode()
    parts = urlsplit(daemon.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("POST", "/api/agent/runs", body, {"Authorization": f"Bearer {TOKEN}",
                                                        "Content-Type": "application/json"})
        resp = conn.getresponse()
        run = json.load(resp)
    finally:
        conn.close()
    status = send(daemon.url, "GET", run["events_url"], headers={**AUTH, "Last-Event-ID": value})
    assert status in (200, 400)


@SETTINGS
@given(filename=st.text(max_size=30), content=st.binary(max_size=200), garbage=st.binary(max_size=200),
       mangle=st.booleans())
def test_multipart_uploads_of_any_shape_never_fail(daemon, filename, content, garbage, mangle):
    boundary = "PropBoundary"
    safe_name = filename.replace('"', "").replace("\r", "").replace("\n", "")
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"topic\"\r\n\r\nproperty\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{safe_name}\"\r\n"
        f"Content-Type: text/plain\r\n\r\n"
    ).encode("utf-8", "replace") + content + f"\r\n--{boundary}--\r\n".encode()
    if mangle:
        body = body[: len(body) // 2] + garbage
    status = send(daemon.url, "POST", "/api/knowledge", body,
                  {**AUTH, "Content-Type": f"multipart/form-data; boundary={boundary}".encode()})
    assert status < 500, (filename, body[:120])


def test_daemon_is_healthy_after_the_properties(daemon):
    alive(daemon.url)
