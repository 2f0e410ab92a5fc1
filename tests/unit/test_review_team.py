"""Review as a team on a real audit database, a SQLite file and a PostgreSQL server (no models): reviewers, the
schema 2 -> 3 migration, merging spellings, review queues with overlap, selections, adjudication and the label
history."""

from __future__ import annotations

import doctest
import importlib
import json
import sqlite3
from collections import Counter

import pytest
from auditkit import DOC, V2_SCHEMA, add_record, add_records

from kgcore.audit import SCHEMA_VERSION, AuditDB
from kgcore.audit.adjudication import (
    adjudicate,
    adjudications_for,
    disagreements,
    effective_labels,
    label_history,
)
from kgcore.audit.queues import assignments, create_queue, get_queue, next_assignment, progress, skip, submit
from kgcore.audit.selection import records_for_questions, records_for_run, select_records
from kgcore.audit.spellings import merge_authors, merge_log, suggest_merges
from kgcore.audit.suggest import store_suggestion
from kgcore.core.errors import InputError
from kgcore.evaluate.diagnose import Diagnosis

MODULES = ["kgcore.audit.names", "kgcore.audit.schema", "kgcore.audit.queues", "kgcore.audit.adjudication",
           "kgcore.audit.selection", "kgcore.audit.rows"]



@pytest.mark.parametrize("module", MODULES)
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@pytest.fixture
def db(audit_location):
    return AuditDB(audit_location)


@pytest.fixture
def team(db):
    for name in ("Ada", "Bob", "Cy"):
        db.add_reviewer(name)
    return db


# -- reviewers ---------------------------------------------------------------------
def test_one_spelling_per_reviewer(db):
    assert db.add_reviewer("  Ada   Lovelace ") == "Ada Lovelace"
    with pytest.raises(InputError, match="reviewer: 'ada lovelace' is already registered as 'Ada Lovelace'"):
        db.add_reviewer("ada lovelace")
    record = add_record(db, 1)
    label = db.add_label(record, "II", author="ADA  LOVELACE")  # a label's author resolves to the reviewer
    assert db.get_label(label).author == "Ada Lovelace"
    assert db.require_reviewer("ada lovelace") == "Ada Lovelace"
    with pytest.raises(InputError, match="reviewer: 'Eve' is not a registered reviewer"):
        db.require_reviewer("Eve")
    with pytest.raises(InputError, match="reviewer: is empty"):
        db.add_reviewer("  ")
    db.add_label(record, "II", source="automatic")  # the diagnosis is not a reviewer
    assert [(r.name, r.origin, r.labels) for r in db.reviewers()] == [("Ada Lovelace", "local", 1)]


def test_schema_2_database_is_migrated_and_keeps_its_labels(tmp_path):
    path = tmp_path / "v2.sqlite"
    payload = {"question": "Q?", "doc_id": DOC, "method": "bm25", "sentences": [], "matches": [], "answer": "A"}
    with sqlite3.connect(path) as conn:
        conn.executescript(V2_SCHEMA)
        conn.execute("INSERT INTO records VALUES (1, 'uid-1', '2024-05-01T10:00:00+00:00', ?, 'h', 'Q?', 'bm25',"
                     " 'extractive', 'A', '[]', '{}', '{}', ?)", (DOC, json.dumps(payload)))
        for i, (author, source) in enumerate([("Ada", "human"), ("Ada", "human"), ("ada", "human"),
                                              ("Adà", "human"), ("auto-diagnosis", "automatic")]):
            conn.execute("INSERT INTO labels (id, uid, record_id, label_type, artifact_kind, author, created_at,"
                         " source) VALUES (?, ?, 1, 'II', 'record', ?, ?, ?)",
                         (i + 1, f"l{i}", author, f"2024-05-01T10:0{i}:00+00:00", source))
    db = AuditDB(path)
    assert db.schema_version == SCHEMA_VERSION == 4
    assert [(lb.uid, lb.author, lb.role) for lb in db.labels_for(1)] == [
        ("l0", "Ada", "review"), ("l1", "Ada", "review"), ("l2", "ada", "review"), ("l3", "Adà", "review"),
        ("l4", "auto-diagnosis", "review")]
    # Existing authors became reviewers (one per key: "ada" is Ada's); nothing was merged by itself.
    assert [(r.name, r.origin, r.labels) for r in db.reviewers()] == [("Ada", "labels", 2), ("Adà", "labels", 1)]
    (group,) = suggest_merges(db)
    assert (group.into, group.spellings, group.labels_changed) == ("Ada", ("Adà", "ada"), 2)
    result = merge_authors(db, group.into, group.spellings, merged_by="Ada")
    assert (result.into, result.labels_changed) == ("Ada", 2)
    assert Counter(lb.author for lb in db.labels_for(1)) == {"Ada": 4, "auto-diagnosis": 1}
    assert [r.name for r in db.reviewers()] == ["Ada"] and suggest_merges(db) == []
    history = label_history(db, 1)
    assert sorted((h["label_uid"], h["author"], h["new_author"]) for h in history) == [
        ("l2", "ada", "Ada"), ("l3", "Adà", "Ada")]
    assert merge_log(db)[0]["from"] == ["Adà", "ada"]
    # The new tables work on the migrated file.
    queue = create_queue(db, "old", [1], ["Ada"])
    assert submit(db, queue.name, 1, "Ada", ["correct"])


