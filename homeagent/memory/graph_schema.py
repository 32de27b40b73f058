"""Schema of the graph memory (L3), the working-context mirror (L1) and the distiller
cursor: migrations 5, 6 and 33.

Append only: never edit a released migration. Versions 3 and 4 belong to the vector index
and the document store (homeagent/memory/schema.py).
"""

from __future__ import annotations

import sqlite3

from homeagent.store.db import Migration

# Which relations hold one value at a time ("one": a new value closes the old fact's
# validity) and which accumulate ("many"). `canonical` makes a row a synonym of another
# relation; `opposite` names the relation a new fact contradicts for the same object
# (likes ↔ dislikes). Relations not listed here are "many": never close facts by guess.
RELATIONS: tuple[tuple[str, str, str | None, str | None, str], ...] = (
    # relation, cardinality, canonical, opposite, description
    ("name", "one", None, None, "what the subject is called"),
    ("lives_in", "one", None, None, "where the subject lives now"),
    ("works_at", "one", None, None, "employer or workplace"),
    ("occupation", "one", None, None, "job or profession"),
    ("age", "one", None, None, "age in years"),
    ("birthday", "one", None, None, "date of birth"),
    ("spouse", "one", None, None, "husband or wife"),
    ("phone", "one", None, None, "phone number"),
    ("email", "one", None, None, "email address"),
    ("hometown", "one", None, None, "where the subject grew up"),
    ("located_in", "one", None, None, "where a place or thing is"),
    ("likes", "many", None, "dislikes", "something the subject likes"),
    ("dislikes", "many", None, "likes", "something the subject dislikes"),
    ("has_pet", "many", None, None, "a pet of the subject"),
    ("has", "many", None, None, "something the subject owns or has"),
    ("is_a", "many", None, None, "a kind or role of the subject"),
    ("knows", "many", None, None, "a person the subject knows"),
    ("friend_of", "many", None, None, "a friend"),
    ("parent_of", "many", None, None, "a child of the subject"),
    ("child_of", "many", None, None, "a parent of the subject"),
    ("member_of", "many", None, None, "a group the subject belongs to"),
    ("mentions", "many", None, None, "a document mentions an entity"),
    ("tagged", "many", None, None, "a document carries a tag"),
    ("from_source", "many", None, None, "where a document came from"),
    # Synonyms, English and Chinese, folded into the canonical relation on write.
    ("moved_to", "one", "lives_in", None, ""),
    ("live_in", "one", "lives_in", None, ""),
    ("resides_in", "one", "lives_in", None, ""),
    ("works_for", "one", "works_at", None, ""),
    ("work_at", "one", "works_at", None, ""),
    ("job", "one", "occupation", None, ""),
    ("called", "one", "name", None, ""),
    ("named", "one", "name", None, ""),
    ("wife", "one", "spouse", None, ""),
    ("husband", "one", "spouse", None, ""),
    ("like", "many", "likes", None, ""),
    ("loves", "many", "likes", None, ""),
    ("enjoys", "many", "likes", None, ""),
    ("hates", "many", "dislikes", None, ""),
    ("pet", "many", "has_pet", None, ""),
    ("owns_pet", "many", "has_pet", None, ""),
    ("owns", "many", "has", None, ""),
    ("住在", "one", "lives_in", None, ""),
    ("住址", "one", "lives_in", None, ""),
    ("居住在", "one", "lives_in", None, ""),
    ("搬到", "one", "lives_in", None, ""),
    ("搬去", "one", "lives_in", None, ""),
    ("搬家到", "one", "lives_in", None, ""),
    ("工作于", "one", "works_at", None, ""),
    ("名字", "one", "name", None, ""),
    ("叫", "one", "name", None, ""),
    ("生日", "one", "birthday", None, ""),
    ("年龄", "one", "age", None, ""),
    ("工作", "one", "occupation", None, ""),
    ("职业", "one", "occupation", None, ""),
    ("电话", "one", "phone", None, ""),
    ("邮箱", "one", "email", None, ""),
    ("家乡", "one", "hometown", None, ""),
    ("老家", "one", "hometown", None, ""),
    ("老婆", "one", "spouse", None, ""),
    ("妻子", "one", "spouse", None, ""),
    ("老公", "one", "spouse", None, ""),
    ("丈夫", "one", "spouse", None, ""),
    ("喜欢", "many", "likes", None, ""),
    ("讨厌", "many", "dislikes", None, ""),
    ("宠物", "many", "has_pet", None, ""),
)


