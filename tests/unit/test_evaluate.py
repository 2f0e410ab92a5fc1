"""Evaluation without models: metrics against hand-computed values, QA file validation, the grid, the summary
and the benchmark report."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kgcore.core.errors import InputError
from kgcore.evaluate import (
    EvalRecord,
    format_table,
    is_failure,
    setting_label,
    settings_grid,
    summarize,
)
from kgcore.evaluate.metrics import (
    answer_token_recall,
    evidence_hit,
    exact_match,
    greedy_match_f1,
    rouge_l,
    sequence_match,
)
from kgcore.evaluate.qaset import load_qa, parse_qa
from kgcore.query.methods import METHODS
from paths import DEV_QA, PETER_ID, ROOT


# -- answer metrics -------------------------------------------------------------------
def test_exact_match_normalises_case_whitespace_and_end_punctuation():
    assert exact_match("Peter's mother gave him A DOSE of\n camomile   tea.", ["A dose of camomile tea."]) == 1.0
    assert exact_match("camomile tea", ["A dose of camomile tea."]) == 0.0  # the reference must be contained


def test_exact_match_takes_the_best_reference():
    refs = ["He was put in a pie by Mrs. McGregor.", "Mrs. McGregor baked him into a pie."]
    assert exact_match("Sadly, Mrs. McGregor baked him into a pie!", refs) == 1.0
    assert exact_match("He had an accident in the garden.", refs) == 0.0


def test_sequence_match_paper_example():
    # Section 4.2: "his shoes and his jacket" contains the reference sequence "his shoes and jacket".
    assert sequence_match("his shoes and his jacket", ["his shoes and jacket"]) == 1.0
    assert exact_match("his shoes and his jacket", ["his shoes and jacket"]) == 0.0


def test_sequence_match_needs_the_reference_order():
    assert sequence_match("his jacket and his shoes", ["his shoes and jacket"]) == 0.0
    assert sequence_match("He squeezed, quickly, under the gate.", ["Squeezed under the gate"]) == 1.0
    assert sequence_match("anything", ["", "  "]) == 0.0


def test_rouge_l_hand_computed():
    # LCS "the cat on the mat" = 5 of 6 tokens each side: P = R = F = 5/6.
    assert rouge_l("the cat lay on the mat", ["the cat sat on the mat"]) == pytest.approx(5 / 6, abs=1e-4)
    # LCS "a loaf of bread" = 4; P = 4/6, R = 4/5, F = 2PR/(P+R) = 8/11.
    assert rouge_l("she bought a loaf of bread", ["a loaf of brown bread"]) == pytest.approx(8 / 11, abs=1e-4)
    # Porter stemming: running -> run, dogs -> dog.
    assert rouge_l("running dogs", ["run dog"]) == pytest.approx(1.0)
    assert rouge_l("x y z", ["a loaf of brown bread", "x y"]) == pytest.approx(0.8, abs=1e-4)  # best reference


def test_greedy_match_hand_computed():
    candidate = np.array([[1.0, 0.0]])
    reference = np.array([[0.6, 0.8], [1.0, 0.0]])
    # precision: best match of the one candidate token = 1.0; recall: mean(0.6, 1.0) = 0.8; F1 = 1.6/1.8.
    assert greedy_match_f1(candidate, reference) == (1.0, 0.8, round(1.6 / 1.8, 4))
    assert greedy_match_f1(np.zeros((0, 2)), reference) == (0.0, 0.0, 0.0)


# -- retrieval metrics ---------------------------------------------------------------
def test_evidence_hit_ignores_case_and_whitespace_and_spans_sentences():
    context = ["Peter was most dreadfully frightened;", "he rushed all over the garden."]
    assert evidence_hit("Dreadfully   FRIGHTENED", context)
    assert evidence_hit("frightened; he rushed", context)
    assert not evidence_hit("he rushed home", context)
    assert not evidence_hit("", context)


def test_answer_token_recall_hand_computed():
    # content words of the reference: loaf, brown, bread, five, currant, bun -> 3 of 6 present.
    context = ["She bought a loaf of bread.", "Then she bought buns."]
    assert answer_token_recall(["A loaf of brown bread and five currant buns."], context) == 0.5
    assert answer_token_recall(["nothing relevant", "Brown bread"], context) == 0.5
    assert answer_token_recall(["bread"], []) == 0.0


# -- QA files -------------------------------------------------------------------------
def test_load_qa_reads_the_dev_set():
    items = load_qa(DEV_QA)
    assert len(items) == 14
    assert items[0].question == "What happened to the young rabbits' father?"
    assert items[0].answers == ("He was put in a pie by Mrs. McGregor.", "Mrs. McGregor baked him into a pie.")
    assert items[0].evidence == "he was put in a pie by Mrs. McGregor" and items[0].row == 1


def test_parse_qa_accepts_bom_case_and_missing_optional_columns():
    items = parse_qa("\ufeffQUESTION , Answer1\nWho?,Peter\n\n".encode("utf-8"), "qa.csv")
    assert [(i.question, i.answers, i.evidence) for i in items] == [("Who?", ("Peter",), "")]


@pytest.mark.parametrize(("data", "expected"), [
    (b"question,answer2\nWho?,Peter\n", "missing column 'answer1'"),
    (b"", "is empty"),
    (b"  \n\n", "is empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    ("question,answer1\nQui?,Pierre é\n".encode("latin-1"), "UTF-8"),
    (b"question,answer1\n", "no questions"),
    (b"question,answer1\nWho?,Peter\n   ,Flopsy\n", "row 2 (line 3): field 'question' is empty"),
    (b"question,answer1\nWho?,\n", "row 1 (line 2): field 'answer1' is empty"),
    (b"question,answer1\nWho?,Peter,Rabbit\n", "row 1 (line 2): has 3 fields but the header has 2"),
])
def test_parse_qa_rejects_malformed_files(data, expected):
    with pytest.raises(InputError) as info:
        parse_qa(data, "bad.csv")
    assert str(info.value).startswith("bad.csv") and expected in str(info.value)


def test_load_qa_names_a_missing_file(tmp_path):
    with pytest.raises(InputError, match="nope.csv: file not found"):
        load_qa(tmp_path / "nope.csv")


# -- settings grid and summary -------------------------------------------------------------
def test_grid_skips_settings_a_method_ignores():
    grid = settings_grid(METHODS, ks=[5, 10], budget_words=[0, 1000])
    labels = [setting_label(o) for o in grid]
    # groundedkg: 2 K x 2 budgets; ranked methods (lesegr, dense, bm25, hybrid, qa-kg, entities, community): 2 K
    # without budget + 1 budgeted; full, hybrid-summaries: 2 budgets; none: 1.
    assert len(grid) == 4 + 7 * 3 + 2 * 2 + 1
    assert "dense budget=1000w" in labels and "none" in labels and labels.count("full") == 1
    taus = settings_grid(["groundedkg", "dense"], taus=[None, 0.2], min_counts=[1, 2])
    assert [setting_label(o) for o in taus] == [
        "groundedkg k=10", "groundedkg k=10 count>=2", "groundedkg k=10 tau=0.2", "groundedkg k=10 tau=0.2 count>=2",
        "dense k=10"]


def test_summary_averages_and_scales_by_100():
    def rec(label, em, hit, ms):
        return EvalRecord("d", label, "dense", {"k": 10}, 1, "q", ["a"], "e", "p", exact_match=em, sequence_match=em,
                          evidence_hit=hit, retrieval_ms=ms, answer_ms=ms)

    rows = summarize([rec("x", 1.0, True, 1), rec("x", 0.0, False, 3), rec("x", 0.0, True, 10), rec("y", 1.0, None, 2)])
    x, y = rows
    assert (x["label"], x["questions"], x["em"], x["evidence_hit_rate"], x["retrieval_ms_p50"]) == (
        "x",
        3,
        33.3,
        66.7,
        3,
    )
    assert (y["em"], y["evidence_hit_rate"]) == (100.0, None)
    table = format_table(rows)
    assert table.splitlines()[0].split()[:3] == ["Setting", "EM", "SM"] and "33.3" in table
    assert is_failure(rec("x", 0.0, True, 1)) and not is_failure(rec("x", 1.0, True, 1))


# -- the benchmark report ------------------------------------------------------------------
def _bench_report_module():
    import importlib.util
    import sys
    bench = ROOT / "bench"
    sys.path.insert(0, str(bench))  # report.py imports its sibling common.py
    spec = importlib.util.spec_from_file_location("bench_report", bench / "report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_report_renders_tables_plots_and_notes(tmp_path):
    report = _bench_report_module()
    results = tmp_path / "results"
    results.mkdir()
    query = {"targets": {"dense": {"p50_ms": 50}}, "meets_targets": {"dense": True}, "peak_rss_mb": 800,
             "methods": {"dense": {"questions": 50, "p50_ms": 40.0, "p95_ms": 90.5, "max_ms": 120.0,
                                   "p50_step_ms": {"embed": 30.0, "select": 2.0}},
                         "bm25": {"questions": 50, "p50_ms": 60.0, "p95_ms": 70.0, "max_ms": 80.0,
                                  "p50_step_ms": {"embed": 0.0, "select": 1.0}}}}
    (results / "query.json").write_text(json.dumps(query), encoding="utf-8")
    eval_dir = tmp_path / "peter_eval"
    eval_dir.mkdir()
    row = {
        "doc_id": PETER_ID,
        "label": "none",
        **dict.fromkeys(
            (
                "em",
                "sm",
                "rouge_l",
                "bertscore",
                "evidence_hit_rate",
                "answer_token_recall",
                "context_sentences",
                "context_words",
                "book_pct",
                "retrieval_ms_p50",
                "answer_ms_p50",
            ),
            12.5,
        ),
    }
    summary = {"runs": [{"doc_id": PETER_ID, "questions": 3, "index": "srl/heuristic/basic", "answerer": "extractive",
                         "bertscore_model": "all-MiniLM-L6-v2"}],
               "columns": {"em": "EM", "sm": "SM", "rouge_l": "ROUGE-L", "bertscore": "BERTScore"}, "rows": [row]}
    (eval_dir / "summary.json").write_text(json.dumps(summary), encoding="utf-8")

    assert report.main(["--results", str(results), "--eval", str(eval_dir)]) == 0
    text = (results / "evaluation.md").read_text(encoding="utf-8")
    assert "| dense | 50 | 40.0 | 90.5 | 120.0 | 30.0 | 2.0 | yes |" in text
    assert "| bm25 | 50 | 60.0 | 70.0 | 80.0 | 0.0 | 1.0 | – |" in text  # no target for bm25
    assert "No `index.json` yet: run `python bench/index_bench.py`" in text
    assert "| none | 12.5 | 12.5 | 12.5 | 12.5 |" in text and "all-MiniLM-L6-v2" in text
    assert "| cores |" in text and "| torch |" in text
    for name in ("query_latency", "eval_peter_eval"):
        png = (results / f"{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n"), name
        assert f"![{name}]({name}.png)" in text
    # no index.json, so no indexing plot; and no SVG is written any more
    assert not (results / "index_stages.png").exists()
    assert not list(results.glob("*.svg"))


def test_bench_report_shows_the_fused_target_with_its_intervals(tmp_path):
    report = _bench_report_module()
    results = tmp_path / "results"
    results.mkdir()
    per_set = {"obliqa-test@200": {"groundedkg": 0.513, "best_text": 0.521, "best_method": "hybrid",
                                   "margin": -0.008, "ci95": [-0.04, 0.02], "verdict": "tie"}}
    fused = {"rows": [], "target": {"test": {"per_set": per_set, "mean_margin": -0.008, "never_loses": False}}}
    (results / "fused_quality.json").write_text(json.dumps(fused), encoding="utf-8")
    assert report.main(["--results", str(results)]) == 0
    text = (results / "evaluation.md").read_text(encoding="utf-8")
    assert "### Held-out sets (mean margin -0.008, never loses: **no**)" in text
    assert "| obliqa-test@200 | 0.513 | 0.521 (hybrid) | -0.008 | -0.04 … 0.02 | tie |" in text
    assert "### Dev sets" not in text  # no dev target in the file


def test_bench_report_shows_how_high_offline_exact_match_can_go(tmp_path):
    report = _bench_report_module()
    results = tmp_path / "results"
    results.mkdir()
    assert report.main(["--results", str(results)]) == 0
    assert "No `answer_ceiling.json` yet: run `python bench/experiments/answer_ceiling.py`" in \
        (results / "evaluation.md").read_text(encoding="utf-8")
    row = {"book": "robinson-crusoe", "split": "test", "questions": 50, "book_share": 34.0,
           "context_groundedkg@1000": 24.0, "answerer_sentences": 16.0, "some_pair": 12.0, "best_pair": 2.0,
           "qa_kg_em": 2.0, "extractive_em": 10.0}
    (results / "answer_ceiling.json").write_text(json.dumps({"rows": [row]}), encoding="utf-8")
    assert report.main(["--results", str(results)]) == 0
    text = (results / "evaluation.md").read_text(encoding="utf-8")
    assert "| robinson-crusoe test (50) | 34.0 | 24.0 | 16.0 | 12.0 | 2.0 | 2.0 | 10.0 |" in text


def test_bench_pools_each_collections_held_out_rounds_before_judging_the_fused_target():
    """``fused_quality.pooled``: a round whose margin is below zero counts with the others' questions."""
    import importlib.util
    import sys
    sys.path.insert(0, str(ROOT / "bench"))
    path = ROOT / "bench" / "experiments" / "fused_quality.py"
    spec = importlib.util.spec_from_file_location("bench_fused_quality", path)
    fq = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fq  # its dataclasses look their module up
    spec.loader.exec_module(fq)
    scores = {"test": {"groundedkg": [0.0, 1.0], "dense": [1.0, 1.0]},           # this round alone loses
              "test2": {"groundedkg": [1.0, 1.0, 1.0], "dense": [0.0, 0.0, 1.0]},
              "dev": {"groundedkg": [0.0], "dense": [1.0]}}                     # dev is never pooled
    rows = [{"set": f"crusoe-{split}", "variant": variant, "budget_words": 200, "per_question": values,
             "recall": sum(values) / len(values), "evidence": 1.0}
            for split, by_variant in scores.items() for variant, values in by_variant.items()]
    rows += [{**r, "variant": v} for r in rows if r["variant"] == "dense" for v in ("bm25", "hybrid")]
    alone = fq.target([r for r in rows if r["set"] == "crusoe-test"])
    pooled = fq.target(fq.pooled(rows))
    assert alone["never_loses"] is False and alone["per_set"]["crusoe-test@200"]["margin"] == -0.5
    assert list(pooled["per_set"]) == ["crusoe-held-out@200"]
    assert pooled["per_set"]["crusoe-held-out@200"]["margin"] == 0.2  # (4 - 3) / 5 questions
    assert pooled["never_loses"] is True
