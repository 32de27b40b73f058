"""Household members and their API tokens.

Each member has a token, shown once when it is made; only its SHA-256 hash is stored.
A request's member comes from its bearer token. Revoking a member's token keeps the
member's records but the token stops working at once.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass

from homeagent.errors import RequestError
from homeagent.store import Database

_NAME_RE = re.compile(r"^[\w\-. ]{1,40}$", re.UNICODE)
TOKEN_PREFIX = "ha_"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Member:
    name: str
    created_at: float
    revoked_at: float | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class MemberStore:
    def __init__(self, db: Database):
        self._db = db
        self._active: dict[str, str] = {}  # token hash → name

    async def load(self) -> None:
        rows = await self._db.fetchall("SELECT name, token_hash FROM members WHERE revoked_at IS NULL")
        self._active = {r["token_hash"]: r["name"] for r in rows}

    @property
    def any_active(self) -> bool:
        return bool(self._active)

    def resolve(self, token: str) -> str | None:
        """The member a bearer token belongs to, or None."""
        return self._active.get(hash_token(token)) if token else None

    async def add(self, name: str) -> str:
        """Create a member (or give a revoked one a new token); returns the token."""
        name = name.strip()
        if not _NAME_RE.match(name):
            raise RequestError(
                "member name: 1-40 letters, digits, spaces, '.', '_' or '-'", param="name"
            )
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        digest = hash_token(token)

        def write(conn: sqlite3.Connection) -> None:
            row = conn.execute("SELECT revoked_at FROM members WHERE name = ?", (name,)).fetchone()
            if row is not None and row["revoked_at"] is None:
                raise RequestError(f"member {name!r} already exists; revoke it first to issue a new token")
            conn.execute(
                "INSERT INTO members(name, token_hash, created_at, revoked_at) VALUES (?, ?, ?, NULL) "
                "ON CONFLICT(name) DO UPDATE SET token_hash = excluded.token_hash, revoked_at = NULL",
                (name, digest, time.time()),
            )

        await self._db.write(write)
        self._active[digest] = name
        return token

    async def revoke(self, name: str) -> bool:
        changed = await self._db.write(
            lambda c: c.execute(
                "UPDATE members SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (time.time(), name)
            ).rowcount
        )
        self._active = {h: n for h, n in self._active.items() if n != name}
        return bool(changed)

    async def list(self) -> list[Member]:
        rows = await self._db.fetchall("SELECT name, created_at, revoked_at FROM members ORDER BY name")
        return [Member(r["name"], r["created_at"], r["revoked_at"]) for r in rows]
