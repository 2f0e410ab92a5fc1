"""Audit records without models, for the tests of review queues, agreement and adjudication.

Importable as ``auditkit`` (``tests/`` is on ``sys.path`` via its conftest).
"""

from __future__ import annotations

from kgcore.audit import AuditDB
from kgcore.core.types import Answer, Citation, QueryResult, SelectedSentence
from kgcore.index.collection import CollectionManifest

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
