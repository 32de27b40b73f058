"""Household members, their API tokens, and what of the household each one sees.

Each member has a token, shown once when it is made; only its SHA-256 hash is stored.
A request's member comes from its bearer token, looked up in the database on every
request (`lookup`), so adding, rotating or revoking a token takes effect at once, even
from another process. Revoking keeps the member's records.

What is whose (members are sealed):

- A member's own: everything the member says (their exchanges with the agent) and
  everything recorded for them: documents committed in their turns, context archived
  from their exchanges, graph facts distilled from or committed in their turns, their
  runs and traces, and the records the life actions keep per member (diary, private
  notes, health, ...).
- Household-shared: exchanges with no member (member "": the household token, a device
  without a member, the single-user default), the knowledge base, household lists and
  events, and whatever a member says is for everyone ("告诉大家…", "tell everyone …"):
  that exchange is recorded with no member, and what is committed or distilled from it
  is shared too.

A member sees their own and the shared; the speaker with no member sees the shared (so
with no members at all, everything is the household's and nothing changes). Owners are
stored as the member's name, "" for shared; `visible_to` is the one rule.
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


# Saying that something is for everyone: "告诉大家…", "大家注意", "tell everyone …".
_FOR_EVERYONE = re.compile(
    r"(告诉|通知|转告|提醒)(一下)?(大家|全家|所有人|家里人|每个人)"
    r"|(跟|和|对|给|向)(大家|全家|所有人|家里人|每个人)(说|讲|宣布|交代)"
    r"|(让|叫)(大家|全家|所有人|家里人|每个人)(都)?(知道|注意|看看)"
    r"|(大家|全家|所有人|各位)(都)?(注意|请注意|听好|知悉)"
    r"|\b(tell|inform|remind|warn|notify)\s+(everyone|everybody|all|the\s+(whole\s+)?(family|household))(?![\w'’])"
    r"|\blet\s+(everyone|everybody|the\s+(whole\s+)?(family|household))\s+know\b"
    r"|\bfor\s+(everyone|everybody|the\s+(whole\s+)?(family|household))(?![\w'’])"
    r"|\b(everyone|everybody)\s*[:,，：]",
    re.IGNORECASE,
)
# ... unless it is said not to be: "别告诉大家", "don't tell everyone".
_NEGATED = re.compile(
    r"(不要|别|不能|不许|不用|不必|勿|莫)\s*$"
    r"|\b(don'?t|do\s+not|never|not|no\s+need\s+to)\s*$",
    re.IGNORECASE,
)


def for_everyone(text: str) -> bool:
    """Whether the speaker says that what they say is for the whole household."""
    for match in _FOR_EVERYONE.finditer(text):
        if not _NEGATED.search(text[max(0, match.start() - 16) : match.start()]):
            return True
    return False


def visible_to(owner: str, member: str) -> bool:
    """Whether a record owned by `owner` ("" = shared) may reach `member` ("" = the
    speaker with no member, who sees only the shared)."""
    return owner == "" or owner == member


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
        """The member a bearer token belongs to, or None, as of the last `load`/`lookup`."""
        return self._active.get(hash_token(token)) if token else None

    async def lookup(self, token: str) -> tuple[str | None, bool]:
        """(the member `token` belongs to or None, whether any member is active), read from
        the database at this moment: a member added, revoked or rotated by another process
        (`homeagent members ...` while the daemon runs) counts at once."""
        digest = hash_token(token) if token else ""
        row = (await self._db.fetchall(
            "SELECT (SELECT name FROM members WHERE token_hash = ? AND revoked_at IS NULL) AS name, "
            "EXISTS(SELECT 1 FROM members WHERE revoked_at IS NULL) AS any_active",
            (digest,),
        ))[0]
        return row["name"], bool(row["any_active"])

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

    async def rotate(self, name: str) -> str:
        """A new token for an active member; the old one stops working at once."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        digest = hash_token(token)
        changed = await self._db.write(
            lambda c: c.execute(
                "UPDATE members SET token_hash = ? WHERE name = ? AND revoked_at IS NULL", (digest, name)
            ).rowcount
        )
        if not changed:
            raise RequestError(f"no active member named {name!r}", param="name")
        self._active = {h: n for h, n in self._active.items() if n != name}
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
