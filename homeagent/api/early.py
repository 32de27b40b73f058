"""The daemon's port, bound before the rest of it is imported.

`homeagent serve` spends its first seconds importing the daemon and opening its stores.
So that `/healthz` answers within moments of the start (systemd, a monitor, a satellite
waiting for the box), the listening socket is bound first and served by this small loop,
standard library only: `GET /healthz` (and `HEAD`) is answered `{"status": "starting"}`;
every other connection is parked unread, its request left in the socket
(`MSG_PEEK`), and handed to the real server when it starts on the same socket
(`handover`), so a request sent in the first second waits and is answered, never refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import socket
import time

from homeagent.errors import StartupError

_PEEK = 4096  # a request line longer than this is not /healthz: parked
_HEAD_LIMIT = 16384


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_listen(host: str, token: str) -> None:
    """Only loopback may be served without an API token."""
    if not is_loopback(host) and not token:
        raise StartupError(
            f"listening on {host} (not loopback) requires an API token: set api.token "
            "(for example api.token: ${HOMEAGENT_API_TOKEN}) or listen on 127.0.0.1"
        )


def cannot_listen(host: str, port: int, err: OSError) -> StartupError:
    return StartupError(f"cannot listen on {host}:{port}: {err.strerror or err}")


class EarlyListener:
    """A bound, listening socket and the loop that serves it until `handover`."""

    def __init__(self, host: str, port: int, *, version: str = "") -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            sock.listen(128)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        self.socket = sock
        self.port = int(sock.getsockname()[1])
        self.version = version
        self.started_at = time.time()
        self.parked: list[socket.socket] = []
        self.answered = 0
        self._task: asyncio.Task[None] | None = None
        self._handed = False
        self._peeking: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._accept_loop())

    async def _accept_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            conn, _ = await loop.sock_accept(self.socket)
            conn.setblocking(False)
            task = loop.create_task(self._triage(conn))
            self._peeking.add(task)
            task.add_done_callback(self._peeking.discard)

    async def _triage(self, conn: socket.socket) -> None:
        """Answer a health check; park anything else with its bytes unread."""
        try:
            head = await _peek_line(conn)
        except OSError:
            conn.close()
            return
        if head is None:  # closed before saying anything
            conn.close()
            return
        method, _, rest = head.partition(b" ")
        path = rest.split(b" ", 1)[0].split(b"?", 1)[0]
        if path == b"/healthz" and method in (b"GET", b"HEAD"):
            try:
                await self._answer(conn, head_only=method == b"HEAD")
            finally:
                conn.close()
            return
        self.parked.append(conn)

    async def _answer(self, conn: socket.socket, *, head_only: bool) -> None:
        loop = asyncio.get_running_loop()
        received = b""
        while b"\r\n\r\n" not in received and len(received) < _HEAD_LIMIT:
            chunk = await loop.sock_recv(conn, 4096)
            if not chunk:
                return
            received += chunk
        body = json.dumps({
            "status": "starting", "engine": "starting", "version": self.version,
            "uptime_s": round(time.time() - self.started_at, 1),
            "detail": "the daemon is starting; requests sent now are answered when it is up",
        }).encode()
        header = (
            "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        ).encode()
        await loop.sock_sendall(conn, header if head_only else header + body)
        self.answered += 1

    async def handover(self) -> tuple[socket.socket, list[socket.socket]]:
        """Stop serving; the listening socket and the parked connections, for the real
        server (which takes the socket as it is: connections waiting in its backlog are
        accepted by it)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        # A connection being looked at finishes its triage (a health check is answered,
        # anything else parked) before the sockets change hands.
        if self._peeking:
            await asyncio.gather(*self._peeking, return_exceptions=True)
        parked, self.parked = self.parked, []
        self._handed = True
        return self.socket, parked

    def close(self) -> None:
        """Give up (the daemon failed to start): nothing parked is left hanging."""
        if self._task is not None:
            self._task.cancel()
        for task in list(self._peeking):
            task.cancel()
        for conn in self.parked:
            conn.close()
        self.parked = []
        if not self._handed:  # once handed over, the server owns (and closes) it
            self.socket.close()


async def _peek_line(conn: socket.socket) -> bytes | None:
    """The request line, read with MSG_PEEK (nothing is consumed): None when the peer
    closed without a byte; a prefix when the line is longer than _PEEK."""
    loop = asyncio.get_running_loop()
    while True:
        ready: asyncio.Future[None] = loop.create_future()
        loop.add_reader(conn.fileno(), _settle, ready)
        try:
            await ready
        finally:
            loop.remove_reader(conn.fileno())
        try:
            data = conn.recv(_PEEK, socket.MSG_PEEK)
        except BlockingIOError:
            continue
        if not data:
            return None
        line, newline, _ = data.partition(b"\r\n")
        if newline or len(data) >= _PEEK:
            return line
        # Part of a line: the socket stays readable until more arrives; wait a moment
        # instead of spinning on the same bytes.
        await asyncio.sleep(0.01)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
