"""The one continuous conversation, persisted in SQLite.

Every finished exchange is written in one transaction (user and assistant message
together), so a restart resumes from exactly what was acknowledged.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from homeagent.store import Database


@dataclass(frozen=True)
class StoredMessage:
    id: int
    turn_id: str
    role: str
    content: str
    channel: str
    device_id: str
    created_at: float


class Conversation:
    def __init__(self, db: Database):
        self._db = db

    async def record_exchange(
        self, turn_id: str, channel: str, device_id: str, user: str, assistant: str
    ) -> None:
        now = time.time()

        def write(conn):  # type: ignore[no-untyped-def]
            conn.executemany(
                "INSERT INTO messages(turn_id, role, content, channel, device_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (turn_id, "user", user, channel, device_id, now),
                    (turn_id, "assistant", assistant, channel, device_id, now),
                ],
            )

        await self._db.write(write)

    async def recent(self, exchanges: int) -> list[StoredMessage]:
        """The last `exchanges` user/assistant pairs, oldest first."""
        if exchanges <= 0:
            return []
        rows = await self._db.fetchall(
            "SELECT * FROM (SELECT id, turn_id, role, content, channel, device_id, created_at "
            "FROM messages ORDER BY id DESC LIMIT ?) ORDER BY id",
            (exchanges * 2,),
        )
        return [StoredMessage(**dict(r)) for r in rows]

    async def count(self) -> int:
        rows = await self._db.fetchall("SELECT COUNT(*) AS n FROM messages")
        return int(rows[0]["n"])
