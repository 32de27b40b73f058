"""The port bound before the daemon is imported: /healthz answers while it starts, and
requests sent meanwhile wait and are answered by the real server on the same socket."""

from __future__ import annotations

import asyncio
import json
import socket

import aiohttp
import anyio
import pytest

from homeagent.api.early import EarlyListener
from homeagent.app import App

pytestmark = pytest.mark.anyio


async def _raw(port: int, data: bytes, *, pause_after: int = 0, pause: float = 0.0) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        if pause_after:
            writer.write(data[:pause_after])
            await writer.drain()
            await asyncio.sleep(pause)
            data = data[pause_after:]
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()


def _body(response: bytes) -> dict:
    head, _, body = response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    return json.loads(body)


async def test_healthz_answers_while_starting_and_parked_requests_are_served_after(make_config) -> None:
    config = make_config(llm={"provider": "echo"})
    early = EarlyListener("127.0.0.1", 0, version="test")
    early.start()
    base = f"http://127.0.0.1:{early.port}"
    try:
        body = _body(await _raw(early.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
        assert body["status"] == "starting" and body["engine"] == "starting"
        # A health check whose request line arrives in pieces is still answered.
        slow = _body(await _raw(early.port, b"GET /healthz?x=1 HTTP/1.1\r\nHost: x\r\n\r\n", pause_after=7, pause=0.1))
        assert slow["status"] == "starting"
        head = await _raw(early.port, b"HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and head.endswith(b"\r\n\r\n")
        # A peer that connects and leaves costs nothing.
        with socket.create_connection(("127.0.0.1", early.port)):
            pass

        async with aiohttp.ClientSession() as session:

            async def chat() -> tuple[int, str]:
                async with session.post(base + "/api/chat", json={"message": "早上好 early bird"}) as resp:
                    return resp.status, await resp.text()

            sent = asyncio.ensure_future(chat())
            for _ in range(100):
                if early.parked:
                    break
                await asyncio.sleep(0.02)
            assert len(early.parked) == 1 and not sent.done()  # waiting, not refused
            assert early.answered == 3

            async with App(config, prime_on_open=False) as app, anyio.create_task_group() as tg:
                ready = anyio.Event()
                tg.start_soon(lambda: app.run(on_ready=ready.set, early=early))
                await ready.wait()
                assert app.health.port == early.port
                status, text = await asyncio.wait_for(sent, 30)
                assert status == 200 and "early bird" in text and "早上好" in text
                async with session.get(base + "/healthz") as resp:
                    real = await resp.json()
                assert resp.status == 200 and real["status"] in ("ok", "degraded") and "db" in real
                tg.cancel_scope.cancel()
    finally:
        early.close()


async def test_a_port_in_use_is_refused_at_bind() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(OSError):
            EarlyListener("127.0.0.1", busy.getsockname()[1])


async def test_close_before_handover_drops_what_was_parked() -> None:
    early = EarlyListener("127.0.0.1", 0)
    early.start()
    reader, writer = await asyncio.open_connection("127.0.0.1", early.port)
    writer.write(b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
    await writer.drain()
    for _ in range(100):
        if early.parked:
            break
        await asyncio.sleep(0.02)
    assert len(early.parked) == 1
    early.close()
    try:  # closed, not left hanging (a reset: its request was never read)
        assert await asyncio.wait_for(reader.read(), 5) == b""
    except ConnectionResetError:
        pass
    writer.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", early.port), timeout=1).close()
