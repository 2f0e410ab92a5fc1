"""Pure builders for the Review page: record and label tables, label charts (agreement: :mod:`ui.team_view`).

>>> from kgcore.audit import Label
>>> lb = Label(1, "u", 7, "II", "record", "", "", "ann", "2026-11-23T10:00:00", "human", None, {})
>>> labels_frame([lb], {})[["label", "record", "type", "date"]].values.tolist()
[[1, 7, 'II', '2026-11-23']]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from kgcore.api import LABEL_TYPES, AuditRecord, Label
from ui.chart_view import slanted_axis

if TYPE_CHECKING:
    import altair as alt

#: The colour of each label type (an error stage) in every chart: the three failing stages warm, a correct answer
#: green, a gold answer the document lacks grey.
TYPE_COLORS = {"I": "#E45756", "II": "#F58518", "III": "#B279A2", "correct": "#54A24B",
               "gold-not-in-document": "#BAB0AC"}
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


def type_scale(types: Sequence[str]) -> alt.Scale:
    """The colour scale of label types (or error stages): each in its :data:`TYPE_COLORS` colour.

    >>> type_scale(["II", "correct"]).to_dict()
    {'domain': ['II', 'correct'], 'range': ['#F58518', '#54A24B']}
    >>> from kgcore.api import ERROR_STAGES
    >>> set(TYPE_COLORS) == set(LABEL_TYPES) == set(ERROR_STAGES)  # every type has its colour
    True
    """
    import altair as alt

    return alt.Scale(domain=list(types), range=[TYPE_COLORS[t] for t in types])


def label_charts(frame: pd.DataFrame) -> list[tuple[str, alt.Chart]]:
    """(key, chart) of the label charts: by type and source, then by method, collection and day, each a bar of
    label counts stacked by error type (one colour per type in every chart).

    >>> from kgcore.audit import Label
    >>> labels = [Label(i, "u", 7, t, "record", "", "", "ann", f"2026-11-2{i}T10:00", s, None, {})
    ...           for i, t, s in ((1, "III", "human"), (2, "I", "human"), (3, "I", "automatic"))]
    >>> charts = dict(label_charts(labels_frame(labels, {})))
    >>> list(charts)
    ['type', 'method', 'doc', 'time']
    >>> spec = charts["type"].to_dict()
    >>> spec["title"], spec["encoding"]["x"]["sort"], spec["encoding"]["color"]["field"]
    ('Labels by error type', ['I', 'III'], 'source')
    >>> next(iter(spec["datasets"].values()))
    [{'type': 'I', 'source': 'automatic', 'labels': 1}, {'type': 'I', 'source': 'human', 'labels': 1}, \
{'type': 'III', 'source': 'human', 'labels': 1}]
    >>> time = charts["time"].to_dict()["encoding"]
    >>> time["x"]["type"], time["color"]["scale"], time["y"]["stack"]
    ('ordinal', {'domain': ['I', 'III'], 'range': ['#E45756', '#B279A2']}, 'zero')
    """
    import altair as alt

    if frame.empty:
        return []
    order = [t for t in LABEL_TYPES if t in set(frame["type"])]
    by_type = frame.groupby(["type", "source"], as_index=False).size().rename(columns={"size": "labels"})
    slanted, counts_axis = slanted_axis(), alt.Axis(tickMinStep=1, format="d")
    labels = alt.Y("labels:Q", stack="zero", axis=counts_axis)
    charts = [("type", alt.Chart(by_type, title="Labels by error type").mark_bar().encode(
        x=alt.X("type:N", sort=order, axis=slanted), y=labels, color="source:N",
        tooltip=["type:N", "source:N", "labels:Q"]))]
    colour = alt.Color("type:N", sort=order, scale=type_scale(order))
    for key, column, title in LABEL_CHARTS:
        counts = frame.groupby([column, "type"], as_index=False).size().rename(columns={"size": "labels"})
        counts["stack"] = counts["type"].map(order.index)  # the first type at the bottom of each bar
        charts.append((key, alt.Chart(counts, title=title).mark_bar().encode(
            x=alt.X(f"{column}:{'O' if column == 'date' else 'N'}", axis=slanted), y=labels,
            color=colour, order=alt.Order("stack:Q"), tooltip=[f"{column}:N", "type:N", "labels:Q"])))
    return charts
