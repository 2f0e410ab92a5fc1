"""The audit database on PostgreSQL beside SQLite: locations and their passwords, refusing bad
URLs, unreachable servers and foreign or newer databases, the versioned migrations on PostgreSQL, all-or-nothing
writes on both, and moving a SQLite store's audit data to PostgreSQL by export and import."""

from __future__ import annotations

import doctest
import importlib
import socket
from collections import Counter

import pytest
from auditkit import DOC, add_record, add_records

from kgcore.audit import SCHEMA_VERSION, AuditDB, export_jsonl, import_jsonl
from kgcore.audit import backend as audit_backend
from kgcore.audit.adjudication import adjudicate, label_history
from kgcore.audit.queues import create_queue, progress, submit
from kgcore.audit.schema import apply_migrations
from kgcore.audit.spellings import merge_authors
from kgcore.audit.sql import Conn
from kgcore.core.errors import AuditError, InputError
from kgcore.core.settings import Settings

SETTING = audit_backend.SETTING


@pytest.mark.parametrize("module", ["kgcore.audit.backend", "kgcore.audit.sql"])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("url, reason", [
    ("mysql://kg:s3cret@db/audit", "mysql://kg:***@db/audit is not a supported audit database"),
    ("postgresql+psycopg2://kg:s3cret@db/audit", "is not a supported audit database"),
    ("postgresql://kg:s3cret@db", "names no database"),
    ("postgresql://kg:s3cret@db:notaport/audit", "is not a database URL"),
    ("sqlite://", "is not a supported audit database"),
    ("   ", "is empty"),
])
def test_bad_urls_name_the_setting_and_never_the_password(url, reason):
    with pytest.raises(InputError) as err:
        AuditDB.for_store("/nonexistent", Settings(audit_db_url=url))
    assert err.value.where == SETTING and reason in err.value.reason and "s3cret" not in str(err.value)


def test_the_store_file_is_the_default_and_the_setting_replaces_it(tmp_path):
    db = AuditDB.for_store(tmp_path, Settings())
    assert (db.dialect, db.path, db.where) == ("sqlite", tmp_path / "audit.sqlite", str(tmp_path / "audit.sqlite"))
    file_url = AuditDB.for_store(tmp_path / "x", Settings(audit_db_url=f"sqlite:///{tmp_path}/shared.sqlite"))
    assert file_url.path == tmp_path / "shared.sqlite" and not (tmp_path / "x" / "audit.sqlite").exists()


def test_an_unreachable_server_is_named_with_the_password_masked():
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(AuditError) as err:
        AuditDB(f"postgresql://kg:s3cret@127.0.0.1:{port}/audit", timeout_s=2, setting=SETTING)
    message = str(err.value)
    assert message.startswith(f"postgresql+psycopg://kg:***@127.0.0.1:{port}/audit: cannot connect to the audit ")
    assert SETTING in message and "s3cret" not in message


def test_a_wrong_password_is_refused_without_showing_either(postgres):
    url = postgres.create_database().replace(postgres.password, "wrong-pass")
    with pytest.raises(AuditError, match="password authentication failed") as err:
        AuditDB(url, setting=SETTING)
    assert "wrong-pass" not in str(err.value) and postgres.password not in str(err.value)
    db = AuditDB(postgres.create_database())
    assert postgres.password not in repr(db) and "***" in repr(db) and db.schema_version == SCHEMA_VERSION


def _partial_database(postgres, version: int) -> str:
    """A PostgreSQL database at schema ``version`` with the rows an older kgcore would have written."""
    url = postgres.create_database()
    engine = audit_backend.create_engine(audit_backend.locate(url), 5)
    with engine.connect() as raw:
        conn = Conn(raw, "postgresql")
        apply_migrations(conn, target=version)
        conn.execute("INSERT INTO records (uid, created_at, doc_id, manifest_hash, question, method, answerer, answer,"
                     " settings_json, models_json, result_json) VALUES ('uid-1', '2024-05-01T10:00:00+00:00', ?, 'h',"
                     " 'Q?', 'bm25', 'extractive', 'A', '{}', '{}', ?)",
                     (DOC, '{"question": "Q?", "sentences": [], "matches": [], "answer": "A"}'))
        for i, author in enumerate(["Ada", "Ada", "ada", "Adà"]):
            conn.execute("INSERT INTO labels (uid, record_id, label_type, artifact_kind, author, created_at) VALUES "
                         "(?, 1, 'II', 'record', ?, ?)", (f"l{i}", author, f"2024-05-01T10:0{i}:00+00:00"))
        raw.commit()
    engine.dispose()
    return url


@pytest.mark.parametrize("version", [1, 2])
def test_older_postgres_schemas_are_migrated_and_keep_their_labels(postgres, version):
    db = AuditDB(_partial_database(postgres, version))
    assert db.schema_version == SCHEMA_VERSION
    assert [(lb.uid, lb.author, lb.source, lb.role) for lb in db.labels_for(1)] == [
        ("l0", "Ada", "human", "review"), ("l1", "Ada", "human", "review"), ("l2", "ada", "human", "review"),
        ("l3", "Adà", "human", "review")]
    assert [(r.name, r.origin, r.labels) for r in db.reviewers()] == [("Ada", "labels", 2), ("Adà", "labels", 1)]
    assert merge_authors(db, "Ada", ["ada", "Adà"], merged_by="Ada").labels_changed == 2
    db.delete_label(db.labels_for(1)[0].id)  # the PostgreSQL triggers keep the history
    assert sorted((h["label_uid"], h["event"], h.get("new_author")) for h in label_history(db, 1)) == [
        ("l0", "deleted", None), ("l2", "author changed", "Ada"), ("l3", "author changed", "Ada")]
    assert label_history(db, 1)[-1]["at"].endswith("+00:00")