def _0005_graph(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE graph_relations (
            relation TEXT PRIMARY KEY,
            cardinality TEXT NOT NULL CHECK (cardinality IN ('one', 'many')),
            canonical TEXT,
            opposite TEXT,
            description TEXT NOT NULL DEFAULT ''
        )"""
    )
    conn.executemany(
        "INSERT INTO graph_relations(relation, cardinality, canonical, opposite, description)"
        " VALUES (?, ?, ?, ?, ?)",
        RELATIONS,
    )
    # `key` is the normalised name (NFKC, case-folded, spaces collapsed): one entity a key.
    conn.execute(
        """CREATE TABLE graph_entities (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            key TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL DEFAULT '',
            mention_count INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE graph_aliases (
            key TEXT PRIMARY KEY,
            alias TEXT NOT NULL,
            entity_id INTEGER NOT NULL REFERENCES graph_entities(id)
        )"""
    )
    conn.execute("CREATE INDEX graph_aliases_entity ON graph_aliases(entity_id)")
    # valid_to NULL: the fact holds now. A contradicted fact is closed, never deleted.
    conn.execute(
        """CREATE TABLE graph_facts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            subject_id INTEGER NOT NULL REFERENCES graph_entities(id),
            relation TEXT NOT NULL,
            object_id INTEGER NOT NULL REFERENCES graph_entities(id),
            confidence REAL NOT NULL,
            session_id TEXT NOT NULL DEFAULT '',
            turn_id TEXT NOT NULL DEFAULT '',
            member TEXT NOT NULL DEFAULT '',
            source TEXT NOT NULL DEFAULT '',
            date_bucket TEXT NOT NULL,
            valid_from REAL NOT NULL,
            valid_to REAL,
            mention_count INTEGER NOT NULL DEFAULT 1,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )"""
    )
    # The same fact stated twice is one row: at most one open row per triple.
    conn.execute(
        "CREATE UNIQUE INDEX graph_facts_open ON graph_facts(subject_id, relation, object_id)"
        " WHERE valid_to IS NULL"
    )
    conn.execute("CREATE INDEX graph_facts_subject ON graph_facts(subject_id, relation)")
    conn.execute("CREATE INDEX graph_facts_object ON graph_facts(object_id)")
    conn.execute("CREATE INDEX graph_facts_source ON graph_facts(source)")
    # Entities whose name or aliases changed (or that left) since the entity-name index
    # last synced; `seq` lets a sync delete only what it has seen.
    conn.execute(
        """CREATE TABLE graph_index_dirty (
            entity_id INTEGER PRIMARY KEY,
            seq INTEGER NOT NULL
        )"""
    )
    # Every synonym merge with the rows it changed, as they were, so it can be undone.
    conn.execute(
        """CREATE TABLE graph_merges (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kept_id INTEGER NOT NULL,
            dropped_id INTEGER NOT NULL,
            kept_name TEXT NOT NULL,
            dropped_name TEXT NOT NULL,
            score REAL NOT NULL,
            snapshot TEXT NOT NULL,
            created_at REAL NOT NULL,
            undone_at REAL
        )"""
    )


def _0006_context_distiller(conn: sqlite3.Connection) -> None:
    # The L1 working context, mirrored so a restart resumes it; `seq` is the order.
    conn.execute(
        """CREATE TABLE memory_context (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            turn_id TEXT NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            member TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX memory_context_turn ON memory_context(turn_id)")
    # How far each distiller has read the text log; advanced in the same transaction as
    # the facts it produced, so a re-run adds nothing.
    conn.execute(
        """CREATE TABLE memory_distiller_state (
            name TEXT PRIMARY KEY,
            log_offset INTEGER NOT NULL,
            records INTEGER NOT NULL DEFAULT 0,
            updated_at REAL NOT NULL
        )"""
    )

    # Small named values of the memory tiers' upkeep (the synonym-merge watermark).
    conn.execute(
        """CREATE TABLE memory_state (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updated_at REAL NOT NULL
        )"""
    )


def _0033_graph_fact_owners(conn: sqlite3.Connection) -> None:
    # A fact belongs to its member (`member`, "" = shared). Two members stating the same
    # triple are two facts, each its owner's: at most one open row per triple and owner.
    conn.execute("DROP INDEX graph_facts_open")
    conn.execute(
        "CREATE UNIQUE INDEX graph_facts_open ON graph_facts(subject_id, relation, object_id, member)"
        " WHERE valid_to IS NULL"
    )
    conn.execute("CREATE INDEX graph_facts_member ON graph_facts(member)")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(5, "memory_graph", _0005_graph),
    Migration(6, "memory_context_distiller", _0006_context_distiller),
    Migration(33, "graph_fact_owners", _0033_graph_fact_owners),
)
