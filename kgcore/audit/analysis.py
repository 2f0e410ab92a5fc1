"""Error analysis: which stage failed, per method, collection, document and index version, record by record.

Every labelled record becomes one :class:`StageRow`: its counted labels
(:func:`~kgcore.audit.adjudication.effective_labels`: the final labels of
an adjudicated record, every label elsewhere) of one ``source`` (``human``
by default, ``automatic`` for the diagnoses' suggestions), its **stage**
(:func:`~kgcore.audit.agreement.verdict` of those labels: the earliest
failing stage, else ``correct``) and whether its reviewers still disagree
(``disputed``: two reviewers with different verdicts and no adjudication).

The groupings (:data:`GROUPINGS`) are read from what the record stores:

* ``method`` and ``collection`` (``doc_id``) are columns of the record;
* ``document``: the documents the answer cites (the part of a sentence id
  before ``/``), else those of the context sentences; a record that cites
  two documents counts under both;
* ``index``: the index that answered, the record's ``manifest_hash`` (the
  content hash of the collection manifest) with the parser and coreference
  options stored in ``settings["index_options"]`` (or ``models``), e.g.
  ``3f9a0c1d2e · srl/heuristic``.

>>> payload = {"sentences": [{"id": "pr/text_0-1"}, {"id": "bj/text_0-2"}],
...            "citations": [{"sentence_ids": ["pr/text_0-1"]}]}
>>> record_documents(payload), record_documents({"sentences": [{"id": "bj/text_0-2"}], "citations": []})
(('pr',), ('bj',))
>>> index_version("3f9a0c1d2e4b5a", {"index_options": {"parser": "srl", "coref": "heuristic"}})
'3f9a0c1d2e · srl/heuristic'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kgcore.audit.adjudication import effective_labels
from kgcore.audit.agreement import STAGES, verdict
from kgcore.audit.db import AuditDB
from kgcore.audit.model import SOURCES, AuditRecord, Label
from kgcore.core.errors import InputError

#: What the distribution can be grouped by (a :class:`StageRow` attribute each; ``document`` is a tuple).
GROUPINGS = ("method", "collection", "document", "index")


@dataclass(frozen=True)
class StageRow:
    """One labelled record in the error analysis."""

    record_id: int
    question: str
    method: str
    collection: str
    documents: tuple[str, ...]
    index: str
    stage: str
    stages: tuple[str, ...]
    reviewers: tuple[str, ...]
    adjudicated: bool
    disputed: bool
    answer: str
    gold: tuple[str, ...]

    def values(self, by: str) -> tuple[str, ...]:
        """The group(s) this record counts in under grouping ``by``."""
        check_grouping(by)
        return self.documents if by == "document" else (getattr(self, by),)


def check_grouping(by: str) -> None:
    """Refuse a grouping that is not one of :data:`GROUPINGS`.

    >>> check_grouping("answerer")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: by: unknown grouping 'answerer' (choose one of method, collection, document, index)
    """
    if by not in GROUPINGS:
        raise InputError("by", f"unknown grouping {by!r} (choose one of {', '.join(GROUPINGS)})")


def record_documents(payload: dict) -> tuple[str, ...]:
    """The documents a record's answer cites, else those of its context sentences (in order, once each)."""
    cited = [i for c in payload.get("citations", []) for i in c.get("sentence_ids", [])]
    ids = cited or [s.get("id", "") for s in payload.get("sentences", [])]
    return tuple(dict.fromkeys(str(i).split("/", 1)[0] for i in ids if "/" in str(i)))


def index_version(manifest_hash: str, settings: dict, models: dict | None = None) -> str:
    """The index that answered: the manifest hash (10 characters) and its parser/coref options (from the
    settings' ``index_options``, else from the record's ``models``, which every record since 0.2 carries)."""
    options = (settings or {}).get("index_options") or models or {}
    parts = "/".join(str(options[k]) for k in ("parser", "coref") if options.get(k))
    return f"{manifest_hash[:10]} · {parts}" if parts else manifest_hash[:10]


def stage_rows(records: Iterable[AuditRecord], labels: Iterable[Label], source: str = "human") -> list[StageRow]:
    """One :class:`StageRow` per record with counted labels of ``source`` (records need their payload)."""
    if source not in SOURCES:
        raise InputError("source", f"unknown value {source!r} (choose one of {', '.join(SOURCES)})")
    kept, adjudicated = effective_labels(lb for lb in labels if lb.source == source)
    by_record: dict[int, list[Label]] = {}
    for lb in kept:
        by_record.setdefault(lb.record_id, []).append(lb)
    rows = []
    for record in records:
        mine = by_record.get(record.id)
        if not mine:
            continue
        per_reviewer: dict[str, set[str]] = {}
        for lb in mine:
            per_reviewer.setdefault(lb.author, set()).add(lb.label_type)
        verdicts = {verdict(types) for types in per_reviewer.values()}
        rows.append(StageRow(
            record.id, record.question, record.method, record.doc_id, record_documents(record.payload) or ("?",),
            index_version(record.manifest_hash, record.settings, record.models),
            verdict(lb.label_type for lb in mine) or "correct",
            tuple(s for s in STAGES if any(lb.label_type == s for lb in mine)), tuple(sorted(per_reviewer)),
            record.id in adjudicated, record.id not in adjudicated and len(verdicts) > 1, record.answer or "",
            tuple(record.gold)))
    return rows


def distribution(rows: Sequence[StageRow], by: str) -> dict[str, Counter]:
    """Group value -> Counter of stages (records; a record citing two documents counts under both).

    >>> row = lambda i, m, s: StageRow(i, "q", m, "c", ("d",), "h", s, (s,), ("ann",), False, False, "", ())
    >>> {k: dict(v) for k, v in distribution([row(1, "bm25", "II"), row(2, "bm25", "correct"),
    ...                                       row(3, "graph", "II")], "method").items()}
    {'bm25': {'II': 1, 'correct': 1}, 'graph': {'II': 1}}
    """
    check_grouping(by)
    found: dict[str, Counter] = {}
    for row in rows:
        for value in row.values(by):
            found.setdefault(value, Counter())[row.stage] += 1
    return dict(sorted(found.items()))


def drill(rows: Sequence[StageRow], by: str, value: str | None = None, stage: str | None = None) -> list[StageRow]:
    """The rows behind one cell of :func:`distribution` (``None``: any group value / any stage)."""
    check_grouping(by)
    if stage is not None and stage not in STAGES:
        raise InputError("stage", f"unknown stage {stage!r} (choose one of {', '.join(STAGES)})")
    return [r for r in rows if (value is None or value in r.values(by)) and (stage is None or r.stage == stage)]


def error_analysis(db: AuditDB, source: str = "human", **filters) -> list[StageRow]:
    """:func:`stage_rows` of the records passing ``AuditDB.list_records`` filters."""
    records = db.list_records(**filters)
    ids = {r.id for r in records}
    record_filters = {k: v for k, v in filters.items() if k in ("doc_ids", "methods")}
    labels = [lb for lb in db.list_labels(**record_filters) if lb.record_id in ids]
    return stage_rows(records, labels, source)
