"""The verdict bench's threshold grid (bench/experiments/verdict_thresholds.py) and its section of the report
(bench/report_people.py), on small rows and results written here."""

from __future__ import annotations

import importlib.util
import json
import sys

import numpy as np
import pytest

from paths import ROOT


@pytest.fixture(scope="module")
def thresholds():
    sys.path.insert(0, str(ROOT / "bench"))  # the tools import their siblings (common, verdict_bench)
    spec = importlib.util.spec_from_file_location("bench_verdict_thresholds",
                                                  ROOT / "bench" / "experiments" / "verdict_thresholds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(right: bool, strength: float, state: str = "supported", reason: str = "", kind: str = "answerable"):
    return {"right": right, "probability": strength, "state": state, "reason": reason, "kind": kind}


def test_each_band_decides_the_rows_again_and_a_forced_refusal_stays_refused(thresholds, tmp_path):
    rows = [row(True, 2.7), row(True, 2.45, "unsure"), row(False, 2.2, "not supported"),
            row(False, 2.9, "not supported", "Not supported by the document: cited sentence t/1 holds no quantity, "
                                             "which the question asks for, and 2 of 3 of the question's words"),
            row(True, 3.0, "supported", kind="yes/no")]  # counted apart
    (tmp_path / "papers_extractive.json").write_text(json.dumps(rows), encoding="utf-8")
    data = thresholds.load(tmp_path, "papers")
    assert data.shape == (4, 4) and data[:, 2].tolist() == [0, 0, 0, 1]
    assert thresholds.judged(data, 2.4, 2.6) == (1.0, 0.25)  # the 2.45 one is unsure
    assert thresholds.judged(data, 2.5, 2.5) == (0.75, 0.0)  # now refused: half the right answers supported
    ba, unsure = thresholds.judged(data, 2.0, 2.0)  # the wrong 2.2 is supported; the forced one is not
    assert (ba, unsure) == (0.75, 0.0)


def test_a_claim_whose_roles_do_not_line_up_stays_at_best_unsure(thresholds, tmp_path):
    rows = [row(True, 2.7), row(False, 3.1, "unsure", "Unsure: ...; strength 3.10 ≥ 2.6, but nothing in it stands "
                                                     "where the question asks (the object of “marry”): check who"),
            row(False, 2.0, "not supported")]
    (tmp_path / "novels_extractive.json").write_text(json.dumps(rows), encoding="utf-8")
    data = thresholds.load(tmp_path, "novels")
    assert data[:, 3].tolist() == [0, 1, 0]
    assert thresholds.judged(data, 2.4, 2.6) == (1.0, 1 / 3)  # not supported by any band: unsure
    assert thresholds.judged(data, 3.2, 3.2) == (0.5, 0.0)  # below every band's lower bound: refused


def test_the_grid_gives_every_band_per_set_with_its_mean_worst_set_and_largest_unsure_share(thresholds):
    sets = {"a": np.array([[1, 2.7, 0, 0], [0, 2.2, 0, 0]], dtype=float),
            "b": np.array([[1, 2.3, 0, 0], [0, 2.5, 0, 0]], dtype=float)}
    cells = thresholds.grid(sets, np.array([2.4]))
    assert [(c["refused_below"], c["supported_from"]) for c in cells] == [(2.4, 2.4), (2.4, 2.5), (2.4, 2.6),
                                                                        (2.4, 2.7)]
    first = cells[0]
    assert first["balanced_accuracy"] == {"a": 1.0, "b": 0.0} and first["mean"] == 0.5 and first["worst"] == 0.0
    assert cells[2]["max_unsure"] == 0.5  # b's 2.5 lies between 2.4 and 2.6


def test_the_report_shows_the_verdict_tables_and_says_which_part_is_missing(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    from report_people import verdict_section

    verdict = {"questions": 2, "confusion": {"right": {"supported": 1, "not supported": 0, "unsure": 0},
                                             "wrong": {"supported": 0, "not supported": 1, "unsure": 0}},
               "balanced_accuracy": 1.0, "ba_interval": [1.0, 1.0], "unsure": 0.0}
    share = {"n": 2, "share": 0.5, "interval": [0.0, 1.0]}
    result = {"sets": {"papers/extractive": {"verdict": verdict, "answer_right": share,
                                             "answer_right_evidence_in_context": share,
                                             "diagnosis_from_answers": share, "diagnosis_without_gold": share}}}
    (tmp_path / "verdict_design.json").write_text(json.dumps(result), encoding="utf-8")
    text = verdict_section(tmp_path)
    assert "| papers/extractive | 2 | 1 / 0 / 0 | 0 / 1 / 0 | 1.00 [1.00, 1.00] | 0.00 | 0.50 (n=2) |" in text
    assert "No `verdict_held_out.json` yet: run `python bench/verdict_bench.py --part held_out`" in text
