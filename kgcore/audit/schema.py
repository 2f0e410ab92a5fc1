"""The audit database schema: ordered migrations, applied once each, versioned with ``PRAGMA user_version``.

>>> SCHEMA_VERSION == len(MIGRATIONS)
True
"""

from __future__ import annotations

import sqlite3

from kgcore.core.errors import AuditError

MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("initial schema: records and labels", """
        CREATE TABLE records (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            manifest_hash TEXT NOT NULL,
            question TEXT NOT NULL,
            method TEXT NOT NULL,
            answerer TEXT,
            answer TEXT,
            gold_json TEXT NOT NULL DEFAULT '[]',
            settings_json TEXT NOT NULL,
            models_json TEXT NOT NULL,
            result_json TEXT NOT NULL
        );
        CREATE INDEX records_doc ON records(doc_id);
        CREATE TABLE labels (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            label_type TEXT NOT NULL,
            artifact_kind TEXT NOT NULL,
            artifact_id TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '',
            author TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
    """),
    ("label provenance (source, suggestion_id, details) and lookup indexes", """
        ALTER TABLE labels ADD COLUMN source TEXT NOT NULL DEFAULT 'human'
            CHECK (source IN ('human', 'automatic'));
        ALTER TABLE labels ADD COLUMN suggestion_id INTEGER REFERENCES labels(id) ON DELETE SET NULL;
        ALTER TABLE labels ADD COLUMN details_json TEXT NOT NULL DEFAULT '{}';
        CREATE INDEX labels_record ON labels(record_id);
        CREATE INDEX labels_author ON labels(author);
        CREATE INDEX records_created ON records(created_at);
    """),
)
#: The schema version a database has after all migrations (``PRAGMA user_version``).
SCHEMA_VERSION = len(MIGRATIONS)


def apply_migrations(conn: sqlite3.Connection) -> None:
    """Bring ``conn``'s database up to :data:`SCHEMA_VERSION` (refusing one newer than this kgcore)."""
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current > SCHEMA_VERSION:
        raise AuditError(f"schema version {current} is newer than this kgcore understands ({SCHEMA_VERSION}); "
                         "upgrade kgcore")
    for version, (_, script) in enumerate(MIGRATIONS, start=1):
        if version > current:
            for statement in filter(str.strip, script.split(";")):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
