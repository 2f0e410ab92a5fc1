"""The audit database schema: ordered migrations, applied once each, versioned with ``PRAGMA user_version``.

>>> SCHEMA_VERSION == len(MIGRATIONS)
True
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from kgcore.audit.names import reviewer_key
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
    ("review as a team: reviewers, queues and assignments, adjudications, label history, author merges", """
        CREATE TABLE reviewers (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            key TEXT NOT NULL UNIQUE,
            origin TEXT NOT NULL DEFAULT 'local' CHECK (origin IN ('local', 'sign-in', 'labels')),
            created_at TEXT NOT NULL
        );
        CREATE TABLE queues (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            created_by TEXT NOT NULL,
            overlap REAL NOT NULL CHECK (overlap >= 0 AND overlap <= 1),
            per_overlap INTEGER NOT NULL DEFAULT 2,
            seed INTEGER NOT NULL,
            source_json TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE queue_items (
            queue_id INTEGER NOT NULL REFERENCES queues(id) ON DELETE CASCADE,
            record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            PRIMARY KEY (queue_id, record_id)
        );
        CREATE TABLE assignments (
            queue_id INTEGER NOT NULL,
            record_id INTEGER NOT NULL,
            reviewer TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'skipped')),
            comment TEXT NOT NULL DEFAULT '',
            updated_at TEXT NOT NULL,
            PRIMARY KEY (queue_id, record_id, reviewer),
            FOREIGN KEY (queue_id, record_id) REFERENCES queue_items(queue_id, record_id) ON DELETE CASCADE
        );
        CREATE INDEX assignments_reviewer ON assignments(reviewer, queue_id, status);
        CREATE TABLE adjudications (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
            queue_id INTEGER REFERENCES queues(id) ON DELETE SET NULL,
            adjudicator TEXT NOT NULL,
            reason TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX adjudications_record ON adjudications(record_id);
        ALTER TABLE labels ADD COLUMN role TEXT NOT NULL DEFAULT 'review' CHECK (role IN ('review', 'adjudication'));
        ALTER TABLE labels ADD COLUMN adjudication_id INTEGER REFERENCES adjudications(id) ON DELETE CASCADE;
        CREATE TABLE label_history (
            id INTEGER PRIMARY KEY,
            label_uid TEXT NOT NULL,
            record_id INTEGER NOT NULL,
            event TEXT NOT NULL CHECK (event IN ('deleted', 'author changed')),
            at TEXT NOT NULL,
            label_json TEXT NOT NULL
        );
        CREATE INDEX label_history_uid ON label_history(label_uid);
        CREATE TRIGGER labels_keep_deleted AFTER DELETE ON labels BEGIN
            INSERT INTO label_history (label_uid, record_id, event, at, label_json)
            VALUES (old.uid, old.record_id, 'deleted', strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'),
                    json_object('label_type', old.label_type, 'artifact_kind', old.artifact_kind,
                                'artifact_id', old.artifact_id, 'note', old.note, 'author', old.author,
                                'created_at', old.created_at, 'source', old.source, 'role', old.role,
                                'details', json(old.details_json)));
        END;
        CREATE TRIGGER labels_keep_author AFTER UPDATE OF author ON labels WHEN old.author != new.author BEGIN
            INSERT INTO label_history (label_uid, record_id, event, at, label_json)
            VALUES (old.uid, old.record_id, 'author changed', strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'),
                    json_object('author', old.author, 'new_author', new.author));
        END;
        CREATE TABLE author_merges (
            id INTEGER PRIMARY KEY,
            into_author TEXT NOT NULL,
            from_authors_json TEXT NOT NULL,
            labels_changed INTEGER NOT NULL,
            merged_by TEXT NOT NULL,
            merged_at TEXT NOT NULL
        );
        CREATE INDEX labels_role ON labels(role, record_id)
    """),
)#: The schema version a database has after all migrations (``PRAGMA user_version``).
SCHEMA_VERSION = len(MIGRATIONS)


def statements(script: str) -> list[str]:
    """The complete SQL statements of ``script`` (a trigger body's ``;`` does not end its statement).

    >>> statements("CREATE TABLE t (a); CREATE TRIGGER x AFTER DELETE ON t BEGIN SELECT 1; SELECT 2; END; ")
    ['CREATE TABLE t (a);', 'CREATE TRIGGER x AFTER DELETE ON t BEGIN SELECT 1; SELECT 2; END;']
    """
    found, current = [], ""
    for piece in script.split(";"):
        current += piece + ";"
        if sqlite3.complete_statement(current):
            found.append(current.strip())
            current = ""
    if current.strip(" \n;"):
        found.append(current.strip())
    return [s for s in found if s.strip(" \n;")]


def register_label_authors(conn: sqlite3.Connection) -> None:
    """Register the authors of existing human labels as reviewers (origin ``labels``).

    Spellings with one :func:`~kgcore.audit.names.reviewer_key` become one
    reviewer, named by the spelling with the most labels; the others stay
    as they are on their labels until merged on request.
    """
    rows = conn.execute("SELECT author, COUNT(*) AS n, MIN(created_at) AS first FROM labels WHERE source = 'human' "
                        "GROUP BY author ORDER BY n DESC, author").fetchall()
    for author, _, first in rows:
        conn.execute("INSERT OR IGNORE INTO reviewers (name, key, origin, created_at) VALUES (?, ?, 'labels', ?)",
                     (author, reviewer_key(author), first))


#: Python steps run right after the SQL of a migration (by schema version).
AFTER: dict[int, Callable[[sqlite3.Connection], None]] = {3: register_label_authors}


def apply_migrations(conn: sqlite3.Connection) -> None:
    """Bring ``conn``'s database up to :data:`SCHEMA_VERSION` (refusing one newer than this kgcore)."""
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current > SCHEMA_VERSION:
        raise AuditError(f"schema version {current} is newer than this kgcore understands ({SCHEMA_VERSION}); "
                         "upgrade kgcore")
    for version, (_, script) in enumerate(MIGRATIONS, start=1):
        if version > current:
            for statement in statements(script):
                conn.execute(statement)
            if version in AFTER:
                AFTER[version](conn)
            conn.execute(f"PRAGMA user_version = {version}")
