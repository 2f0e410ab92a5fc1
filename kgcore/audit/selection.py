"""Which audit records a review queue holds: a filter, a question set, or an evaluation run.

* :func:`select_records` filters by collection, method, document (a
  document of a collection: some context sentence comes from it) and the
  automatic diagnosis (the stage an automatic suggestion on it names);
* :func:`records_for_questions` keeps the records asking the questions of a
  question set (a QA file);
* :func:`records_for_run` keeps the records of an evaluation run's
  (collection, question, method) outcomes: the ones sent to the audit store.

The last two also say which questions have no record, so the caller can
tell the analyst what is missing instead of silently leaving it out.

>>> question_key("  Who   RAN? ")
'who ran?'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kgcore.audit.db import AuditDB
from kgcore.audit.model import LABEL_TYPES, as_tuple
from kgcore.core.errors import InputError


@dataclass(frozen=True)
class Selection:
    """Record ids chosen for a queue, what chose them, and what found no record."""

    record_ids: list[int]
    source: dict
    missing: list[str] = field(default_factory=list)


def question_key(question: str) -> str:
    return " ".join(str(question).split()).casefold()


def _in_documents(payload: dict, documents: set[str]) -> bool:
    return any(str(s.get("id", "")).split("/", 1)[0] in documents for s in payload.get("sentences", []))


def select_records(db: AuditDB, doc_ids=None, methods=None, documents=None, diagnoses=None) -> Selection:
    """Records (oldest first) of the given collections and methods, from the given documents, with an
    automatic diagnosis among ``diagnoses`` (each filter optional; a value or a list)."""
    stages = as_tuple(diagnoses)
    if unknown := [s for s in stages if s not in LABEL_TYPES]:
        raise InputError("diagnosis", f"unknown stage {unknown[0]!r} (choose from {', '.join(LABEL_TYPES)})")
    docs = set(as_tuple(documents))
    records = list(reversed(db.list_records(doc_ids=doc_ids, methods=methods, with_payload=bool(docs))))
    if docs:
        records = [r for r in records if _in_documents(r.payload, docs)]
    if stages:
        marks = ",".join("?" * len(stages))
        flagged = {r[0] for r in db.query(f"SELECT record_id FROM labels WHERE source = 'automatic' "
                                          f"AND label_type IN ({marks})", stages)}
        records = [r for r in records if r.id in flagged]
    source = {"kind": "filter", "collections": list(as_tuple(doc_ids)), "methods": list(as_tuple(methods)),
              "documents": sorted(docs), "diagnoses": list(stages)}
    return Selection([r.id for r in records], source)


def records_for_questions(db: AuditDB, questions: Iterable[str], name: str = "question set", doc_ids=None,
                          methods=None) -> Selection:
    """Records asking one of ``questions`` (case and spacing ignored), in question order."""
    wanted = list(dict.fromkeys(question_key(q) for q in questions if str(q).strip()))
    if not wanted:
        raise InputError("questions", f"{name} has no questions")
    by_question: dict[str, list[int]] = {}
    for r in reversed(db.list_records(doc_ids=doc_ids, methods=methods, with_payload=False)):
        by_question.setdefault(question_key(r.question), []).append(r.id)
    ids = [i for q in wanted for i in by_question.get(q, [])]
    source = {"kind": "question-set", "name": name, "questions": len(wanted), "collections": list(as_tuple(doc_ids)),
              "methods": list(as_tuple(methods))}
    return Selection(ids, source, [q for q in wanted if q not in by_question])


def records_for_run(db: AuditDB, outcomes: Iterable[tuple[str, str, str]], name: str = "evaluation run") -> Selection:
    """Records of an evaluation run's (collection, question, method) outcomes, in run order."""
    wanted = list(dict.fromkeys((d, question_key(q), m) for d, q, m in outcomes))
    if not wanted:
        raise InputError("run", f"{name} has no outcomes")
    found: dict[tuple[str, str, str], list[int]] = {}
    for r in reversed(db.list_records(doc_ids=sorted({d for d, _, _ in wanted}), with_payload=False)):
        found.setdefault((r.doc_id, question_key(r.question), r.method), []).append(r.id)
    ids = [i for key in wanted for i in found.get(key, [])]
    missing = [f"{d} · {m} · {q}" for d, q, m in wanted if (d, q, m) not in found]
    return Selection(ids, {"kind": "evaluation-run", "name": name, "outcomes": len(wanted)}, missing)


def read_run_outcomes(path) -> list[tuple[str, str, str]]:
    """(collection, question, method) of every line of an evaluation run's ``results.jsonl``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"cannot read the evaluation results ({exc})") from None
    return parse_run_outcomes(text, Path(path).name)


def parse_run_outcomes(text: str, name: str = "results.jsonl") -> list[tuple[str, str, str]]:
    """(collection, question, method) of every line of ``results.jsonl`` text; a bad line names itself.

    >>> parse_run_outcomes('{"doc_id": "d", "question": "Q?", "method": "bm25", "em": 1}\\n')
    [('d', 'Q?', 'bm25')]
    >>> parse_run_outcomes('{"doc_id": "d"}')
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: results.jsonl line 1: not an evaluation result (needs doc_id, question, method)
    """
    outcomes = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{name} line {number}", f"not valid JSON ({exc.msg})") from None
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("doc_id", "question",
                                                                                           "method")):
            raise InputError(f"{name} line {number}", "not an evaluation result (needs doc_id, question, method)")
        outcomes.append((item["doc_id"], item["question"], item["method"]))
    return outcomes
