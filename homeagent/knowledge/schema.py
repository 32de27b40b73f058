"""Tables of the knowledge base (schema version 7).

The files under the knowledge directory are the source of truth; these tables remember
what was indexed from them (content hash per file, the chunks cut from it), so a restart
or a re-scan only reads files and re-chunks the ones whose bytes changed. The search
index over the chunk texts lives in the memory package's vector index (namespace
"knowledge"), keyed by the chunk ids stored here.
"""

from __future__ import annotations

import sqlite3

from homeagent.store.db import Migration


def _0007_knowledge(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE knowledge_files (
            path TEXT PRIMARY KEY,          -- relative to the knowledge dir, '/'-separated
            topic TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            indexed_at REAL NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE knowledge_chunks (
            id TEXT PRIMARY KEY,            -- '<path>#<hash of heading and text>'
            path TEXT NOT NULL REFERENCES knowledge_files(path) ON DELETE CASCADE,
            topic TEXT NOT NULL,
            ordinal INTEGER NOT NULL,
            heading TEXT NOT NULL,          -- JSON array of the headings above the text
            text TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX knowledge_chunks_path ON knowledge_chunks(path, ordinal)")
    conn.execute("CREATE INDEX knowledge_chunks_topic ON knowledge_chunks(topic)")


MIGRATIONS: tuple[Migration, ...] = (Migration(7, "knowledge", _0007_knowledge),)
