"""Merging the spellings of one reviewer, on request: proposed first (:func:`suggest_merges`), applied after.

Merging rewrites the author of the merged spellings' human labels, their
queue assignments and adjudications to the name kept, in one transaction,
and records the merge in ``author_merges``; every changed label keeps its
old author in ``label_history`` (a database trigger), so nothing is lost.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from kgcore.audit import reviewers as registry
from kgcore.audit.db import AuditDB
from kgcore.audit.model import utc_now
from kgcore.audit.names import SpellingGroup, check_merge, reviewer_key, spelling_groups
from kgcore.audit.sql import Conn
from kgcore.core.errors import InputError


@dataclass(frozen=True)
class MergeResult:
    """What one merge changed."""

    into: str
    merged: tuple[str, ...]
    labels_changed: int
    assignments_changed: int
    adjudications_changed: int


def label_counts(db: AuditDB) -> dict[str, int]:
    """Human label authors and their number of labels."""
    rows = db.query("SELECT author, COUNT(*) AS n FROM labels WHERE source = 'human' GROUP BY author")
    return {r["author"]: r["n"] for r in rows}


def suggest_merges(db: AuditDB) -> list[SpellingGroup]:
    """Author spellings that look like one person (to show before anything is merged)."""
    counts = label_counts(db)
    for reviewer in db.reviewers():
        counts.setdefault(reviewer.name, 0)
    return spelling_groups(counts, tuple(r.name for r in db.reviewers() if r.origin != "labels"))


def _clash(conn: Conn, into: str, spellings: tuple[str, ...]) -> None:
    marks = ",".join("?" * len(spellings))
    row = conn.execute(
        f"SELECT a.record_id, q.name FROM assignments a JOIN assignments b ON a.queue_id = b.queue_id AND "
        f"a.record_id = b.record_id JOIN queues q ON q.id = a.queue_id WHERE a.reviewer IN ({marks}) "
        f"AND (b.reviewer = ? OR (b.reviewer IN ({marks}) AND b.reviewer != a.reviewer)) LIMIT 1",
        (*spellings, into, *spellings)).fetchone()
    if row is not None:
        raise InputError("from", f"two of these spellings are both assigned record {row[0]} in queue {row[1]!r}; "
                                 "one person cannot review it twice, so finish or remove one assignment first")


def merge_authors(db: AuditDB, into: str, spellings: Iterable[str], merged_by: str = "") -> MergeResult:
    """Merge ``spellings`` into ``into`` (registered if it is not yet) in one transaction."""
    counts = label_counts(db)
    known = {**counts, **{r.name: r.labels for r in db.reviewers()}}
    target, chosen = check_merge(into, spellings, known)

    def work(conn: Conn) -> MergeResult:
        existing = registry.find(conn, target)
        name = existing if existing is not None and existing not in chosen else target
        _clash(conn, name, chosen)
        marks = ",".join("?" * len(chosen))
        conn.execute(f"DELETE FROM reviewers WHERE name IN ({marks}) AND key != ?", (*chosen, reviewer_key(name)))
        if existing is None:
            registry.register(conn, name, "local", utc_now())
        elif existing != name:  # the registered spelling is merged away: the reviewer takes the name kept
            conn.execute("UPDATE reviewers SET name = ? WHERE key = ?", (name, reviewer_key(name)))
        changed = [conn.execute(f"UPDATE {table} SET {column} = ? WHERE {column} IN ({marks}){extra}",
                                (name, *chosen)).rowcount
                   for table, column, extra in (("labels", "author", " AND source = 'human'"),
                                                ("assignments", "reviewer", ""), ("adjudications", "adjudicator", ""))]
        conn.execute("INSERT INTO author_merges (into_author, from_authors_json, labels_changed, merged_by, merged_at) "
                     "VALUES (?,?,?,?,?)", (name, json.dumps(list(chosen)), changed[0], merged_by, utc_now()))
        return MergeResult(name, chosen, *changed)

    return db.write(work)


def merge_log(db: AuditDB) -> list[dict]:
    """Every merge applied, oldest first."""
    return [{"into": r["into_author"], "from": json.loads(r["from_authors_json"]), "labels": r["labels_changed"],
             "by": r["merged_by"], "at": r["merged_at"]} for r in db.query("SELECT * FROM author_merges ORDER BY id")]
