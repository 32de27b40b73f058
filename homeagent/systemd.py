"""systemd integration: READY/STOPPING notifications and watchdog pings over NOTIFY_SOCKET.

Speaks the sd_notify datagram protocol directly (a few lines) rather than adding a
dependency; every call is a no-op when the daemon is not run by systemd.
"""

from __future__ import annotations

import os
import socket

import anyio


def notify(message: str) -> bool:
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError:
        return False
    return True


def watchdog_interval() -> float | None:
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or not usec.isdigit() or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 1_000_000 / 2


async def watchdog_loop() -> None:
    """Ping systemd's watchdog at half its interval while the event loop is alive."""
    interval = watchdog_interval()
    if interval is None:
        return
    while True:
        notify("WATCHDOG=1")
        await anyio.sleep(interval)
