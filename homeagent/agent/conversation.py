"""The one continuous conversation, persisted in SQLite.

Every finished exchange is written in one transaction (user and assistant message
together), so a restart resumes from exactly what was acknowledged. Clients page through
it as messages; a message can be forgotten on the user's request.

Each message belongs to the member who spoke ("" = shared; see homeagent.members): an
exchange in which the member says it is for everyone is stored as shared. Every read
takes a `member` filter: a member reads their own messages and the shared ones; None
reads them all (the household token, the single-user default).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import asdict, dataclass

from homeagent.log import redact_text
from homeagent.members import for_everyone
from homeagent.store import Database
from homeagent.text import scrub_surrogates


@dataclass(frozen=True)
class StoredMessage:
    id: int
    turn_id: str
    role: str
    content: str
    channel: str
    device_id: str
    created_at: float
    member: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


_FIELDS = "id, turn_id, role, content, channel, device_id, created_at, member"


def _visible(member: str | None) -> tuple[str, tuple[str, ...]]:
    """A WHERE clause (with its parameters) for the messages `member` may read."""
    if member is None:
        return "1", ()
    return "member IN ('', ?)", (member,)


class Conversation:
    def __init__(self, db: Database):
        self._db = db

    async def record_exchange(
        self, turn_id: str, channel: str, device_id: str, user: str, assistant: str, member: str = ""
    ) -> None:
        now = time.time()
        owner = "" if member and for_everyone(user) else member
        # Secrets the user typed are redacted at rest with the rules runs use; text that
        # cannot be encoded (a lone surrogate from a model) is stored with U+FFFD.
        user, assistant = scrub_surrogates(redact_text(user)), scrub_surrogates(redact_text(assistant))

        def write(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "INSERT INTO messages(turn_id, role, content, channel, device_id, created_at, member) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (turn_id, "user", user, channel, device_id, now, owner),
                    (turn_id, "assistant", assistant, channel, device_id, now, owner),
                ],
            )

        await self._db.write(write)

    async def recent(self, exchanges: int, member: str | None = None) -> list[StoredMessage]:
        """The last `exchanges` user/assistant pairs `member` may read, oldest first."""
        if exchanges <= 0:
            return []
        where, params = _visible(member)
        rows = await self._db.fetchall(
            f"SELECT * FROM (SELECT {_FIELDS} FROM messages WHERE {where} ORDER BY id DESC LIMIT ?)"
            " ORDER BY id",
            (*params, exchanges * 2),
        )
        return [StoredMessage(**dict(r)) for r in rows]

    async def page(
        self, *, before: int | None = None, limit: int = 50, member: str | None = None
    ) -> list[StoredMessage]:
        """Messages `member` may read, newest first, strictly older than message id `before`."""
        where, params = _visible(member)
        rows = await self._db.fetchall(
            f"SELECT {_FIELDS} FROM messages WHERE id < ? AND {where} ORDER BY id DESC LIMIT ?",
            (before if before is not None else 2**62, *params, limit),
        )
        return [StoredMessage(**dict(r)) for r in rows]

    async def get(self, message_id: int, member: str | None = None) -> StoredMessage | None:
        """One message, or None when there is none `member` may read."""
        where, params = _visible(member)
        rows = await self._db.fetchall(
            f"SELECT {_FIELDS} FROM messages WHERE id = ? AND {where}", (message_id, *params)
        )
        return StoredMessage(**dict(rows[0])) if rows else None

    async def delete(self, message_id: int) -> StoredMessage | None:
        """Remove one message; returns it, or None when there was none."""
        found = await self.get(message_id)
        if found is not None:
            await self._db.execute("DELETE FROM messages WHERE id = ?", (message_id,))
        return found

    async def members(self) -> list[str]:
        """Every member who has spoken, in no particular order."""
        rows = await self._db.fetchall("SELECT DISTINCT member FROM messages WHERE member != ''")
        return [r["member"] for r in rows]

    async def count(self) -> int:
        rows = await self._db.fetchall("SELECT COUNT(*) AS n FROM messages")
        return int(rows[0]["n"])
