"""Pure builders for the Review page's error analysis: the stage table, its chart, and the records behind a cell.

>>> from kgcore.audit.analysis import StageRow
>>> rows = [StageRow(1, "Q1?", "bm25", "pr", ("pr",), "abc · srl/heuristic", "II", ("II",), ("Ada",), False, False,
...                  "A.", ()),
...         StageRow(2, "Q2?", "bm25", "pr", ("pr",), "abc · srl/heuristic", "correct", ("correct",), ("Ada", "Bob"),
...                  True, False, "B.", ("b",))]
>>> stage_table(rows, "method").to_dict("records")
[{'method': 'bm25', 'gold-not-in-document': 0, 'I': 0, 'II': 1, 'III': 0, 'correct': 1, 'records': 2}]
>>> drill_frame(rows)[["record", "stage", "reviewers", "adjudicated"]].values.tolist()
[[1, 'II', 'Ada', False], [2, 'correct', 'Ada, Bob', True]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from kgcore.api import ERROR_STAGES as STAGES
from kgcore.api import StageRow, distribution
from ui.chart_view import slanted_axis
from ui.review_view import type_scale

if TYPE_CHECKING:
    import altair as alt

#: How each grouping is named on the page.
GROUPING_LABELS = {"method": "Method", "collection": "Collection", "document": "Document",
                   "index": "Index version (manifest hash · parser/coref)"}


def stage_table(rows: Sequence[StageRow], by: str) -> pd.DataFrame:
    """One row per group value, one column per stage (record counts), and the total."""
    table = [{by: value, **{stage: counts.get(stage, 0) for stage in STAGES}, "records": sum(counts.values())}
             for value, counts in distribution(rows, by).items()]
    return pd.DataFrame(table, columns=[by, *STAGES, "records"])


def stage_chart(rows: Sequence[StageRow], by: str) -> alt.Chart | None:
    """Stacked bars of the share of records per stage in each group, the earliest stage at the bottom (None
    without rows); the tooltip gives the counts behind each share.

    >>> stage_chart([], "method") is None
    True
    >>> rows = [StageRow(1, "Q1?", "bm25", "pr", ("pr",), "abc", "II", ("II",), ("Ada",), False, False, "A.", ()),
    ...         StageRow(2, "Q2?", "bm25", "pr", ("pr",), "abc", "correct", ("correct",), ("Ada",), False, False,
    ...                  "B.", ())]
    >>> spec = stage_chart(rows, "method").to_dict()
    >>> spec["title"], spec["encoding"]["y"]["axis"]["format"], spec["encoding"]["color"]["sort"] == list(STAGES)
    ('Error stage by method', '.0%', True)
    >>> [(r["stage"], r["share"], r["count"]) for r in next(iter(spec["datasets"].values())) if r["count"]]
    [('II', 0.5, 1), ('correct', 0.5, 1)]
    """
    import altair as alt

    table = stage_table(rows, by)
    if table.empty:
        return None
    long = table.melt(id_vars=[by, "records"], value_vars=list(STAGES), var_name="stage", value_name="count")
    long["share"] = long["count"] / long["records"]
    long["stack"] = long["stage"].map(list(STAGES).index)
    return alt.Chart(long, title=f"Error stage by {GROUPING_LABELS[by].lower()}").mark_bar().encode(
        x=alt.X(f"{by}:N", axis=slanted_axis()),
        y=alt.Y("share:Q", stack="zero", title="share of records", axis=alt.Axis(format=".0%")),
        color=alt.Color("stage:N", sort=list(STAGES), scale=type_scale(STAGES)),
        order=alt.Order("stack:Q"),
        tooltip=[f"{by}:N", "stage:N", alt.Tooltip("share:Q", format=".0%"), "count:Q", "records:Q"])


def drill_frame(rows: Sequence[StageRow]) -> pd.DataFrame:
    """The records behind a cell: one row each, with what decided its stage."""
    return pd.DataFrame([{
        "record": r.record_id, "stage": r.stage, "question": r.question, "answer": r.answer, "gold": "; ".join(r.gold),
        "method": r.method, "collection": r.collection, "documents": ", ".join(r.documents), "index": r.index,
        "stages used": ", ".join(r.stages), "reviewers": ", ".join(r.reviewers), "adjudicated": r.adjudicated,
        "disputed": r.disputed,
    } for r in rows], columns=["record", "stage", "question", "answer", "gold", "method", "collection", "documents",
                               "index", "stages used", "reviewers", "adjudicated", "disputed"])
