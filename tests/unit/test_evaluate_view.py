"""The Evaluate page's pure helpers (:mod:`ui.evaluate_view`): upload validation, bundled sets, tables and figures.

AppTest cannot upload files, so the upload path's validation is tested here on
:func:`ui.evaluate_view.read_upload`; the page itself is in tests/app/test_evaluate_page.py.
"""

from __future__ import annotations

import doctest

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


def test_doctests():
    result = doctest.testmod(view, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def test_view_tables_and_figures_from_records():
    records = [EvalRecord(PETER_ID, label, "dense", {}, q, f"Q <{q}>?", ["a"], "ev", "a" if q == 1 else "b",
                          exact_match=float(q == 1), sequence_match=float(q == 1), rouge_l=0.5, evidence_hit=q == 1,
                          context_words=10 * q) for label in ("x", "y") for q in (1, 2)]
    heat = view.question_heatmap(records, "sequence_match")
    assert heat.to_dict()["encoding"]["y"]["sort"] == ["Q1", "Q2"]
    cells = {(row["question id"], row["setting"]): row["score"] for row in heat.data.to_dict("records")}
    assert cells == {("Q1", "x"): 1.0, ("Q1", "y"): 1.0, ("Q2", "x"): 0.0, ("Q2", "y"): 0.0}
    # The question is data for Vega's tooltip (which escapes it), never markup: kept as written, not pre-escaped.
    assert set(heat.data["question"]) == {"Q <1>?", "Q <2>?"}
    scatter = view.size_scatter(records, "rouge_l")
    assert sorted(scatter.data["context words"]) == [10, 10, 20, 20] and set(scatter.data["score"]) == {0.5}
    bars = view.metric_bars([{"doc_id": PETER_ID, "label": "x", "em": 50.0, "sm": 25.0}], ("em", "sm"))
    assert bars.data.to_dict("records") == [{"setting": "x", "metric": "EM", "score": 50.0},
                                            {"setting": "x", "metric": "SM", "score": 25.0}]
    failures = view.failure_rows(records)
    assert [(f["setting"], f["question id"]) for f in failures] == [("x", 2), ("y", 2)]
    assert failures[0]["diagnosis hint"] == "I/II? evidence was not retrieved"
    assert len(view.records_frame(records)) == 4
