"""Adjudication: settle records where reviewers disagree with final labels and a reason; nothing is overwritten.

An **adjudication** is a row (adjudicator, reason, time, optional queue)
and its final labels: human labels with ``role="adjudication"`` that point
at it.  Reviewers' labels stay as they were; a record adjudicated again
keeps every earlier adjudication, and the latest one is the record's final
word (:func:`effective_labels`).  Deleted labels and changed authors are
kept in ``label_history`` by database triggers (:func:`label_history`).

Error statistics and exports use :func:`effective_labels`: the final labels
of adjudicated records, every label elsewhere, and they say which records
were adjudicated.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kgcore.audit import reviewers as registry
from kgcore.audit.agreement import verdict
from kgcore.audit.db import AuditDB
from kgcore.audit.model import Label, utc_now
from kgcore.audit.queues import check_stages, get_queue
from kgcore.audit.rows import clean_note, label_from_row
from kgcore.audit.rows import insert_label as _insert
from kgcore.audit.sql import Conn
from kgcore.core.errors import InputError


@dataclass(frozen=True)
class Adjudication:
    """One adjudication of a record and its final labels."""

    id: int
    uid: str
    record_id: int
    queue_id: int | None
    adjudicator: str
    reason: str
    created_at: str
    labels: tuple[Label, ...]

    @property
    def stages(self) -> list[str]:
        return list(dict.fromkeys(lb.label_type for lb in self.labels))


@dataclass(frozen=True)
class Disagreement:
    """A record its reviewers labelled differently: each reviewer's stages and verdict."""

    record_id: int
    question: str
    doc_id: str
    method: str
    stages: Mapping[str, tuple[str, ...]]
    adjudicated: bool

    @property
    def verdicts(self) -> dict[str, str | None]:
        return {r: verdict(s) for r, s in self.stages.items()}

    @property
    def differing(self) -> list[str]:
        """The stages some but not all reviewers used."""
        sets = [set(s) for s in self.stages.values()]
        return sorted(set[str]().union(*sets) - set[str].intersection(*sets))


def reviewer_stages(labels: Iterable[Label]) -> dict[int, dict[str, tuple[str, ...]]]:
    """Record -> reviewer -> the sorted stage types of their human review labels.

    >>> lb = lambda rec, who, t: Label(0, "", rec, t, "record", "", "", who, "")
    >>> reviewer_stages([lb(1, "ada", "II"), lb(1, "bob", "III"), lb(1, "ada", "I")])
    {1: {'ada': ('I', 'II'), 'bob': ('III',)}}
    """
    out: dict[int, dict[str, set[str]]] = {}
    for lb in labels:
        if lb.source == "human" and lb.role == "review":
            out.setdefault(lb.record_id, {}).setdefault(lb.author, set()).add(lb.label_type)
    return {rec: {who: tuple(sorted(t)) for who, t in sorted(by.items())} for rec, by in out.items()}


def disagreements(db: AuditDB, record_ids: Iterable[int] | None = None, **filters) -> list[Disagreement]:
    """Records labelled by two or more reviewers whose stage labels differ (record filters as ``list_labels``)."""
    labels = db.list_labels(sources="human", **filters)
    keep = set(record_ids) if record_ids is not None else None
    adjudicated = {lb.record_id for lb in labels if lb.role == "adjudication"}
    found = []
    for record_id, by in reviewer_stages(labels).items():
        if (keep is None or record_id in keep) and len(by) >= 2 and len(set(by.values())) > 1:
            r = db.get_record(record_id)
            found.append(Disagreement(record_id, r.question, r.doc_id, r.method, by, record_id in adjudicated))
    return sorted(found, key=lambda d: d.record_id)


