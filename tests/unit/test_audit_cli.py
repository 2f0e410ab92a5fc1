"""``python -m kgcore audit ...`` in-process on a real SQLite audit database (no models)."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from auditkit import add_records

from kgcore.audit import AuditDB
from kgcore.audit.queues import next_assignment, submit
from kgcore.cli import main


@pytest.fixture
def store(tmp_path):
    db = AuditDB.for_store(tmp_path)
    for name in ("Ada", "Bob", "Cy"):
        db.add_reviewer(name)
    add_records(db, 12)
    return tmp_path, db


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_queue_agreement_and_disagreements(store, capsys):
    root, db = store
    code, out, _ = run(capsys, "audit", "queue", "create", "q", "--reviewers", "Ada,Bob,Cy", "--full-overlap",
                       "--by", "Ada", "--store", str(root), "--json")
    assert code == 0 and json.loads(out)["records"] == 12 and json.loads(out)["overlapping"] == 12
    stages = {"Ada": ["II", "II", "III", "correct"], "Bob": ["II", "III", "III", "correct"],
              "Cy": ["II", "II", "III"]}  # Cy leaves the fourth record unlabelled
    for who, chosen in stages.items():
        for stage in chosen:
            item = next_assignment(db, "q", who)
            submit(db, "q", item.record_id, who, [stage])
    code, out, _ = run(capsys, "audit", "agreement", "--queue", "q", "--json", "--bootstrap", "100",
                       "--store", str(root))
    report = json.loads(out)
    assert code == 0 and report["reviewers"] == ["Ada", "Bob", "Cy"] and report["records"] == 4
    by_target = {t["target"]: t for t in report["targets"]}
    matrix = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0, np.nan]])
    assert by_target["II"]["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"))
    assert by_target["II"]["items"] == 4 and by_target["II"]["ratings"] == 11
    assert by_target["gold-not-in-document"]["alpha"] is None
    pair = next(p for p in report["pairs"] if (p["a"], p["b"], p["target"]) == ("Ada", "Bob", "verdict"))
    assert pair["items"] == 4 and pair["categories"][2] == "II"
    code, out, _ = run(capsys, "audit", "disagreements", "--queue", "q", "--json", "--store", str(root))
    assert [d["stages"] for d in json.loads(out)] == [{"Ada": ["II"], "Bob": ["III"], "Cy": ["II"]}]
    code, out, _ = run(capsys, "audit", "agreement", "--store", str(root), "--bootstrap", "0")
    assert code == 0 and "II" in out and "kappa Ada / Bob (verdict)" in out


@pytest.mark.parametrize("argv, message", [
    (["audit", "agreement", "--queue", "nope"], "error: queue: there is no queue 'nope'"),
    (["audit", "queue", "create", "q", "--reviewers", "Eve"], "error: reviewers: 'Eve' is not a registered"),
    (["audit", "queue", "create", "q", "--reviewers", "Ada", "--method", "none"], "error: records: queue 'q' would"),
    (["audit", "queue", "progress"], "error: name: name the queue"),
    (["audit", "merge-authors", "--into", "Ada", "--from", "Eve"], "error: from: 'Eve' is not the author"),
])
def test_bad_input_is_a_clear_message(store, capsys, argv, message):
    root, db = store
    code, _, err = run(capsys, *argv, "--store", str(root))
    assert code == 2 and err.startswith(message), err
    assert db.query("SELECT COUNT(*) FROM queues")[0][0] == 0


def test_a_broken_import_file_is_bad_input_with_a_plain_message(store, tmp_path, capsys):
    root, _ = store
    broken = tmp_path / "bad.jsonl"
    broken.write_text('\n{"question": "Wh\n', encoding="utf-8")
    code, _, err = run(capsys, "audit", "import", str(broken), "--store", str(root))
    assert code == 2, err
    assert err.startswith("error: bad.jsonl: line 2: not valid JSON at column 14 (Unterminated string starting)"), err


def test_reviewers_and_merges_are_shown_before_applied(store, capsys):
    root, db = store
    record = db.list_records()[0].id
    db.add_label(record, "II", author="Bob")
    db.add_label(record, "II", author="B.o.b")
    code, out, _ = run(capsys, "audit", "reviewers", "--json", "--store", str(root))
    assert json.loads(out)["suggested_merges"] == [{"into": "Bob", "from": ["B.o.b"], "labels": {"Bob": 1, "B.o.b": 1}}]
    code, out, _ = run(capsys, "audit", "merge-authors", "--into", "Bob", "--from", "B.o.b", "--store", str(root))
    assert "would merge B.o.b into Bob, changing 1 label(s)" in out
    assert sorted(lb.author for lb in db.labels_for(record)) == ["B.o.b", "Bob"]  # nothing changed yet
    code, out, _ = run(capsys, "audit", "merge-authors", "--into", "Bob", "--from", "B.o.b", "--apply", "--json",
                       "--store", str(root))
    assert code == 0 and json.loads(out)["labels_changed"] == 1
    assert [lb.author for lb in db.labels_for(record)] == ["Bob", "Bob"]
