"""Automatic diagnoses as audit suggestions: failed answers go to the audit queue with a suggested stage.

A suggestion is a label with ``source="automatic"``; an analyst accepts or
overrides it (:meth:`kgcore.audit.db.AuditDB.accept_suggestion`).
"""

from __future__ import annotations

from collections.abc import Iterable

from kgcore.audit.db import AuditDB
from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.diagnose import Diagnosis, diagnose
from kgcore.evaluate.records import EvalRun
from kgcore.query.engine import QueryEngine


def store_suggestion(db: AuditDB, record_id: int, diagnosis: Diagnosis) -> int:
    """Save ``diagnosis`` on a record as an *automatic* label (a suggestion to accept or override).

    The same suggestion already stored on the record is returned instead of stored again.
    """
    kind, artifact_id = diagnosis.artifact
    for label in db.labels_for(record_id):  # diagnosing twice suggests once
        if label.source == "automatic" and (label.label_type, label.artifact_kind, label.artifact_id, label.note) == (
                diagnosis.stage, kind, artifact_id, diagnosis.reason):
            return label.id
    return db.add_label(record_id, diagnosis.stage, kind, artifact_id, diagnosis.reason, source="automatic",
                        details={**diagnosis.details, "evidence_sentence_ids": diagnosis.evidence_sentence_ids})


def send_failures_to_audit(engine: QueryEngine, run: EvalRun, db: AuditDB,
                           positions: Iterable[int] | None = None) -> list[dict]:
    """Save failed records in the audit database with their gold answers and an automatic diagnosis.

    ``positions`` default to the wrong answers (:meth:`EvalRun.wrong_answers`: answers that failed with an
    error, such as a refused connection, are not audit records).  A record whose result was not kept is
    retrieved and answered again (with the run's answerer).  Returns one dict per record: its
    position, the audit ``record_id``, the suggested ``stage`` and ``reason``.
    """
    answerers = {m["doc_id"]: m["answerer"] for m in run.meta}
    sent = []
    for pos in run.wrong_answers() if positions is None else positions:
        record = run.records[pos]
        result, answer = run.kept.get(pos) or engine.ask(
            record.doc_id, record.question, RetrievalOptions(**record.options), answerers.get(record.doc_id))
        index = engine.index(record.doc_id)
        record_id = db.save_record(result, answer, index.manifest, gold=record.answers)
        diagnosis = diagnose(result, answer, record.answers, index, engine.embedder)
        store_suggestion(db, record_id, diagnosis)
        sent.append({"position": pos, "record_id": record_id, "stage": diagnosis.stage, "reason": diagnosis.reason})
    return sent
