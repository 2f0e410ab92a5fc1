"""Auditing: the audit database, labels, review queues, agreement, adjudication, analysis, import/export.
"""

from __future__ import annotations

from kgcore.audit import ALLOWED_ARTIFACTS, DB_NAME, LABEL_TYPES, TARGETS
from kgcore.audit.adjudication import (
    Disagreement,
    adjudicate,
    adjudications_for,
    disagreements,
    effective_labels,
    label_history,
)
from kgcore.audit.agreement import (
    DEFAULT_SAMPLES,
    AgreementReport,
    PairAgreement,
    agreement_report,
    categories,
)
from kgcore.audit.agreement import (
    STAGES as ERROR_STAGES,
)
from kgcore.audit.analysis import GROUPINGS, StageRow, distribution, drill, error_analysis
from kgcore.audit.db import AuditDB
from kgcore.audit.exchange import export_file, import_file, parquet_bytes
from kgcore.audit.model import AuditRecord, Label, compare_runs, record_to_result, rerun
from kgcore.audit.names import MAX_REVIEWER_CHARS, SpellingGroup, check_merge
from kgcore.audit.queues import (
    Queue,
    QueueProgress,
    assignments,
    create_queue,
    list_queues,
    next_assignment,
    progress,
    queue_record_ids,
    skip,
    submit,
)
from kgcore.audit.selection import (
    Selection,
    parse_run_outcomes,
    read_run_outcomes,
    records_for_questions,
    records_for_run,
    select_records,
)
from kgcore.audit.spellings import label_counts, merge_authors, merge_log, suggest_merges
from kgcore.audit.suggest import send_failures_to_audit, store_suggestion
from kgcore.audit.transfer import csv_text, jsonl_text

__all__ = ["ALLOWED_ARTIFACTS", "AgreementReport", "AuditDB", "AuditRecord", "DB_NAME", "DEFAULT_SAMPLES",
    "Disagreement", "ERROR_STAGES", "GROUPINGS", "LABEL_TYPES", "Label", "MAX_REVIEWER_CHARS", "PairAgreement",
    "Queue", "QueueProgress", "Selection", "SpellingGroup", "StageRow", "TARGETS", "adjudicate", "adjudications_for",
    "agreement_report", "assignments", "categories", "check_merge", "compare_runs", "create_queue", "csv_text",
    "disagreements", "distribution", "drill", "effective_labels", "error_analysis", "export_file", "import_file",
    "jsonl_text", "label_counts", "label_history", "list_queues", "merge_authors", "merge_log", "next_assignment",
    "parquet_bytes", "parse_run_outcomes", "progress", "queue_record_ids", "read_run_outcomes", "record_to_result",
    "records_for_questions", "records_for_run", "rerun", "select_records", "send_failures_to_audit", "skip",
    "store_suggestion", "submit", "suggest_merges"]
