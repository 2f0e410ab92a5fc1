"""Auditing: answered questions frozen as records, error labels by stage, suggestions, import/export, agreement.

:mod:`~kgcore.audit.db` is the database (versioned migrations in
:mod:`~kgcore.audit.schema`; a SQLite file in the store by default, or
PostgreSQL named by ``KGCORE_AUDIT_DB_URL``, both through SQLAlchemy Core:
:mod:`~kgcore.audit.backend`, :mod:`~kgcore.audit.sql`),
:mod:`~kgcore.audit.model` the record and label types and the rules they
obey, :mod:`~kgcore.audit.suggest` turns automatic diagnoses into
suggestions, :mod:`~kgcore.audit.transfer` exports and imports JSONL
and CSV.  Reviewing as a team: :mod:`~kgcore.audit.reviewers` and
:mod:`~kgcore.audit.names` (one identity per reviewer, merging spellings on
request with :mod:`~kgcore.audit.spellings`), :mod:`~kgcore.audit.queues` and
:mod:`~kgcore.audit.selection` (review queues with overlap),
:mod:`~kgcore.audit.agreement` (Krippendorff's alpha per error stage for any
number of reviewers, Cohen's kappa per pair, bootstrap intervals) and
:mod:`~kgcore.audit.adjudication` (final labels with a reason, label history),
:mod:`~kgcore.audit.analysis` (error-stage distribution per method, collection,
document and index version) and :mod:`~kgcore.audit.exchange` (the export
schema, Parquet, export and import by file extension).
"""

from kgcore.audit.agreement import STAGES, TARGETS, AgreementReport, Ratings, agreement_report, verdict
from kgcore.audit.bundles import bundle
from kgcore.audit.db import DB_NAME, AuditDB
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
from kgcore.audit.rows import AUTOMATIC_AUTHOR
from kgcore.audit.schema import MIGRATIONS, SCHEMA_VERSION
from kgcore.audit.suggest import send_failures_to_audit, store_suggestion
from kgcore.audit.transfer import ImportReport, export_csv, export_jsonl, import_csv, import_jsonl

__all__ = [
    "ALLOWED_ARTIFACTS", "AUTOMATIC_AUTHOR", "DB_NAME", "LABEL_TYPES", "MIGRATIONS", "SCHEMA_VERSION", "SOURCES",
    "STAGES", "TARGETS", "AgreementReport", "AuditDB", "AuditRecord", "ImportReport", "Label", "Ratings",
    "agreement_report", "bundle", "compare_runs",
    "export_csv", "export_jsonl", "import_csv", "import_jsonl", "record_to_result", "rerun",
    "send_failures_to_audit", "stored_options", "store_suggestion", "verdict",
]
