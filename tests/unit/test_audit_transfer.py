"""Export and import keep reviews, adjudications and which labels are final; older files still import
(no models: records from ``auditkit``)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from auditkit import add_records

from kgcore.audit import AuditDB
from kgcore.audit.adjudication import adjudicate, adjudications_for, effective_labels
from kgcore.audit.queues import create_queue, submit
from kgcore.audit.transfer import CSV_FIELDS, CSV_FIELDS_V1, export_csv, export_jsonl, import_csv, import_jsonl
from kgcore.core.errors import AuditError


@pytest.fixture
def adjudicated(audit_location):
    """An adjudicated queue on each backend (the fresh databases imported into are SQLite files)."""
    db = AuditDB(audit_location)
    for name in ("Ada", "Bob", "Cy"):
        db.add_reviewer(name)
    first, second = add_records(db, 2)
    create_queue(db, "q", [first, second], ["Ada", "Bob"], full_overlap=True)
    submit(db, "q", first, "Ada", ["II"])
    submit(db, "q", first, "Bob", ["III"])
    submit(db, "q", second, "Ada", ["correct"])
    adjudicate(db, first, "Cy", ["II"], "the evidence was never retrieved")
    return db, first, second


def snapshot(db: AuditDB) -> list[tuple]:
    adjudication_uid = {a.id: (a.uid, a.adjudicator, a.reason, a.created_at) for r in db.list_records()
                        for a in adjudications_for(db, r.id)}
    return sorted((lb.uid, lb.label_type, lb.author, lb.note, lb.role, lb.created_at,
                   adjudication_uid.get(lb.adjudication_id)) for lb in db.list_labels())


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_round_trip_keeps_adjudications(adjudicated, tmp_path, fmt):
    db, first, _ = adjudicated
    path = tmp_path / f"out.{fmt}"
    (export_jsonl if fmt == "jsonl" else export_csv)(db, path)
    fresh = AuditDB(tmp_path / "fresh.sqlite")
    report = (import_jsonl if fmt == "jsonl" else import_csv)(fresh, path)
    assert (report.records_added, report.labels_added) == (2, 4)
    assert snapshot(fresh) == snapshot(db)
    assert {r.name for r in fresh.reviewers()} == {"Ada", "Bob", "Cy"}  # authors of imported labels are reviewers
    kept, adjudicated_ids = effective_labels(fresh.list_labels())
    assert len(adjudicated_ids) == 1 and [lb.role for lb in kept if lb.label_type == "II"] == ["adjudication"]


def test_exports_say_which_labels_are_final(adjudicated, tmp_path):
    db, first, second = adjudicated
    export_jsonl(db, tmp_path / "out.jsonl")
    items = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    by_uid = {db.get_record(first).uid: items[0], db.get_record(second).uid: items[1]}
    one = by_uid[db.get_record(first).uid]
    assert one["adjudicated"] and [(lb["author"], lb["role"], lb["final"]) for lb in one["labels"]] == [
        ("Ada", "review", False), ("Bob", "review", False), ("Cy", "adjudication", True)]
    assert one["labels"][2]["adjudication"]["reason"] == "the evidence was never retrieved"
    assert not by_uid[db.get_record(second).uid]["adjudicated"]
    export_csv(db, tmp_path / "out.csv")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out.csv").read_text())))
    assert [r["final"] for r in rows if r["role"] == "adjudication"] == ["yes"]


def test_a_csv_export_from_before_adjudication_imports(adjudicated, tmp_path):
    db, _, second = adjudicated
    export_csv(db, tmp_path / "new.csv", doc_ids=None)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "new.csv").read_text())))
    old = io.StringIO()
    writer = csv.DictWriter(old, CSV_FIELDS_V1, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(r for r in rows if r["role"] == "review")
    (tmp_path / "old.csv").write_text(old.getvalue())
    fresh = AuditDB(tmp_path / "fresh.sqlite")
    assert import_csv(fresh, tmp_path / "old.csv").labels_added == 3
    assert {lb.role for lb in fresh.list_labels()} == {"review"}
    assert len(CSV_FIELDS) == len(CSV_FIELDS_V1) + 3


@pytest.mark.parametrize("change, message", [
    (lambda lb: lb.update(role="boss"), "labels\\[0\\].role: unknown value 'boss'"),
    (lambda lb: lb.update(label_type="IV"), "labels\\[0\\]: label_type: unknown value 'IV'"),
    (lambda lb: lb.update(role="adjudication", adjudication={"uid": "x"}), "labels\\[0\\].adjudication: expected"),
])
def test_bad_import_names_the_field_and_writes_nothing(adjudicated, tmp_path, change, message):
    db, _, _ = adjudicated
    export_jsonl(db, tmp_path / "out.jsonl")
    items = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    change(items[0]["labels"][0])
    (tmp_path / "bad.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    fresh = AuditDB(tmp_path / "fresh.sqlite")
    with pytest.raises(AuditError, match=message):
        import_jsonl(fresh, tmp_path / "bad.jsonl")
    assert fresh.list_records() == [] and fresh.reviewers() == []