def test_newer_or_foreign_postgres_databases_are_refused_and_left_alone(postgres):
    newer = postgres.create_database()
    AuditDB(newer).close()
    postgres.sql("UPDATE schema_version SET version = 99", newer.rsplit("/", 1)[1])
    with pytest.raises(AuditError, match="schema version 99 is newer"):
        AuditDB(newer)
    foreign = postgres.create_database()
    name = foreign.rsplit("/", 1)[1]
    postgres.sql("CREATE TABLE records (id INTEGER, what TEXT)", name)
    postgres.sql("INSERT INTO records VALUES (1, 'theirs')", name)
    with pytest.raises(AuditError, match="not an audit database") as err:
        AuditDB(foreign)
    assert str(err.value).startswith("postgresql+psycopg://kgcore:***@")
    assert postgres.sql("SELECT * FROM records", name) == [(1, "theirs")]
    assert postgres.sql("SELECT to_regclass('labels') IS NULL", name) == [(True,)]


def test_a_failed_write_keeps_nothing(audit_location):
    db = AuditDB(audit_location)
    record = add_record(db, 1)

    def work(conn):
        conn.execute("INSERT INTO reviewers (name, key, origin, created_at) VALUES ('Eve', 'eve', 'local', 'now')")
        conn.execute("UPDATE records SET gold_json = '[\"changed\"]' WHERE id = ?", (record,))
        raise InputError("work", "stopped halfway")

    with pytest.raises(InputError, match="stopped halfway"):
        db.write(work)
    assert db.reviewers() == [] and db.get_record(record).gold == ["gold 1"]
    with pytest.raises(AuditError, match=r"UNIQUE|unique"):
        db.write(lambda conn: [conn.execute("INSERT INTO reviewers (name, key, origin, created_at) VALUES "
                                            "(?, ?, 'local', 'now')", (n, "k")) for n in ("A", "B")])
    assert db.reviewers() == []


def test_ids_numbers_and_counts_read_the_same_on_both(audit_location):
    db = AuditDB(audit_location)
    for name in ("Ada", "Bob"):
        db.add_reviewer(name)
    ids = add_records(db, 4)
    assert ids == [1, 2, 3, 4] and [r.id for r in db.list_records()] == [4, 3, 2, 1]
    queue = create_queue(db, "q", ids, ["Ada", "Bob"], overlap=0.5)
    assert (queue.overlap, queue.records, type(queue.overlap)) == (0.5, 4, float)
    submit(db, "q", ids[0], next(a for a in ("Ada", "Bob") if _assigned(db, ids[0], a)), ["II"])
    state = progress(db, "q")
    assert (state.done, state.assignments, state.overlapping) == (1, 6, 2)
    assert db.query("SELECT COUNT(*) AS n FROM labels")[0]["n"] == 1


def _assigned(db: AuditDB, record: int, reviewer: str) -> bool:
    return bool(db.query("SELECT 1 FROM assignments WHERE record_id = ? AND reviewer = ?", (record, reviewer)))


def test_a_sqlite_audit_store_moves_to_postgres_by_export_and_import(tmp_path, postgres):
    old = AuditDB(tmp_path / "audit.sqlite")
    for name in ("Ada", "Bob", "Cy"):
        old.add_reviewer(name)
    first, second = add_records(old, 2)
    old.add_label(first, "II", author="Ada")
    old.add_label(first, "III", author="Bob")
    old.add_label(second, "correct", author="Ada")
    adjudicate(old, first, "Cy", ["II"], "never retrieved")
    export_jsonl(old, tmp_path / "audit.jsonl")
    new = AuditDB.for_store(tmp_path, Settings(audit_db_url=postgres.create_database()))
    report = import_jsonl(new, tmp_path / "audit.jsonl")
    assert (report.records_added, report.labels_added) == (2, 4)
    assert import_jsonl(new, tmp_path / "audit.jsonl").labels_added == 0  # nothing twice
    assert Counter((lb.label_type, lb.author, lb.role) for lb in new.list_labels()) == Counter(
        (lb.label_type, lb.author, lb.role) for lb in old.list_labels())
    assert sorted(r.name for r in new.reviewers()) == ["Ada", "Bob", "Cy"]


def test_postgresql_without_its_driver_says_what_to_install(monkeypatch):
    """psycopg is an optional install (requirements-postgres.txt): its absence is a clear error, not a traceback."""
    import sys

    for name in [m for m in sys.modules if m == "psycopg" or m.startswith("psycopg.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what `import psycopg` sees when the package is absent
    location = audit_backend.locate("postgresql+psycopg://kg:secret@localhost:5432/audit")
    with pytest.raises(InputError, match=r"KGCORE_AUDIT_DB_URL: PostgreSQL needs the psycopg driver .*"
                                         r"pip install -r requirements-postgres\.txt"):
        audit_backend.create_engine(location, 1.0)
