"""Auditing: answered questions frozen as records, error labels by stage, suggestions, import/export, agreement.

:mod:`~kgcore.audit.db` is the database (SQLite, WAL, versioned
migrations), :mod:`~kgcore.audit.model` the record and label types and the
rules they obey, :mod:`~kgcore.audit.suggest` turns automatic diagnoses
into suggestions, :mod:`~kgcore.audit.transfer` exports and imports JSONL
and CSV, and :mod:`~kgcore.audit.agreement` computes Cohen's kappa.
"""

from kgcore.audit.agreement import Agreement, cohen_kappa, kappa, verdict
from kgcore.audit.bundles import bundle
from kgcore.audit.db import AUTOMATIC_AUTHOR, DB_NAME, AuditDB
from kgcore.audit.model import (
    ALLOWED_ARTIFACTS,
    LABEL_TYPES,
    SOURCES,
    AuditRecord,
    Label,
    compare_runs,
    record_to_result,
    rerun,
    stored_options,
)
from kgcore.audit.schema import MIGRATIONS, SCHEMA_VERSION
from kgcore.audit.suggest import send_failures_to_audit, store_suggestion
from kgcore.audit.transfer import ImportReport, export_csv, export_jsonl, import_csv, import_jsonl

__all__ = [
    "ALLOWED_ARTIFACTS", "AUTOMATIC_AUTHOR", "DB_NAME", "LABEL_TYPES", "MIGRATIONS", "SCHEMA_VERSION", "SOURCES",
    "Agreement", "AuditDB", "AuditRecord", "ImportReport", "Label", "bundle", "cohen_kappa", "compare_runs",
    "export_csv", "export_jsonl", "import_csv", "import_jsonl", "kappa", "record_to_result", "rerun",
    "send_failures_to_audit", "stored_options", "store_suggestion", "verdict",
]
