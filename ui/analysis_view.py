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

import pandas as pd
import plotly.express as px
from plotly.graph_objects import Figure

from kgcore.api import ERROR_STAGES as STAGES
from kgcore.api import StageRow, distribution

#: How each grouping is named on the page.
GROUPING_LABELS = {"method": "Method", "collection": "Collection", "document": "Document",
                   "index": "Index version (manifest hash · parser/coref)"}


def stage_table(rows: Sequence[StageRow], by: str) -> pd.DataFrame:
    """One row per group value, one column per stage (record counts), and the total."""
    table = [{by: value, **{stage: counts.get(stage, 0) for stage in STAGES}, "records": sum(counts.values())}
             for value, counts in distribution(rows, by).items()]
    return pd.DataFrame(table, columns=[by, *STAGES, "records"])


def stage_chart(rows: Sequence[StageRow], by: str) -> Figure | None:
    """Stacked bars of the share of records per stage in each group (None without rows).

    >>> stage_chart([], "method") is None
    True
    """
    table = stage_table(rows, by)
    if table.empty:
        return None
    long = table.melt(id_vars=[by, "records"], value_vars=list(STAGES), var_name="stage", value_name="count")
    long["share"] = long["count"] / long["records"]
    figure = px.bar(long, x=by, y="share", color="stage", category_orders={"stage": list(STAGES)},
                    hover_data=["count", "records"], title=f"Error stage by {GROUPING_LABELS[by].lower()}",
                    labels={"share": "share of records"})
    return figure.update_xaxes(type="category").update_yaxes(tickformat=".0%")


def drill_frame(rows: Sequence[StageRow]) -> pd.DataFrame:
    """The records behind a cell: one row each, with what decided its stage."""
    return pd.DataFrame([{
        "record": r.record_id, "stage": r.stage, "question": r.question, "answer": r.answer, "gold": "; ".join(r.gold),
        "method": r.method, "collection": r.collection, "documents": ", ".join(r.documents), "index": r.index,
        "stages used": ", ".join(r.stages), "reviewers": ", ".join(r.reviewers), "adjudicated": r.adjudicated,
        "disputed": r.disputed,
    } for r in rows], columns=["record", "stage", "question", "answer", "gold", "method", "collection", "documents",
                               "index", "stages used", "reviewers", "adjudicated", "disputed"])