def test_bad_merges_change_nothing(db):
    record = add_record(db, 1)
    db.add_label(record, "II", author="Ada")
    db.add_label(record, "II", author="Adda")
    with pytest.raises(InputError, match="from: 'Eve' is not the author of any label"):
        merge_authors(db, "Ada", ["Eve"])
    with pytest.raises(InputError, match="cannot be merged into itself"):
        merge_authors(db, "Ada", ["Ada"])
    create_queue(db, "q", [record], ["Ada", "Adda"], full_overlap=True)
    with pytest.raises(InputError, match="both assigned record"):
        merge_authors(db, "Ada", ["Adda"])
    assert sorted(lb.author for lb in db.labels_for(record)) == ["Ada", "Adda"] and merge_log(db) == []


# -- queues ------------------------------------------------------------------------
def test_queue_with_overlap_progress_and_next_record(team):
    ids = add_records(team, 60)
    queue = create_queue(team, "sixty", ids, ["Ada", "Bob", "Cy"], overlap=0.25, created_by="Ada",
                         source={"kind": "filter"})
    assert (queue.records, queue.overlap, queue.per_overlap, queue.created_by) == (60, 0.25, 2, "Ada")
    state = progress(team, "sixty")
    assert [(p.reviewer, p.assigned, p.done) for p in state.reviewers] == [("Ada", 25, 0), ("Bob", 25, 0),
                                                                           ("Cy", 25, 0)]
    assert state.overlapping == 15 and state.records_done == 0 and state.assignments == 75
    per_record = Counter(a.record_id for a in assignments(team, queue.id))
    assert sorted(Counter(per_record.values()).items()) == [(1, 45), (2, 15)]
    first = next_assignment(team, "sixty", "bob")  # the reviewer's spelling resolves
    assert first.reviewer == "Bob" and first.status == "pending"
    labels = submit(team, "sixty", first.record_id, "Bob", ["II", "III"], comment="missed the pie sentence")
    assert [(lb.label_type, lb.author, lb.note, lb.details["queue"]) for lb in map(team.get_label, labels)] == [
        ("II", "Bob", "missed the pie sentence", "sixty"), ("III", "Bob", "missed the pie sentence", "sixty")]
    second = next_assignment(team, "sixty", "Bob", after=first.position)
    assert second.position > first.position
    skip(team, "sixty", second.record_id, "Bob", "unsure")
    third = next_assignment(team, "sixty", "Bob", after=second.position)
    assert third.record_id not in (first.record_id, second.record_id)
    assert [(p.done, p.skipped, p.pending) for p in progress(team, "sixty").reviewers if p.reviewer == "Bob"] == [
        (1, 1, 23)]
    with pytest.raises(InputError, match="record_id: 'Bob' has already reviewed record"):
        submit(team, "sixty", first.record_id, "Bob", ["correct"])
    others = [a.record_id for a in assignments(team, queue.id, "Ada")]
    foreign = next(r for r in ids if r not in others)
    with pytest.raises(InputError, match="is not assigned to 'Ada'"):
        submit(team, "sixty", foreign, "Ada", ["correct"])
    # A bad stage writes nothing and leaves the record pending.
    before = len(team.list_labels())
    with pytest.raises(InputError, match="stages: 'correct' cannot be combined"):
        submit(team, "sixty", third.record_id, "Bob", ["correct", "II"])
    assert len(team.list_labels()) == before and next_assignment(team, "sixty", "Bob").record_id == third.record_id