def adjudicate(db: AuditDB, record_id: int, adjudicator: str, stages: Iterable[str] = (), reason: str = "",
               adopt: Iterable[int] = (), queue: str | int | None = None) -> Adjudication:
    """Record the final labels of a record with a reason, in one transaction.

    ``stages`` become record-level final labels; ``adopt`` copies reviewers'
    labels (by id, with their artifacts) as final labels.  The adjudicator
    must be a registered reviewer who did not label the record (no one settles
    their own disagreement), and the reason is required.
    """
    why = clean_note(reason, "reason")
    if not why:
        raise InputError("reason", "is empty: say why these are the final labels")
    adopted, chosen = list(dict.fromkeys(adopt)), list(dict.fromkeys(stages))
    if chosen or not adopted:
        chosen = check_stages(chosen)
    queue_id = get_queue(db, queue).id if queue is not None else None

    def work(conn: Conn) -> int:
        who = registry.require(conn, adjudicator, "adjudicator")
        if conn.execute("SELECT 1 FROM records WHERE id = ?", (record_id,)).fetchone() is None:
            raise InputError("record_id", f"there is no audit record {record_id} (was it removed with its document?)")
        if conn.execute("SELECT 1 FROM labels WHERE record_id = ? AND author = ? AND source = 'human' AND role = "
                        "'review'", (record_id, who)).fetchone() is not None:
            raise InputError("adjudicator", f"{who} labelled record {record_id}, so takes a side in its disagreement: "
                                            "another reviewer adjudicates it")
        copies = [_adopted(conn, label_id, record_id) for label_id in adopted]
        adjudication_id = conn.insert(
            "INSERT INTO adjudications (uid, record_id, queue_id, adjudicator, reason, created_at) "
            "VALUES (?,?,?,?,?,?)",
            (uuid.uuid4().hex, record_id, queue_id, who, why, utc_now()))
        for stage in chosen:
            _insert(conn, record_id, stage, note=why, author=who, role="adjudication", adjudication_id=adjudication_id)
        for lb in copies:
            _insert(conn, record_id, lb.label_type, lb.artifact_kind, lb.artifact_id, f"{why} (adopted from "
                    f"{lb.author}: {lb.note})" if lb.note else f"{why} (adopted from {lb.author})", who,
                    details={**lb.details, "adopted_label_uid": lb.uid}, role="adjudication",
                    adjudication_id=adjudication_id)
        return adjudication_id

    adjudication_id = db.write(work)
    return next(a for a in adjudications_for(db, record_id) if a.id == adjudication_id)


def _adopted(conn: Conn, label_id: int, record_id: int) -> Label:
    row = conn.execute("SELECT * FROM labels WHERE id = ?", (label_id,)).fetchone()
    if row is None or row["record_id"] != record_id or row["source"] != "human":
        raise InputError("adopt", f"label {label_id} is not a reviewer's label on record {record_id}")
    return label_from_row(row)


def adjudications_for(db: AuditDB, record_id: int) -> list[Adjudication]:
    """Every adjudication of a record, oldest first (the last one is final)."""
    labels: dict[int, list[Label]] = {}
    for lb in db.labels_for(record_id):
        if lb.adjudication_id is not None:
            labels.setdefault(lb.adjudication_id, []).append(lb)
    rows = db.query("SELECT * FROM adjudications WHERE record_id = ? ORDER BY id", (record_id,))
    return [Adjudication(r["id"], r["uid"], r["record_id"], r["queue_id"], r["adjudicator"], r["reason"],
                         r["created_at"], tuple(labels.get(r["id"], []))) for r in rows]


def effective_labels(labels: Iterable[Label]) -> tuple[list[Label], set[int]]:
    """The labels statistics use, and the adjudicated record ids.

    An adjudicated record counts with the final labels of its latest
    adjudication only; any other record with all its labels.

    >>> lb = lambda i, rec, t, role="review", adj=None: Label(i, "", rec, t, "record", "", "", "x", "", "human",
    ...                                                        None, {}, role, adj)
    >>> kept, adjudicated = effective_labels([lb(1, 1, "II"), lb(2, 1, "III"), lb(3, 1, "II", "adjudication", 7),
    ...                                       lb(4, 1, "I", "adjudication", 9), lb(5, 2, "correct")])
    >>> [x.id for x in kept], adjudicated
    ([4, 5], {1})
    """
    labels = list(labels)
    latest: dict[int, int] = {}
    for lb in labels:
        if lb.role == "adjudication" and lb.adjudication_id is not None:
            latest[lb.record_id] = max(latest.get(lb.record_id, 0), lb.adjudication_id)
    kept = [lb for lb in labels if lb.record_id not in latest or lb.adjudication_id == latest[lb.record_id]]
    return kept, set(latest)


def label_history(db: AuditDB, record_id: int) -> list[dict]:
    """Deleted labels (with who deleted them, when known) and changed authors of a record, oldest first (kept by
    triggers)."""
    rows = db.query("SELECT * FROM label_history WHERE record_id = ? ORDER BY id", (record_id,))
    return [{"label_uid": r["label_uid"], "event": r["event"], "at": r["at"], **json.loads(r["label_json"]),
             **({"deleted_by": r["deleted_by"]} if r["event"] == "deleted" else {})} for r in rows]

