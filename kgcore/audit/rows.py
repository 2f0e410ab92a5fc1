"""Rows of the audit database as value types, and the one way a label row is written.

:func:`insert_label` is shared by :meth:`~kgcore.audit.db.AuditDB.add_label`,
review queues and adjudication, so every label is checked the same way and
lands in the transaction of the change it belongs to.
"""

from __future__ import annotations

import json
import uuid

from kgcore.audit import reviewers as registry
from kgcore.audit.model import AuditRecord, Label, check_artifact_in_record, check_label, upgrade_payload, utc_now
from kgcore.audit.sql import Conn, Row
from kgcore.core.errors import InputError, clean_field

AUTOMATIC_AUTHOR = "auto-diagnosis"
MAX_AUTHOR_CHARS = 100
MAX_NOTE_CHARS = 5000


def record_from_row(row: Row) -> AuditRecord:
    return AuditRecord(
        row["id"], row["uid"], row["created_at"], row["doc_id"], row["manifest_hash"], row["question"],
        row["method"], row["answerer"], row["answer"], json.loads(row["gold_json"]),
        json.loads(row["settings_json"]), json.loads(row["models_json"]),
        upgrade_payload(json.loads(row["result_json"]), row["doc_id"]) if "result_json" in row.keys() else {},
    )


def label_from_row(row: Row) -> Label:
    return Label(
        row["id"], row["uid"], row["record_id"], row["label_type"], row["artifact_kind"], row["artifact_id"],
        row["note"], row["author"], row["created_at"], row["source"], row["suggestion_id"],
        json.loads(row["details_json"] or "{}"),
        row["role"] if "role" in row.keys() else "review",
        row["adjudication_id"] if "adjudication_id" in row.keys() else None,
    )


def clean_note(note: str | None, field: str = "note") -> str:
    """A label note, stripped; longer than :data:`MAX_NOTE_CHARS` is refused naming ``field``.

    >>> clean_note("  why  ")
    'why'
    """
    text = (note or "").strip()
    if len(text) > MAX_NOTE_CHARS:
        raise InputError(field, f"is {len(text)} characters long; the limit is {MAX_NOTE_CHARS}")
    return text


def insert_label(conn: Conn, record_id: int, label_type: str, artifact_kind: str = "record",
                 artifact_id: str = "", note: str = "", author: str = "", source: str = "human",
                 suggestion_id: int | None = None, details: dict | None = None, role: str = "review",
                 adjudication_id: int | None = None) -> int:
    """Check and insert one label inside the caller's transaction; returns its id.

    A human label's author resolves to its registered reviewer (registered
    on first use); an automatic one is by :data:`AUTOMATIC_AUTHOR` unless named.
    """
    artifact_id = str(artifact_id or "").strip()
    check_label(label_type, artifact_kind, artifact_id, source)
    author = clean_field("author", author or (AUTOMATIC_AUTHOR if source == "automatic" else ""), MAX_AUTHOR_CHARS,
                         "choose who is reviewing before labelling")
    note = clean_note(note)
    # Only matches and answer sentences are checked against the stored result: parse it only then.
    column = "result_json" if artifact_kind in ("match", "answer_sentence") else "'{}'"
    row = conn.execute(f"SELECT {column} AS result FROM records WHERE id = ?", (record_id,)).fetchone()
    if row is None:
        raise InputError("record_id", f"there is no audit record {record_id} (was it removed with its document?)")
    check_artifact_in_record(json.loads(row["result"]), artifact_kind, artifact_id)
    if suggestion_id is not None:
        check_suggestion(conn, suggestion_id, record_id)
    who = registry.register(conn, author, "labels", utc_now(), exact=False) if source == "human" else author
    return conn.insert(
        "INSERT INTO labels (uid, record_id, label_type, artifact_kind, artifact_id, note, author, created_at,"
        " source, suggestion_id, details_json, role, adjudication_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (uuid.uuid4().hex, record_id, label_type, artifact_kind, artifact_id, note, who, utc_now(), source,
         suggestion_id, json.dumps(details or {}, default=str), role, adjudication_id),
    )


def check_suggestion(conn: Conn, suggestion_id: int, record_id: int) -> None:
    row = conn.execute("SELECT record_id, source FROM labels WHERE id = ?", (suggestion_id,)).fetchone()
    if row is None or row["source"] != "automatic" or row["record_id"] != record_id:
        raise InputError("suggestion_id", f"label {suggestion_id} is not an automatic suggestion on record {record_id}")

