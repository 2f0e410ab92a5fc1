"""Error analysis (stage distribution and drill-down) and the export round trip in every format."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from auditkit import add_record, add_records

from kgcore.audit import AuditDB
from kgcore.audit.adjudication import adjudicate, adjudications_for
from kgcore.audit.analysis import distribution, drill, error_analysis
from kgcore.audit.exchange import export_file, import_file, read_parquet
from kgcore.audit.queues import create_queue, submit
from kgcore.cli import main
from kgcore.core.errors import AuditError, InputError


@pytest.fixture
def team(tmp_path):
    db = AuditDB.for_store(tmp_path)
    for name in ("Ada", "Bob", "Cy"):
        db.add_reviewer(name)
    first, second, third = add_records(db, 3)
    other = add_record(db, 9, method="graph", documents=("bj",))
    create_queue(db, "q", [first, second, third, other], ["Ada", "Bob"], full_overlap=True)
    for record, ada, bob in ((first, "II", "III"), (second, "correct", "correct"), (third, "III", "III"),
                             (other, "II", "II")):
        submit(db, "q", record, "Ada", [ada])
        submit(db, "q", record, "Bob", [bob])
    db.add_label(third, "I", author="automatic", source="automatic")
    adjudicate(db, first, "Cy", ["II"], "the evidence was never retrieved")
    return db, (first, second, third, other)


def test_distribution_per_method_document_and_index(team):
    db, (first, second, third, other) = team
    rows = error_analysis(db)
    by_id = {r.record_id: r for r in rows}
    assert by_id[first].stage == "II" and by_id[first].adjudicated and not by_id[first].disputed
    assert by_id[other].documents == ("bj",) and by_id[second].documents == ("peter-rabbit",)
    assert {k: dict(v) for k, v in distribution(rows, "method").items()} == {
        "bm25": {"II": 1, "correct": 1, "III": 1}, "graph": {"II": 1}}
    assert set(distribution(rows, "document")) == {"bj", "peter-rabbit"}
    (index,) = distribution(rows, "index")
    assert index == db.get_record(first).manifest_hash[:10] + " · srl/heuristic"
    assert [r.record_id for r in drill(rows, "method", "bm25", "II")] == [first]
    assert [r.record_id for r in drill(rows, "document", "bj")] == [other]
    automatic = error_analysis(db, "automatic")
    assert [(r.record_id, r.stage) for r in automatic] == [(third, "I")]
    with pytest.raises(InputError, match="^stage: unknown stage 'IV'"):
        drill(rows, "method", stage="IV")
    with pytest.raises(InputError, match="^by: unknown grouping"):
        distribution(rows, "answerer")


def test_a_disagreement_without_adjudication_is_disputed(tmp_path):
    db = AuditDB(tmp_path / "a.sqlite")
    (record,) = add_records(db, 1)
    db.add_label(record, "III", author="Ada")
    db.add_label(record, "II", author="Bob")
    (row,) = error_analysis(db)
    assert row.disputed and row.stage == "II" and row.reviewers == ("Ada", "Bob")


def state(db: AuditDB) -> tuple:
    """Everything an import must give back: records (all fields but the row id), labels, adjudications."""
    records = sorted(json.dumps({k: v for k, v in r.to_dict().items() if k != "id"}, sort_keys=True)
                     for r in db.list_records())
    uid_of = {r.id: r.uid for r in db.list_records()}
    label_uid = {lb.id: lb.uid for lb in db.list_labels()}
    adjudications = {a.id: (a.uid, uid_of[a.record_id], a.adjudicator, a.reason, a.created_at)
                     for rid in uid_of for a in adjudications_for(db, rid)}
    labels = sorted((lb.uid, uid_of[lb.record_id], lb.label_type, lb.artifact_kind, lb.artifact_id, lb.note, lb.author,
                     lb.created_at, lb.source, label_uid.get(lb.suggestion_id), json.dumps(lb.details), lb.role,
                     adjudications.get(lb.adjudication_id)) for lb in db.list_labels())
    return records, labels, sorted(adjudications.values())


@pytest.mark.parametrize("suffix", ["jsonl", "csv", "parquet"])
def test_export_then_import_into_a_fresh_database_is_lossless(team, tmp_path, suffix):
    db, _ = team
    path = tmp_path / f"audit.{suffix}"
    assert export_file(db, path) == 4
    fresh = AuditDB(tmp_path / f"fresh-{suffix}.sqlite")
    report = import_file(fresh, path)
    assert (report.records_added, report.labels_added) == (4, 10)
    assert state(fresh) == state(db)
    assert import_file(fresh, path).labels_added == 0  # a second import adds nothing


def test_parquet_with_an_unknown_stage_writes_nothing(team, tmp_path):
    db, _ = team
    export_file(db, tmp_path / "good.parquet")
    table = pq.read_table(tmp_path / "good.parquet")
    types = table.column("label_type").to_pylist()
    types[3] = "IV"
    broken = table.set_column(table.column_names.index("label_type"), "label_type", pa.array(types, pa.string()))
    pq.write_table(broken, tmp_path / "bad.parquet")
    fresh = AuditDB(tmp_path / "fresh.sqlite")
    with pytest.raises(AuditError, match=r"bad.parquet: line 5: .*label_type: unknown value 'IV'"):
        import_file(fresh, tmp_path / "bad.parquet")
    assert fresh.list_records() == [] and fresh.list_labels() == []
    (tmp_path / "junk.parquet").write_bytes(b"not parquet")
    with pytest.raises(AuditError, match="junk.parquet: not a readable Parquet file"):
        read_parquet(tmp_path / "junk.parquet")
    with pytest.raises(InputError, match="^path: .* is not an audit export"):
        export_file(db, tmp_path / "audit.xlsx")


def test_cli_errors_and_parquet_round_trip(team, tmp_path, capsys):
    db, _ = team
    code = main(["audit", "errors", "--by", "method", "--json", "--store", str(db.path.parent)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["records"] == 4 and out["distribution"]["graph"] == {"II": 1}
    path = tmp_path / "out.parquet"
    assert main(["audit", "export", "--out", str(path), "--method", "graph", "--store", str(db.path.parent)]) == 0
    assert json.loads(capsys.readouterr().out)["exported"] == 1
    assert main(["audit", "import", str(path), "--store", str(tmp_path / "other")]) == 0
    assert json.loads(capsys.readouterr().out) == {"records_added": 1, "records_existing": 0, "labels_added": 2,
                                                   "labels_existing": 0}
