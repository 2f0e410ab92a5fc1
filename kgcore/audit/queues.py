"""Review queues: audit records handed to reviewers with some overlap, worked record by record.

A queue holds records (chosen by :mod:`kgcore.audit.selection`) and one
**assignment** per (record, reviewer).  :func:`plan_assignments` decides
them once, when the queue is created: a share ``overlap`` of the records
(picked at random with the queue's seed) goes to ``per_overlap`` reviewers
(2 by default; every reviewer for *full overlap*), the rest to one
reviewer each, always the least loaded.  A single-review record therefore
has exactly one reviewer, so two reviewers never receive it both.

A reviewer works a queue with :func:`next_assignment` and :func:`submit`
(their stage labels and the assignment marked done in one transaction:
a label is never stored without its progress, nor progress without its
label) or :func:`skip`.  Everything lives in the audit database, so
queues survive restarts and many reviewers work one queue at once.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kgcore.audit import reviewers as registry
from kgcore.audit.db import AuditDB
from kgcore.audit.model import LABEL_TYPES, utc_now
from kgcore.audit.rows import clean_note, insert_label
from kgcore.audit.sql import Conn, Row
from kgcore.core.errors import InputError, clean_field

STATUSES = ("pending", "done", "skipped")
MAX_QUEUE_NAME = 100


@dataclass(frozen=True)
class Queue:
    """A review queue; ``source`` says how its records were chosen."""

    id: int
    name: str
    created_at: str
    created_by: str
    overlap: float
    per_overlap: int
    seed: int
    source: dict
    records: int


@dataclass(frozen=True)
class Assignment:
    """One record of a queue for one reviewer; ``position`` is the record's place in the queue (from 0)."""

    queue_id: int
    record_id: int
    reviewer: str
    status: str
    comment: str
    updated_at: str
    position: int


@dataclass(frozen=True)
class Progress:
    """How far one reviewer is in a queue."""

    reviewer: str
    assigned: int
    done: int
    skipped: int

    @property
    def pending(self) -> int:
        return self.assigned - self.done - self.skipped


@dataclass(frozen=True)
class QueueProgress:
    """A queue's progress: per reviewer, and records whose every assignment is done."""

    queue: Queue
    reviewers: list[Progress]
    records_done: int
    #: Records assigned to two or more reviewers.
    overlapping: int

    @property
    def assignments(self) -> int:
        return sum(p.assigned for p in self.reviewers)

    @property
    def done(self) -> int:
        return sum(p.done for p in self.reviewers)


def plan_assignments(record_ids: Sequence[int], reviewers: Sequence[str], overlap: float, per_overlap: int = 2,
                     seed: int = 0) -> list[tuple[int, str]]:
    """(record, reviewer) pairs: ``round(overlap * n)`` records to ``per_overlap`` reviewers, the rest to one.

    Each record goes to the least-loaded reviewers (ties rotate), so loads differ by at most one.

    >>> plan = plan_assignments(list(range(8)), ["ada", "bob", "cy"], 0.25)
    >>> len(plan), sorted({r for _, r in plan}), sorted(n for n in __import__("collections").Counter(
    ...     rec for rec, _ in plan).values())
    (10, ['ada', 'bob', 'cy'], [1, 1, 1, 1, 1, 1, 2, 2])
    >>> len(plan_assignments([1, 2], ["ada", "bob"], 1.0, per_overlap=2))  # full overlap
    4
    """
    check_overlap(overlap, per_overlap, len(reviewers))
    order = list(record_ids)
    random.Random(seed).shuffle(order)
    double = set(order[: round(overlap * len(order))])
    load = dict.fromkeys(reviewers, 0)
    plan = []
    for turn, record in enumerate(sorted(order, key=lambda r: r not in double)):
        count = per_overlap if record in double else 1
        ranked = sorted(reviewers, key=lambda r: (load[r], (reviewers.index(r) - turn) % len(reviewers)))
        for reviewer in ranked[:count]:
            load[reviewer] += 1
            plan.append((record, reviewer))
    position = {r: i for i, r in enumerate(record_ids)}
    return sorted(plan, key=lambda p: (position[p[0]], reviewers.index(p[1])))


def check_overlap(overlap: float, per_overlap: int, reviewers: int) -> None:
    """Refuse an overlap share outside [0, 1] or more reviewers per record than there are.

    >>> check_overlap(0.25, 2, 1)
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: reviewers: an overlap needs at least 2 reviewers (got 1)
    """
    if reviewers < 1:
        raise InputError("reviewers", "assign at least one reviewer")
    if not 0.0 <= overlap <= 1.0:
        raise InputError("overlap", f"is {overlap}; give a share between 0 and 1 (e.g. 0.25 for 25 %)")
    if overlap > 0 and not 2 <= per_overlap <= reviewers:
        raise InputError("reviewers", f"an overlap needs at least {max(per_overlap, 2)} reviewers (got {reviewers})")