def test_finished_queue_offers_skipped_records_then_nothing(team):
    ids = add_records(team, 2)
    create_queue(team, "two", ids, ["Ada"])
    skip(team, "two", ids[0], "Ada")
    submit(team, "two", ids[1], "Ada", ["correct"])
    assert next_assignment(team, "two", "Ada").record_id == ids[0]  # the skipped one comes back
    assert next_assignment(team, "two", "Ada", include_skipped=False) is None
    submit(team, "two", ids[0], "Ada", ["gold-not-in-document"])
    assert next_assignment(team, "two", "Ada") is None and progress(team, "two").records_done == 2


def test_full_overlap_gives_every_record_to_every_reviewer(team):
    ids = add_records(team, 4)
    queue = create_queue(team, "all", ids, ["Ada", "Bob", "Cy"], full_overlap=True)
    assert (queue.overlap, queue.per_overlap) == (1.0, 3)
    assert Counter(a.record_id for a in assignments(team, "all")) == dict.fromkeys(ids, 3)


@pytest.mark.parametrize("kwargs, match", [
    ({"name": "q", "record_ids": [], "reviewers": ["Ada"]}, "records: queue 'q' would have no records"),
    ({"name": "q", "record_ids": [1], "reviewers": ["Eve"]}, "reviewers: 'Eve' is not a registered reviewer"),
    ({"name": "q", "record_ids": [1], "reviewers": ["Ada"], "overlap": 0.5}, "reviewers: an overlap needs at least 2"),
    ({"name": "q", "record_ids": [1], "reviewers": ["Ada", "Bob"], "overlap": 1.5}, "overlap: is 1.5"),
    ({"name": "q", "record_ids": [1, 999], "reviewers": ["Ada"]}, "records: no audit record 999"),
    ({"name": "q", "record_ids": [1], "reviewers": []}, "reviewers: assign at least one reviewer"),
    ({"name": " ", "record_ids": [1], "reviewers": ["Ada"]}, "queue: is empty"),
])
def test_bad_queues_are_refused_and_nothing_is_written(team, kwargs, match):
    add_record(team, 1)
    with pytest.raises(InputError, match=match):
        create_queue(team, **kwargs)
    assert team.query("SELECT COUNT(*) FROM queues")[0][0] == 0
    assert team.query("SELECT COUNT(*) FROM assignments")[0][0] == 0


def test_unknown_queue_duplicate_name_and_removed_record(team):
    ids = add_records(team, 3)
    create_queue(team, "q", ids, ["Ada"])
    with pytest.raises(InputError, match="queue: there is no queue 'nope' \\(known: q\\)"):
        get_queue(team, "nope")
    with pytest.raises(InputError, match="queue: a queue named 'q' exists already"):
        create_queue(team, "q", ids, ["Ada"])
    team.delete_record(ids[1])  # removed with its document
    with pytest.raises(InputError, match=f"record_id: audit record {ids[1]} was removed"):
        submit(team, "q", ids[1], "Ada", ["II"])
    assert get_queue(team, "q").records == 2 and progress(team, "q").reviewers[0].assigned == 2
    with pytest.raises(InputError, match="record_id: there is no audit record"):
        team.add_label(ids[1], "II", author="Ada")


