"""The Evaluate page's pure helpers (:mod:`ui.evaluate_view`): upload validation, bundled sets, tables and figures.

AppTest cannot upload files, so the upload path's validation is tested here on
:func:`ui.evaluate_view.read_upload`; the page itself is in tests/app/test_evaluate_page.py.
"""

from __future__ import annotations

import pytest

from kgcore.core.errors import InputError
from kgcore.evaluate import EvalRecord
from paths import DEV_QA, PETER_ID
from ui import evaluate_view as view


@pytest.mark.parametrize(("data", "reason"), [
    (b"question,answer\nWho?,Peter\n", "qa.csv: missing column 'answer1'"),
    (b"", "qa.csv: is empty"),
    (b"%PDF-1.7\n\x00\x01binary", "qa.csv: is not a CSV file"),
    (b"question,answer1\nWho?,Peter\n,Flopsy\n", "qa.csv, row 2 (line 3): field 'question' is empty"),
])
def test_malformed_uploads_are_refused_with_file_row_and_field(data, reason):
    with pytest.raises(InputError) as info:
        view.read_upload("qa.csv", data)
    assert str(info.value).startswith(reason)


def test_bundled_sets_include_the_dev_set():
    assert view.bundled_qa_sets()["assets/peter_rabbit_dev_qa.csv"] == DEV_QA


def test_view_tables_and_figures_from_records():
    records = [EvalRecord(PETER_ID, label, "dense", {}, q, f"Q <{q}>?", ["a"], "ev", "a" if q == 1 else "b",
                          exact_match=float(q == 1), sequence_match=float(q == 1), rouge_l=0.5, evidence_hit=q == 1,
                          context_words=10 * q) for label in ("x", "y") for q in (1, 2)]
    heat = view.question_heatmap(records, "sequence_match")
    assert list(heat.data[0].y) == ["Q1", "Q2"] and [list(row) for row in heat.data[0].z] == [[1.0, 1.0], [0.0, 0.0]]
    assert "&lt;1&gt;" in heat.data[0].customdata[0][0]  # question text is escaped for plotly
    scatter = view.size_scatter(records, "rouge_l")
    assert sorted(scatter.data[0].x) == [10, 20]
    failures = view.failure_rows(records)
    assert [(f["setting"], f["question id"]) for f in failures] == [("x", 2), ("y", 2)]
    assert failures[0]["diagnosis hint"] == "I/II? evidence was not retrieved"
    assert len(view.records_frame(records)) == 4
