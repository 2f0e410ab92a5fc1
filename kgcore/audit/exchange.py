"""The audit export schema (format ``groundedkg-audit/1``), Parquet, and export/import chosen by file extension.

Three files carry the same content; :func:`export_file` and :func:`import_file`
choose by extension (``.jsonl``, ``.csv``, ``.parquet``) and
``python -m kgcore audit export --out F`` / ``audit import F`` call them.
Importing an export into a fresh database gives back the same records
(every field, the stored result included), labels (uid, author, time,
role, suggestion link) and adjudications (uid, adjudicator, reason, time).

**JSONL**: one record per line, its labels nested.

=================  ==========================  ==================================================
field              type                        meaning
=================  ==========================  ==================================================
``format``         text                        ``groundedkg-audit/1`` (optional on import)
``uid``            text                        content hash of the record (its identity)
``created_at``     text                        ISO 8601 UTC time it was stored
``doc_id``         text                        the collection asked
``manifest_hash``  text                        content hash of the index that answered
``question``       text                        the question
``method``         text                        retrieval method (``bm25``, ``graph``, ...)
``answerer``       text or null                answer generator (``extractive``, ``qa-kg``, ...)
``answer``         text or null                the answer text
``gold``           list of text                gold answers
``settings``       object                      retrieval options; ``index_options``: parser, coref...
``models``         object                      model names and versions (index and answer side)
``result``         object                      the artefacts: query graph, matches, context
                                               sentences with texts and scores, citations,
                                               answer (``answer_full``), notes, timings
``adjudicated``    bool                        an adjudication decides this record (export only)
``labels``         list of label objects       every label, oldest first (below)
=================  ==========================  ==================================================

A label: ``uid``, ``label_type`` (``gold-not-in-document``, ``I``, ``II``,
``III``, ``correct``), ``artifact_kind`` (``record``, ``node``, ``edge``,
``sentence``, ``match``, ``answer_sentence``), ``artifact_id``, ``note``,
``author``, ``created_at``, ``source`` (``human`` or ``automatic``),
``suggestion_uid`` (the automatic label it accepts or overrides, or null),
``details`` (object), ``role`` (``review`` or ``adjudication``; optional,
default ``review``), ``adjudication`` (for an adjudication label: an object
with ``uid``, ``adjudicator``, ``reason``, ``created_at``; else null) and
``final`` (export only: error statistics count it).

**CSV and Parquet**: one row per label, the record's columns repeated (a
record without labels has one row with empty label columns); every cell is
text, structured fields as JSON text.  Columns, in this order
(:data:`~kgcore.audit.transfer.CSV_FIELDS`): ``record_uid``,
``record_created_at``, ``doc_id``, ``manifest_hash``, ``question``,
``method``, ``answerer``, ``answer``, ``gold_json``, ``settings_json``,
``models_json``, ``result_json``, ``label_uid``, ``label_type``,
``artifact_kind``, ``artifact_id``, ``note``, ``author``,
``label_created_at``, ``source``, ``suggestion_uid``, ``details_json``,
``role``, ``adjudication_json``, ``final`` (``yes``/``no``).  CSV files from
before adjudication, without the last three columns, still import.  A
Parquet file is the same table with string columns (null read as empty)
and ``format`` in its schema metadata; row numbers in its error messages
count the header as line 1, as in CSV.

>>> format_of("audit.PARQUET"), format_of("a.jsonl")
('parquet', 'jsonl')
>>> format_of("audit.xlsx")
Traceback (most recent call last):
...
kgcore.core.errors.InputError: path: 'audit.xlsx' is not an audit export (use .jsonl, .csv or .parquet)
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from kgcore.audit.db import AuditDB
from kgcore.audit.transfer import (
    CSV_FIELDS,
    FORMAT,
    ImportReport,
    check_header,
    export_csv,
    export_jsonl,
    import_csv,
    import_items,
    import_jsonl,
    items_from_rows,
    table_rows,
)
from kgcore.core.errors import AuditError, InputError

FORMATS = ("jsonl", "csv", "parquet")


def format_of(path) -> str:
    """The export format a file name asks for (by its extension)."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise InputError("path", f"{str(path)!r} is not an audit export (use .jsonl, .csv or .parquet)")
    return suffix


def parquet_table(db: AuditDB, **filters) -> pa.Table:
    """The filtered records as an Arrow table with the CSV columns (all strings)."""
    rows = table_rows(db, **filters)
    columns = {name: pa.array([row[i] for row in rows], pa.string()) for i, name in enumerate(CSV_FIELDS)}
    return pa.table(columns).replace_schema_metadata({"format": FORMAT})


def parquet_bytes(db: AuditDB, **filters) -> bytes:
    """The Parquet file of the filtered records, in memory (the Review page's download)."""
    sink = pa.BufferOutputStream()
    pq.write_table(parquet_table(db, **filters), sink)
    return sink.getvalue().to_pybytes()


def export_parquet(db: AuditDB, path, **filters) -> int:
    """Write the filtered records to ``path`` as Parquet; returns the number of records."""
    table = parquet_table(db, **filters)
    pq.write_table(table, str(path))
    return len(set(table.column("record_uid").to_pylist()))


def read_parquet(path) -> list[dict]:
    """Checked record dicts from a Parquet export (AuditError on the first problem)."""
    name = Path(path).name
    try:
        table = pq.read_table(str(path))
    except (OSError, pa.ArrowException) as exc:
        raise AuditError(f"{name}: not a readable Parquet file ({exc})") from exc
    header = check_header(table.column_names, name)
    bad = [f.name for f in table.schema if not (pa.types.is_string(f.type) or pa.types.is_null(f.type))]
    if bad:
        raise AuditError(f"{name}: line 1: {bad[0]}: expected a text column, got {table.schema.field(bad[0]).type}")
    rows = ((number, {k: "" if v is None else v for k, v in row.items()})
            for number, row in enumerate(table.select(header).to_pylist(), start=2))
    return items_from_rows(rows, name)


def import_parquet(db: AuditDB, path) -> ImportReport:
    """Import a Parquet export into ``db`` (all or nothing; nothing is duplicated)."""
    return import_items(db, read_parquet(path), Path(path).name)


def export_file(db: AuditDB, path, **filters) -> int:
    """Export the filtered records in the format of ``path``'s extension; returns the number of records."""
    writer = {"jsonl": export_jsonl, "csv": export_csv, "parquet": export_parquet}[format_of(path)]
    return writer(db, path, **filters)


def import_file(db: AuditDB, path) -> ImportReport:
    """Import an export in the format of ``path``'s extension (all or nothing)."""
    reader = {"jsonl": import_jsonl, "csv": import_csv, "parquet": import_parquet}[format_of(path)]
    return reader(db, path)
