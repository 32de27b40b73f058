"""Schema of the vector index and the document store (migrations 3 and 4).

Append only: never edit a released migration. Versions 5 and 6 belong to the graph
store (homeagent/memory/graph_schema.py).
"""

from __future__ import annotations

import sqlite3

from homeagent.store.db import Migration


def _0003_vector_terms(conn: sqlite3.Connection) -> None:
    # One row per indexed document: its distinct CRC-32 term hashes (uint32 LE) and their
    # counts (uint16 LE) as blobs, so a restart reloads vectors without re-tokenising.
    # `seq` orders documents as they were (re-)added, which keeps tie-breaking stable
    # across restarts; INSERT OR REPLACE gives a replaced document a new seq. `stamp` is
    # the document's time (epoch seconds, NULL when unknown) for time-aware ranking.
    conn.execute(
        """CREATE TABLE vector_terms (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            terms BLOB NOT NULL,
            counts BLOB NOT NULL,
            length INTEGER NOT NULL,
            stamp REAL,
            UNIQUE (namespace, doc_id)
        )"""
    )


_DOC_COLUMNS = """
            namespace TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            summary TEXT NOT NULL,
            text TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]',
            entities TEXT NOT NULL DEFAULT '[]',
            source TEXT NOT NULL DEFAULT '',
            member TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            access_count INTEGER NOT NULL DEFAULT 0,
            last_access REAL"""


def _0004_documents(conn: sqlite3.Connection) -> None:
    # L2 document memory. Tags and entities are JSON lists; member "" is the household.
    # last_access NULL means never read; coldness counts from created_at then.
    conn.execute(
        f"""CREATE TABLE documents ({_DOC_COLUMNS},
            PRIMARY KEY (namespace, doc_id)
        )"""
    )
    conn.execute("CREATE INDEX documents_created ON documents(namespace, created_at)")
    # Archived documents keep every column (nothing is ever lost) plus when they left.
    conn.execute(
        f"""CREATE TABLE documents_archive ({_DOC_COLUMNS},
            archived_at REAL NOT NULL,
            PRIMARY KEY (namespace, doc_id)
        )"""
    )


MIGRATIONS: tuple[Migration, ...] = (
    Migration(3, "vector_terms", _0003_vector_terms),
    Migration(4, "documents", _0004_documents),
)
