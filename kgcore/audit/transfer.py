"""Export and import audit records with their labels: JSONL and CSV (Parquet: :mod:`kgcore.audit.exchange`).

The schema of every format, field by field, is documented in :mod:`kgcore.audit.exchange`.  Records and labels
are identified by their ``uid``: importing a file twice adds nothing twice.  Files written before adjudication
existed are read as reviews.  An import first reads and checks the whole file; the first problem stops it with an
:class:`~kgcore.core.errors.AuditError` naming the file, the line and the field, and the database is left
untouched.  Otherwise everything is written in one transaction (on SQLite or PostgreSQL alike).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from kgcore.audit import reviewers as registry
from kgcore.audit.adjudication import effective_labels
from kgcore.audit.db import AuditDB
from kgcore.audit.model import ROLES, AuditRecord, Label, check_artifact_in_record, check_label, record_to_result
from kgcore.audit.sql import Conn
from kgcore.core.errors import AuditError, KgcoreError

FORMAT = "groundedkg-audit/1"
RECORD_FIELDS = ("uid", "created_at", "doc_id", "manifest_hash", "question", "method", "answerer", "answer",
                 "gold", "settings", "models", "result")
LABEL_FIELDS = ("uid", "label_type", "artifact_kind", "artifact_id", "note", "author", "created_at", "source",
                "suggestion_uid", "details")
CSV_FIELDS = (
    "record_uid", "record_created_at", "doc_id", "manifest_hash", "question", "method", "answerer", "answer",
    "gold_json", "settings_json", "models_json", "result_json",
    "label_uid", "label_type", "artifact_kind", "artifact_id", "note", "author", "label_created_at", "source",
    "suggestion_uid", "details_json", "role", "adjudication_json", "final",
)
#: The CSV header before adjudication (still read).
CSV_FIELDS_V1 = CSV_FIELDS[:-3]
_ADJUDICATION_KEYS = ("uid", "adjudicator", "reason", "created_at")
#: (field, allowed types, may be empty) for every record and label field.
_RECORD_SPEC = {"uid": (str, False), "created_at": (str, False), "doc_id": (str, False), "manifest_hash": (str, True),
                "question": (str, False), "method": (str, False), "answerer": ((str, type(None)), True),
                "answer": ((str, type(None)), True), "gold": (list, True), "settings": (dict, True),
                "models": (dict, True), "result": (dict, False)}
_LABEL_SPEC = {"uid": (str, False), "label_type": (str, False), "artifact_kind": (str, False),
               "artifact_id": (str, True),
               "note": (str, True), "author": (str, False), "created_at": (str, False), "source": (str, False),
               "suggestion_uid": ((str, type(None)), True), "details": (dict, True)}


@dataclass
class ImportReport:
    """What an import added and what it found already present."""

    path: str
    records_added: int = 0
    records_existing: int = 0
    labels_added: int = 0
    labels_existing: int = 0
    record_ids: list[int] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.records_added} record(s) and {self.labels_added} label(s) imported; "
                f"{self.records_existing} record(s) and {self.labels_existing} label(s) were already present")


# -- export ----------------------------------------------------------------------
def _label_dict(label: Label, uid_of: dict[int, str], adjudications: dict[int, dict], final: set[int]) -> dict:
    return {"uid": label.uid, "label_type": label.label_type, "artifact_kind": label.artifact_kind,
            "artifact_id": label.artifact_id, "note": label.note, "author": label.author,
            "created_at": label.created_at, "source": label.source,
            "suggestion_uid": uid_of.get(label.suggestion_id) if label.suggestion_id else None,
            "details": label.details, "role": label.role,
            "adjudication": adjudications.get(label.adjudication_id) if label.adjudication_id else None,
            "final": label.id in final}


def _record_dict(record: AuditRecord) -> dict:
    return {"uid": record.uid, "created_at": record.created_at, "doc_id": record.doc_id,
            "manifest_hash": record.manifest_hash, "question": record.question, "method": record.method,
            "answerer": record.answerer, "answer": record.answer, "gold": record.gold,
            "settings": record.settings, "models": record.models, "result": record.payload}


def export_items(db: AuditDB, **filters) -> list[dict]:
    """The filtered records (see ``AuditDB.list_records``) as export dicts with their labels."""
    items = []
    for record in reversed(db.list_records(**filters)):  # oldest first: stable, diff-friendly files
        labels = db.labels_for(record.id)
        uid_of = {label.id: label.uid for label in labels}
        adjudications = {r["id"]: {k: r[k] for k in _ADJUDICATION_KEYS} for r in db.query(
            "SELECT * FROM adjudications WHERE record_id = ?", (record.id,))}
        kept, adjudicated = effective_labels(labels)
        final = {lb.id for lb in kept}
        items.append({"format": FORMAT, **_record_dict(record), "adjudicated": bool(adjudicated),
                      "labels": [_label_dict(lb, uid_of, adjudications, final) for lb in labels]})
    return items


def jsonl_text(db: AuditDB, **filters) -> str:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in export_items(db, **filters))


def table_rows(db: AuditDB, **filters) -> list[list[str]]:
    """The CSV (and Parquet) rows of the filtered records, in :data:`CSV_FIELDS` order, header excluded."""
    rows = []
    for item in export_items(db, **filters):
        record = [item["uid"], item["created_at"], item["doc_id"], item["manifest_hash"], item["question"],
                  item["method"], item["answerer"] or "", item["answer"] or "", json.dumps(item["gold"]),
                  json.dumps(item["settings"]), json.dumps(item["models"]),
                  json.dumps(item["result"], ensure_ascii=False)]
        for label in item["labels"] or [None]:
            if label is None:
                rows.append(record + [""] * (len(CSV_FIELDS) - len(record)))
                continue
            rows.append(record + [label["uid"], label["label_type"], label["artifact_kind"], label["artifact_id"],
                                  label["note"], label["author"], label["created_at"], label["source"],
                                  label["suggestion_uid"] or "", json.dumps(label["details"]), label["role"],
                                  json.dumps(label["adjudication"]) if label["adjudication"] else "",
                                  "yes" if label["final"] else "no"])
    return rows


def csv_text(db: AuditDB, **filters) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    writer.writerows(table_rows(db, **filters))
    return out.getvalue()


def export_jsonl(db: AuditDB, path, **filters) -> int:
    """Write the filtered records to ``path`` as JSONL; returns the number of records."""
    text = jsonl_text(db, **filters)
    Path(path).write_text(text, encoding="utf-8")
    return text.count("\n")


def export_csv(db: AuditDB, path, **filters) -> int:
    """Write the filtered records to ``path`` as CSV; returns the number of records."""
    Path(path).write_text(csv_text(db, **filters), encoding="utf-8")
    return len(db.list_records(**filters))


# -- checking ----------------------------------------------------------------------
def _fail(name: str, line: int, where: str, reason: str):
    raise AuditError(f"{name}: line {line}: {where}: {reason}")


def _check_fields(data, spec: dict, name: str, line: int, prefix: str) -> None:
    if not isinstance(data, dict):
        _fail(name, line, prefix.rstrip(".") or "line", f"expected a JSON object, got {type(data).__name__}")
    for key, (types, may_be_empty) in spec.items():
        if key not in data:
            _fail(name, line, f"{prefix}{key}", "missing field")
        value = data[key]
        if not isinstance(value, types):
            _fail(name, line, f"{prefix}{key}", f"expected {_type_names(types)}, got {type(value).__name__}")
        if not may_be_empty and not value:
            _fail(name, line, f"{prefix}{key}", "is empty")


def _type_names(types) -> str:
    types = types if isinstance(types, tuple) else (types,)
    return " or ".join({str: "text", list: "a list", dict: "an object", type(None): "null"}[t] for t in types)


def _check_item(item: dict, name: str, line: int) -> None:
    """A record dict (with ``labels``) as read from either format; raises AuditError on the first problem."""
    _check_fields(item, _RECORD_SPEC, name, line, "")
    if not all(isinstance(g, str) for g in item["gold"]):
        _fail(name, line, "gold", "expected a list of texts")
    try:
        record_to_result(item["result"])
    except (KeyError, TypeError, ValueError) as exc:
        _fail(name, line, "result", f"not a stored result ({type(exc).__name__}: {exc})")
    labels = item.get("labels", [])
    if not isinstance(labels, list):
        _fail(name, line, "labels", "expected a list")
    for i, label in enumerate(labels):
        at = label.get("_line", line) if isinstance(label, dict) else line
        _check_fields(label, _LABEL_SPEC, name, at, f"labels[{i}]." if at == line else "")
        try:
            check_label(label["label_type"], label["artifact_kind"], label["artifact_id"], label["source"])
            check_artifact_in_record(item["result"], label["artifact_kind"], label["artifact_id"])
        except KgcoreError as exc:
            _fail(name, at, f"labels[{i}]" if at == line else "label", str(exc))
        _check_role(label, name, at, f"labels[{i}]." if at == line else "")


def _check_role(label: dict, name: str, line: int, prefix: str) -> None:
    """``role`` and ``adjudication`` of a label (both optional: files from before adjudication lack them)."""
    role, adjudication = label.get("role", "review"), label.get("adjudication")
    if role not in ROLES:
        _fail(name, line, f"{prefix}role", f"unknown value {role!r} (choose one of {', '.join(ROLES)})")
    if role == "review" and adjudication is not None:
        _fail(name, line, f"{prefix}adjudication", "only a label with role 'adjudication' has one")
    if role == "adjudication" and not (isinstance(adjudication, dict) and all(
            isinstance(adjudication.get(k), str) and adjudication[k] for k in _ADJUDICATION_KEYS)):
        _fail(name, line, f"{prefix}adjudication", f"expected an object with {', '.join(_ADJUDICATION_KEYS)}")


def _check_suggestions(items: list[dict], known_uids: set[str], name: str) -> None:
    uids = known_uids | {label["uid"] for item in items for label in item["labels"]}
    for item in items:
        for label in item["labels"]:
            if label["suggestion_uid"] and label["suggestion_uid"] not in uids:
                _fail(name, label.get("_line", item["_line"]), "suggestion_uid",
                      f"{label['suggestion_uid']!r} names no label in this file or the database")


# -- reading -----------------------------------------------------------------------
def read_jsonl(path) -> list[dict]:
    """Checked record dicts from a JSONL export (AuditError on the first problem)."""
    name, items = Path(path).name, []
    for line_no, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AuditError(f"{name}: line {line_no}: not valid JSON at column {exc.colno} "
                             f"({exc.msg.removesuffix(' at')})") from None
        _check_fields(item, {"labels": (list, True)}, name, line_no, "")
        _check_item(item, name, line_no)
        items.append({**item, "_line": line_no})
    return items


def _json_cell(row: dict, column: str, types, name: str, line: int):
    try:
        value = json.loads(row[column])
    except json.JSONDecodeError as exc:
        _fail(name, line, column, f"not valid JSON ({exc.msg})")
    if not isinstance(value, types):
        _fail(name, line, column, f"expected {_type_names(types)}")
    return value


def _csv_record(row: dict, name: str, line: int) -> dict:
    return {"uid": row["record_uid"], "created_at": row["record_created_at"], "doc_id": row["doc_id"],
            "manifest_hash": row["manifest_hash"], "question": row["question"], "method": row["method"],
            "answerer": row["answerer"] or None, "answer": row["answer"] or None,
            "gold": _json_cell(row, "gold_json", list, name, line),
            "settings": _json_cell(row, "settings_json", dict, name, line),
            "models": _json_cell(row, "models_json", dict, name, line),
            "result": _json_cell(row, "result_json", dict, name, line), "labels": [], "_line": line}


def _csv_label(row: dict, name: str, line: int) -> dict:
    return {"uid": row["label_uid"], "label_type": row["label_type"], "artifact_kind": row["artifact_kind"],
            "artifact_id": row["artifact_id"], "note": row["note"], "author": row["author"],
            "created_at": row["label_created_at"], "source": row["source"],
            "suggestion_uid": row["suggestion_uid"] or None,
            "details": _json_cell(row, "details_json", dict, name, line) if row["details_json"] else {}, "_line": line,
            "role": row.get("role") or "review",
            "adjudication": _json_cell(row, "adjudication_json", dict, name, line) if row.get("adjudication_json")
            else None}


def _same_record(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("labels", "_line")}


def read_csv(path) -> list[dict]:
    """Checked record dicts from a CSV export (AuditError on the first problem)."""
    name = Path(path).name
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # a stored whole-book result is one large cell
    reader = csv.DictReader(io.StringIO(_read_text(path), newline=""))
    header = check_header(reader.fieldnames or [], name)

    def rows():
        line = reader.line_num + 1  # where the next row starts: a quoted cell may span several lines
        for row in reader:
            if None in row or any(v is None for v in row.values()):
                _fail(name, line, "row", f"has {len(header)} columns in the header but a different number here")
            yield line, row
            line = reader.line_num + 1

    return items_from_rows(rows(), name)


def check_header(header, name: str) -> list[str]:
    """The columns of a CSV or Parquet export: :data:`CSV_FIELDS`, or :data:`CSV_FIELDS_V1` (older files)."""
    header = list(header)
    if tuple(header) not in (CSV_FIELDS, CSV_FIELDS_V1):
        missing = [c for c in CSV_FIELDS if c not in header]
        extra = [c for c in header if c not in CSV_FIELDS]
        _fail(name, 1, "header", f"not an audit CSV export (missing columns: {', '.join(missing) or 'none'}; "
                                 f"unexpected columns: {', '.join(extra) or 'none'}; the order must be as exported)")
    return header


def items_from_rows(rows, name: str) -> list[dict]:
    """Checked record dicts from (line, row dict) pairs of a CSV or Parquet export: one row per label."""
    records: dict[str, dict] = {}
    for line, row in rows:
        parsed = _csv_record(row, name, line)
        record = records.setdefault(row["record_uid"], parsed)
        if record is not parsed and _same_record(record) != _same_record(parsed):
            _fail(name, line, "record columns", f"differ from line {record['_line']}, which has the same record_uid")
        if row["label_uid"]:
            record["labels"].append(_csv_label(row, name, line))
    for record in records.values():
        _check_item(record, name, record["_line"])
    return list(records.values())


def _read_text(path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise AuditError(f"{Path(path).name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise AuditError(f"{path}: cannot read ({exc.strerror})") from exc


# -- writing -----------------------------------------------------------------------
def import_items(db: AuditDB, items: list[dict], name: str) -> ImportReport:
    """Add checked record dicts to ``db`` in one transaction; existing uids are skipped."""
    known = db.label_uids()
    _check_suggestions(items, known, name)
    report = ImportReport(name)

    def work(conn: Conn) -> ImportReport:
        label_ids: dict[str, int] = {}
        links: list[tuple[int, str]] = []
        for item in items:
            record_id = _insert_record(conn, item, report)
            for label in item["labels"]:
                row = conn.execute("SELECT id FROM labels WHERE uid = ?", (label["uid"],)).fetchone()
                if row is not None:
                    report.labels_existing += 1
                    continue
                label_ids[label["uid"]] = _insert_label(conn, record_id, label)
                report.labels_added += 1
                if label["suggestion_uid"]:
                    links.append((label_ids[label["uid"]], label["suggestion_uid"]))
        for label_id, suggestion_uid in links:  # after all inserts: a suggestion may come later in the file
            conn.execute("UPDATE labels SET suggestion_id = (SELECT id FROM labels WHERE uid = ?) WHERE id = ?",
                         (suggestion_uid, label_id))
        for author, created_at in {(lb["author"], lb["created_at"]) for item in items for lb in item["labels"]
                                   if lb["source"] == "human"}:
            registry.register(conn, author, "labels", created_at, exact=False)
        return report

    return db.write(work)


def _insert_record(conn: Conn, item: dict, report: ImportReport) -> int:
    row = conn.execute("SELECT id FROM records WHERE uid = ?", (item["uid"],)).fetchone()
    if row is not None:
        report.records_existing += 1
        report.record_ids.append(row["id"])
        return row["id"]
    record_id = conn.insert(
        "INSERT INTO records (uid, created_at, doc_id, manifest_hash, question, method, answerer, answer, gold_json,"
        " settings_json, models_json, result_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (item["uid"], item["created_at"], item["doc_id"], item["manifest_hash"], item["question"], item["method"],
         item["answerer"], item["answer"], json.dumps(item["gold"]), json.dumps(item["settings"]),
         json.dumps(item["models"]), json.dumps(item["result"])),
    )
    report.records_added += 1
    report.record_ids.append(record_id)
    return record_id


def _adjudication_id(conn: Conn, record_id: int, adjudication: dict | None) -> int | None:
    """The id of a label's adjudication, inserted the first time its uid is seen."""
    if not adjudication:
        return None
    row = conn.execute("SELECT id FROM adjudications WHERE uid = ?", (adjudication["uid"],)).fetchone()
    if row is not None:
        return row["id"]
    return conn.insert(
        "INSERT INTO adjudications (uid, record_id, adjudicator, reason, created_at) VALUES (?,?,?,?,?)",
        (adjudication["uid"], record_id, adjudication["adjudicator"], adjudication["reason"],
         adjudication["created_at"]))


def _insert_label(conn: Conn, record_id: int, label: dict) -> int:
    return conn.insert(
        "INSERT INTO labels (uid, record_id, label_type, artifact_kind, artifact_id, note, author, created_at, source,"
        " details_json, role, adjudication_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (label["uid"], record_id, label["label_type"], label["artifact_kind"], label["artifact_id"], label["note"],
         label["author"], label["created_at"], label["source"], json.dumps(label["details"]),
         label.get("role", "review"), _adjudication_id(conn, record_id, label.get("adjudication"))),
    )


def import_jsonl(db: AuditDB, path) -> ImportReport:
    """Import a JSONL export into ``db`` (all or nothing; nothing is duplicated)."""
    return import_items(db, read_jsonl(path), Path(path).name)


def import_csv(db: AuditDB, path) -> ImportReport:
    """Import a CSV export into ``db`` (all or nothing; nothing is duplicated)."""
    return import_items(db, read_csv(path), Path(path).name)