# -- selections ----------------------------------------------------------------------
def test_selections_by_filter_question_set_and_run(db):
    a, b = add_record(db, 1, "bm25"), add_record(db, 2, "dense")
    c = add_record(db, 3, "bm25", documents=("other-book",))
    store_suggestion(db, b, Diagnosis("II", "the evidence was not retrieved"))
    assert select_records(db, methods="bm25").record_ids == [a, c]
    assert select_records(db, documents="other-book").record_ids == [c]
    assert select_records(db, diagnoses=["II"]).record_ids == [b]
    with pytest.raises(InputError, match="diagnosis: unknown stage 'IV'"):
        select_records(db, diagnoses="IV")
    chosen = records_for_questions(db, ["question 2?", " Question  1? ", "Never asked?"], "dev.csv")
    assert chosen.record_ids == [b, a] and chosen.missing == ["never asked?"]
    assert chosen.source["kind"] == "question-set"
    run = records_for_run(db, [(DOC, "Question 1?", "bm25"), (DOC, "Question 1?", "dense")])
    assert run.record_ids == [a] and run.missing == [f"{DOC} · dense · question 1?"]
    with pytest.raises(InputError, match="questions: dev.csv has no questions"):
        records_for_questions(db, [], "dev.csv")


# -- adjudication ----------------------------------------------------------------------
def test_adjudication_keeps_every_label_and_statistics_use_the_final_ones(team):
    first, second, third = add_records(team, 3)
    create_queue(team, "q", [first, second, third], ["Ada", "Bob"], full_overlap=True)
    submit(team, "q", first, "Ada", ["II"])
    submit(team, "q", first, "Bob", ["III"])
    submit(team, "q", second, "Ada", ["correct"])
    submit(team, "q", second, "Bob", ["correct"])
    submit(team, "q", third, "Ada", ["I"])
    (found,) = disagreements(team)
    assert (found.record_id, dict(found.stages), found.differing, found.adjudicated) == (
        first, {"Ada": ("II",), "Bob": ("III",)}, ["II", "III"], False)
    assert found.verdicts == {"Ada": "II", "Bob": "III"}
    with pytest.raises(InputError, match="reason: is empty"):
        adjudicate(team, first, "Cy", ["II"], "  ")
    with pytest.raises(InputError, match="adjudicator: 'Eve' is not a registered reviewer"):
        adjudicate(team, first, "Eve", ["II"], "the pie sentence was never retrieved")
    with pytest.raises(InputError, match="adopt: label"):
        adjudicate(team, first, "Cy", [], "x", adopt=[team.labels_for(second)[0].id])
    assert adjudications_for(team, first) == []
    bob_label = next(lb for lb in team.labels_for(first) if lb.author == "Bob")
    final = adjudicate(team, first, "Cy", ["II"], "the pie sentence was never retrieved", adopt=[bob_label.id],
                       queue="q")
    assert final.stages == ["II", "III"] and final.adjudicator == "Cy" and final.queue_id == get_queue(team, "q").id
    assert all(lb.role == "adjudication" and lb.author == "Cy" for lb in final.labels)
    assert final.labels[1].details["adopted_label_uid"] == bob_label.uid
    # Adjudicating again keeps the first adjudication; the latest is final.
    with pytest.raises(InputError, match="adjudicator: Ada labelled record .*another reviewer adjudicates it"):
        adjudicate(team, first, "Ada", ["II"], "III follows from II")  # one side does not settle the disagreement
    later = adjudicate(team, first, "Cy", ["II"], "III follows from II")
    assert [a.id for a in adjudications_for(team, first)] == [final.id, later.id]
    kept, adjudicated = effective_labels(team.list_labels())
    assert adjudicated == {first}
    assert sorted((lb.record_id, lb.label_type, lb.role) for lb in kept if lb.record_id == first) == [
        (first, "II", "adjudication")]
    assert len([lb for lb in team.labels_for(first) if lb.role == "review"]) == 2  # nothing overwritten
    assert disagreements(team)[0].adjudicated
    # A deleted label is kept in the history, also when its record goes with its document.
    team.delete_label(bob_label.id, by="Cy")
    assert [(h["event"], h["author"], h["label_type"], h["deleted_by"]) for h in label_history(team, first)] == [
        ("deleted", "Bob", "III", "Cy")]
    team.delete_record(third)
    assert [h["author"] for h in label_history(team, third)] == ["Ada"]