def _queue(row: Row) -> Queue:
    return Queue(row["id"], row["name"], row["created_at"], row["created_by"], row["overlap"], row["per_overlap"],
                 row["seed"], json.loads(row["source_json"]), row["records"])


_QUEUES = ("SELECT q.*, (SELECT COUNT(*) FROM queue_items i WHERE i.queue_id = q.id) AS records FROM queues q")


def create_queue(db: AuditDB, name: str, record_ids: Iterable[int], reviewers: Sequence[str], overlap: float = 0.0,
                 created_by: str = "", source: dict | None = None, full_overlap: bool = False, seed: int = 0) -> Queue:
    """Create a queue of ``record_ids`` for registered ``reviewers`` (all in one transaction).

    ``full_overlap`` gives every record to every reviewer; otherwise a share
    ``overlap`` of the records goes to two reviewers.
    """
    name = clean_field("queue", name, MAX_QUEUE_NAME, "name the queue")
    ids = list(dict.fromkeys(int(r) for r in record_ids))
    if not ids:
        raise InputError("records", f"queue {name!r} would have no records: the selection matched none")
    people = list(dict.fromkeys(reviewers))
    overlap, per = (1.0, len(people)) if full_overlap else (float(overlap), 2)
    check_overlap(overlap, per, len(people))

    def work(conn: Conn) -> int:
        names = [registry.require(conn, p, "reviewers") for p in people]
        by = registry.require(conn, created_by, "created_by") if created_by else ""
        if conn.execute("SELECT 1 FROM queues WHERE name = ?", (name,)).fetchone():
            raise InputError("queue", f"a queue named {name!r} exists already; choose another name")
        known = {r[0] for r in conn.execute(f"SELECT id FROM records WHERE id IN ({','.join('?' * len(ids))})", ids)}
        if missing := [i for i in ids if i not in known]:
            raise InputError("records", f"no audit record {missing[0]} ({len(missing)} unknown record id(s))")
        queue_id = conn.insert(
            "INSERT INTO queues (name, created_at, created_by, overlap, per_overlap, seed, source_json) VALUES "
            "(?,?,?,?,?,?,?)", (name, utc_now(), by, overlap, per, seed, json.dumps(source or {})))
        conn.executemany("INSERT INTO queue_items (queue_id, record_id, position) VALUES (?,?,?)",
                         [(queue_id, r, i) for i, r in enumerate(ids)])
        conn.executemany("INSERT INTO assignments (queue_id, record_id, reviewer, updated_at) VALUES (?,?,?,?)",
                         [(queue_id, r, p, utc_now()) for r, p in plan_assignments(ids, names, overlap, per, seed)])
        return queue_id

    queue_id = db.write(work)
    return get_queue(db, queue_id)


def get_queue(db: AuditDB, queue: str | int) -> Queue:
    """A queue by name or id; an unknown one is an :class:`InputError` naming ``queue``."""
    column = "id" if isinstance(queue, int) else "name"
    rows = db.query(f"{_QUEUES} WHERE q.{column} = ?", (queue,))
    if not rows:
        known = [q.name for q in list_queues(db)]
        raise InputError("queue", f"there is no queue {queue!r} (known: {', '.join(known) or 'none yet'})")
    return _queue(rows[0])


def list_queues(db: AuditDB) -> list[Queue]:
    return [_queue(r) for r in db.query(f"{_QUEUES} ORDER BY q.created_at DESC, q.id DESC")]


def queue_record_ids(db: AuditDB, queue: str | int) -> list[int]:
    """The records of a queue in queue order."""
    q = get_queue(db, queue)
    return [r[0] for r in db.query("SELECT record_id FROM queue_items WHERE queue_id = ? ORDER BY position", (q.id,))]


_ASSIGNMENTS = ("SELECT a.*, i.position FROM assignments a JOIN queue_items i "
                "ON i.queue_id = a.queue_id AND i.record_id = a.record_id")


def _assignment(row: Row) -> Assignment:
    return Assignment(row["queue_id"], row["record_id"], row["reviewer"], row["status"], row["comment"],
                      row["updated_at"], row["position"])


def assignments(db: AuditDB, queue: str | int, reviewer: str | None = None) -> list[Assignment]:
    """A queue's assignments in queue order (one reviewer's when ``reviewer`` is given)."""
    q = get_queue(db, queue)
    where, args = "a.queue_id = ?", list[int | str]([q.id])
    if reviewer:
        where, args = where + " AND a.reviewer = ?", [*args, db.require_reviewer(reviewer)]
    return [_assignment(r) for r in db.query(f"{_ASSIGNMENTS} WHERE {where} ORDER BY i.position, a.reviewer", args)]


