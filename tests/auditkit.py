"""Audit records without models, for the tests of review queues, agreement and adjudication.

Importable as ``auditkit`` (``tests/`` is on ``sys.path`` via its conftest).
"""

from __future__ import annotations

from kgcore.audit import AuditDB
from kgcore.core.types import Answer, Citation, QueryResult, SelectedSentence
from kgcore.index.store.collection import CollectionManifest

#: The audit schema as each earlier release created it, kept here independent of kgcore.audit.schema, so the
#: migration tests open real old databases.  Version 1: the first release.
_V1_TABLES = """
CREATE TABLE records (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
    doc_id TEXT NOT NULL, manifest_hash TEXT NOT NULL, question TEXT NOT NULL, method TEXT NOT NULL,
    answerer TEXT, answer TEXT, gold_json TEXT NOT NULL DEFAULT '[]', settings_json TEXT NOT NULL,
    models_json TEXT NOT NULL, result_json TEXT NOT NULL);
CREATE INDEX records_doc ON records(doc_id);
CREATE TABLE labels (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE,
    record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE, label_type TEXT NOT NULL,
    artifact_kind TEXT NOT NULL, artifact_id TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',
    author TEXT NOT NULL, created_at TEXT NOT NULL);
"""
V1_SCHEMA = _V1_TABLES + "PRAGMA user_version = 1;\n"
#: Version 2 (kgcore 0.3): version 1 plus label sources, suggestions, details and three indexes.
V2_SCHEMA = _V1_TABLES + """
ALTER TABLE labels ADD COLUMN source TEXT NOT NULL DEFAULT 'human'
    CHECK (source IN ('human', 'automatic'));
ALTER TABLE labels ADD COLUMN suggestion_id INTEGER REFERENCES labels(id) ON DELETE SET NULL;
ALTER TABLE labels ADD COLUMN details_json TEXT NOT NULL DEFAULT '{}';
CREATE INDEX labels_record ON labels(record_id);
CREATE INDEX labels_author ON labels(author);
CREATE INDEX records_created ON records(created_at);
PRAGMA user_version = 2;
"""

DOC = "peter-rabbit"
SENTENCES = [SelectedSentence(f"{DOC}/text_0-{i}", i, f"Sentence {i} <b>&amp;</b>.", f"Sentence {i}.")
             for i in range(1, 4)]


def add_record(db: AuditDB, n: int, method: str = "bm25", doc: str = DOC, documents: tuple[str, ...] = ()) -> int:
    """Record number ``n``: question "Question n?", two context sentences, a cited answer."""
    sentences = [SelectedSentence(f"{d}/text_0-1", 1, "From another book.", "From another book.")
                 for d in documents] or SENTENCES[:2]
    result = QueryResult(f"Question {n}?", method, doc, None, [], sentences, {"k": 3}, {})
    answer = Answer(f"Answer {n}.", "extractive", "", [Citation(f"Answer {n}.", [sentences[0].id])])
    return db.save_record(result, answer, CollectionManifest(name=doc), gold=f"gold {n}")


def add_records(db: AuditDB, count: int, method: str = "bm25") -> list[int]:
    return [add_record(db, n, method) for n in range(count)]
