"""Pure builders of the team review views: doctests, escaping of reviewer names and texts, table shapes."""

from __future__ import annotations

import doctest
import importlib

import pytest

from kgcore.audit.adjudication import Disagreement
from kgcore.audit.agreement import TARGETS, Ratings, report
from ui.team_view import agreement_frame, disagreements_frame, pairs_frame, stage_matrix_html

SCRIPT = "<script>alert(1)</script>"


@pytest.mark.parametrize("module", ["ui.team_view", "ui.identity_panel", "ui.analysis_view", "ui.ask_script_html"])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_stage_matrix_escapes_reviewer_names_and_marks_disputed_stages():
    html = stage_matrix_html({SCRIPT: ["II", "III"], "Bob": ["II"]})
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.count('class="kg-disputed"') == 1  # III: used by one reviewer only
    assert html.count("<tr>") == 3  # header + two reviewers, no final row without an adjudication


def test_agreement_tables_have_one_row_per_target_and_pair():
    ratings = Ratings.of({r: {i: {"II" if (i + k) % 3 else "III"} for i in range(6)}
                          for k, r in enumerate(["ada", "bob", "cy"])})
    result = report(ratings, samples=20)
    assert agreement_frame(result)["target"].tolist()[-1] == "verdict (earliest failing stage)"
    assert len(agreement_frame(result)) == len(TARGETS)
    assert pairs_frame(result, "II")[["reviewer A", "reviewer B"]].values.tolist() == [
        ["ada", "bob"], ["ada", "cy"], ["bob", "cy"]]


def test_disagreements_table_has_a_column_per_reviewer():
    found = [Disagreement(3, "Q?", "book", "bm25", {"ada": ("II",), "bob": ("III",)}, False),
             Disagreement(5, "Q2?", "book", "dense", {"cy": ("I",), "ada": ("correct",)}, True)]
    frame = disagreements_frame(found)
    assert frame.columns.tolist()[-4:] == ["ada", "bob", "cy", "adjudicated"]
    assert frame.loc[1, "bob"] == "" and frame.loc[0, "differs on"] == "II, III"