def next_assignment(db: AuditDB, queue: str | int, reviewer: str, after: int | None = None,
                    include_skipped: bool = True) -> Assignment | None:
    """The reviewer's next pending record (after position ``after`` first, then from the start), then skipped ones."""
    mine = [a for a in assignments(db, queue, reviewer) if a.status != "done"]
    pending = [a for a in mine if a.status == "pending"]
    later = [a for a in pending if after is None or a.position > after]
    for group in (later, pending, [a for a in mine if a.status == "skipped" and include_skipped]):
        if group:
            return group[0]
    return None


def _open_assignment(conn: Conn, queue_id: int, record_id: int, reviewer: str) -> Row:
    if conn.execute("SELECT 1 FROM records WHERE id = ?", (record_id,)).fetchone() is None:
        raise InputError("record_id", f"audit record {record_id} was removed (with its document); "
                                      "it is no longer in the queue")
    row = conn.execute("SELECT status FROM assignments WHERE queue_id = ? AND record_id = ? AND reviewer = ?",
                       (queue_id, record_id, reviewer)).fetchone()
    if row is None:
        raise InputError("record_id", f"record {record_id} is not assigned to {reviewer!r} in this queue")
    if row["status"] == "done":
        raise InputError("record_id", f"{reviewer!r} has already reviewed record {record_id} in this queue; "
                                      "add further labels on the Review page")
    return row


def check_stages(stages: Iterable[str]) -> list[str]:
    """Stage labels of one review: known, at least one, and ``correct`` alone.

    >>> check_stages(["II", "III", "II"])
    ['II', 'III']
    >>> check_stages(["correct", "II"])
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: stages: 'correct' cannot be combined with an error stage (II)
    """
    chosen = list(dict.fromkeys(stages))
    if not chosen:
        raise InputError("stages", "choose at least one stage label (or skip the record)")
    for stage in chosen:
        if stage not in LABEL_TYPES:
            raise InputError("stages", f"unknown stage {stage!r} (choose from {', '.join(LABEL_TYPES)})")
    if "correct" in chosen and len(chosen) > 1:
        raise InputError("stages", f"'correct' cannot be combined with an error stage "
                                   f"({', '.join(s for s in chosen if s != 'correct')})")
    return chosen


def submit(db: AuditDB, queue: str | int, record_id: int, reviewer: str, stages: Iterable[str],
           comment: str = "") -> list[int]:
    """Store the reviewer's stage labels on a queued record and mark it done, in one transaction; the label ids."""
    q, chosen, note = get_queue(db, queue), check_stages(stages), clean_note(comment, "comment")

    def work(conn: Conn) -> list[int]:
        who = registry.require(conn, reviewer)
        _open_assignment(conn, q.id, record_id, who)
        ids = [insert_label(conn, record_id, stage, note=note, author=who, details={"queue": q.name})
               for stage in chosen]
        conn.execute("UPDATE assignments SET status = 'done', comment = ?, updated_at = ? WHERE queue_id = ? "
                     "AND record_id = ? AND reviewer = ?", (note, utc_now(), q.id, record_id, who))
        return ids

    return db.write(work)


def skip(db: AuditDB, queue: str | int, record_id: int, reviewer: str, comment: str = "") -> None:
    """Put a record aside (it comes back after the pending ones); the comment says why."""
    q, note = get_queue(db, queue), clean_note(comment, "comment")

    def work(conn: Conn) -> None:
        who = registry.require(conn, reviewer)
        _open_assignment(conn, q.id, record_id, who)
        conn.execute("UPDATE assignments SET status = 'skipped', comment = ?, updated_at = ? WHERE queue_id = ? "
                     "AND record_id = ? AND reviewer = ?", (note, utc_now(), q.id, record_id, who))

    db.write(work)


_DONE = "SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END)"
_SKIPPED = "SUM(CASE WHEN status = 'skipped' THEN 1 ELSE 0 END)"


def progress(db: AuditDB, queue: str | int) -> QueueProgress:
    """Per-reviewer counts and the records every assigned reviewer has done."""
    q = get_queue(db, queue)
    rows = db.query(f"SELECT reviewer, COUNT(*) AS n, {_DONE} AS done, {_SKIPPED} AS skipped "
                    "FROM assignments WHERE queue_id = ? GROUP BY reviewer ORDER BY reviewer", (q.id,))
    per_record = db.query(f"SELECT COUNT(*) AS n, {_DONE} AS done FROM assignments WHERE queue_id = ? "
                          "GROUP BY record_id", (q.id,))
    return QueueProgress(q, [Progress(r["reviewer"], r["n"], r["done"] or 0, r["skipped"] or 0) for r in rows],
                         sum(r["n"] == r["done"] for r in per_record), sum(r["n"] >= 2 for r in per_record))
