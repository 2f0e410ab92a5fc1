"""Pure builders for the Review page: record and label tables, label charts (agreement: :mod:`ui.team_view`).

>>> from kgcore.audit import Label
>>> lb = Label(1, "u", 7, "II", "record", "", "", "ann", "2026-11-23T10:00:00", "human", None, {})
>>> labels_frame([lb], {})[["label", "record", "type", "date"]].values.tolist()
[[1, 7, 'II', '2026-11-23']]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.express as px
from plotly.graph_objects import Figure

from kgcore.api import LABEL_TYPES, AuditRecord, Label

#: (chart key, grouping column, title) of the label charts, after the overall count by type.
LABEL_CHARTS = (("method", "method", "By method"), ("doc", "collection", "By collection"),
                ("time", "date", "Over time (per day)"))


def records_frame(records: Sequence[AuditRecord], labels: Sequence[Label]) -> pd.DataFrame:
    """One row per record: question, answer, gold and a summary of its labels."""
    by_record: dict[int, list[Label]] = {}
    for lb in labels:
        by_record.setdefault(lb.record_id, []).append(lb)
    return pd.DataFrame([{
        "id": r.id, "created (UTC)": r.created_at, "collection": r.doc_id, "method": r.method, "question": r.question,
        "answer": r.answer or "", "gold": "; ".join(r.gold),
        "labels": len(by_record.get(r.id, [])),
        "types": ", ".join(sorted({lb.label_type for lb in by_record.get(r.id, [])})),
        "authors": ", ".join(sorted({lb.author for lb in by_record.get(r.id, []) if lb.source == "human"})),
        "adjudicated": any(lb.role == "adjudication" for lb in by_record.get(r.id, [])),
    } for r in records])


def labels_frame(labels: Sequence[Label], records_by_id: Mapping[int, AuditRecord]) -> pd.DataFrame:
    """One row per label, with its record's collection and method."""
    rows = []
    for lb in labels:
        record = records_by_id.get(lb.record_id)
        rows.append({"label": lb.id, "record": lb.record_id, "type": lb.label_type,
                     "collection": record.doc_id if record else "", "method": record.method if record else "",
                     "artifact": lb.artifact_kind, "artifact id": lb.artifact_id, "author": lb.author,
                     "source": lb.source, "role": lb.role, "date": lb.created_at[:10], "note": lb.note})
    return pd.DataFrame(rows)


def label_charts(frame: pd.DataFrame) -> list[tuple[str, Figure]]:
    """(key, figure) of the label charts: by type and source, then by method, collection and day, coloured by type."""
    if frame.empty:
        return []
    order = {"type": [t for t in LABEL_TYPES if t in set(frame["type"])]}
    by_type = frame.groupby(["type", "source"], as_index=False).size()
    charts = [("type", px.bar(by_type, x="type", y="size", color="source", category_orders=order,
                              title="Labels by error type", labels={"size": "labels"}))]
    for key, column, title in LABEL_CHARTS:
        counts = frame.groupby([column, "type"], as_index=False).size()
        figure = px.bar(counts, x=column, y="size", color="type", category_orders=order, title=title,
                        labels={"size": "labels"})
        charts.append((key, figure.update_xaxes(type="category") if column == "date" else figure))
    return charts
