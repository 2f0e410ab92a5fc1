"""Evaluation harness: metrics against hand-computed values, QA file validation, the grid, the CLI."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from conftest import DEV_QA, PETER_ID
from kgcore.cli import main
from kgcore.errors import InputError
from kgcore.evaluate import (
    EvalRecord,
    evaluate,
    format_table,
    is_failure,
    send_failures_to_audit,
    setting_label,
    settings_grid,
    summarize,
)
from kgcore.metrics import (
    BertScorer,
    answer_token_recall,
    evidence_hit,
    exact_match,
    greedy_match_f1,
    rouge_l,
    sequence_match,
)
from kgcore.qaset import load_qa, parse_qa
from kgcore.settings import METHODS, RetrievalOptions

METRIC_COLUMNS = ("em", "sm", "rouge_l", "bertscore", "evidence_hit_rate", "answer_token_recall", "book_pct")


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


@pytest.fixture(scope="module")
def scorer():
    return BertScorer()


def test_bertscore_identical_is_one_and_related_beats_unrelated(scorer):
    reference = ["He lost one shoe among the cabbages."]
    assert scorer.score("He lost one shoe among the cabbages.", reference) == pytest.approx(1.0, abs=1e-3)
    related = scorer.score("Peter lost his shoes in the cabbage patch.", reference)
    unrelated = scorer.score("The stock market fell sharply on Tuesday.", reference)
    assert 0 < unrelated < related < 1
    assert scorer.score("", reference) == 0.0
    assert scorer.model_name == "all-MiniLM-L6-v2"


def test_bertscore_drops_special_tokens(scorer):
    (vectors,) = scorer.token_vectors(["his shoes"])
    assert vectors.shape == (2, 384)  # "his", "shoes" without [CLS] and [SEP]
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


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
    # groundedkg: 2 K x 2 budgets; ranked baselines: 2 K without budget + 1 budgeted; full: 2 budgets; none: 1.
    assert len(grid) == 4 + 3 * 3 + 2 + 1
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
    assert (x["label"], x["questions"], x["em"], x["evidence_hit_rate"], x["retrieval_ms_p50"]) == ("x", 3, 33.3, 66.7, 3)
    assert (y["em"], y["evidence_hit_rate"]) == (100.0, None)
    table = format_table(rows)
    assert table.splitlines()[0].split()[:3] == ["Setting", "EM", "SM"] and "33.3" in table
    assert is_failure(rec("x", 0.0, True, 1)) and not is_failure(rec("x", 1.0, True, 1))


# -- running on the real Peter Rabbit index ---------------------------------------------
def test_equal_contexts_are_answered_once(engine):
    items = load_qa(DEV_QA)[:2]
    grid = [RetrievalOptions("full"), RetrievalOptions("full", budget_words=50_000)]  # the book is far shorter
    run = evaluate(engine, PETER_ID, items, grid, "extractive")
    first, second = run.records[:2], run.records[2:]
    assert [r.answer_cached for r in first + second] == [False, False, True, True]
    assert [r.prediction for r in first] == [r.prediction for r in second]
    assert run.meta[0]["bertscore_model"] == "all-MiniLM-L6-v2" and run.meta[0]["index"] == "srl/heuristic/basic"


def test_failures_go_to_the_audit_queue_with_a_diagnosis(engine, tmp_path):
    from kgcore.audit import AuditDB

    items = load_qa(DEV_QA)[:2]
    run = evaluate(engine, PETER_ID, items, [RetrievalOptions("none")], "extractive", keep_failures=True)
    assert run.failures() == [0, 1] and set(run.kept) == {0, 1}  # no context: the extractive answerer cannot answer
    db = AuditDB(tmp_path / "audit.sqlite")
    sent = send_failures_to_audit(engine, run, db)
    # The gold answers are in the book but nothing was retrieved: a retrieval (II) failure.
    assert [s["stage"] for s in sent] == ["II", "II"]
    records = db.list_records()
    assert sorted(r.question for r in records) == sorted(i.question for i in items)
    labels = db.labels_for(sent[0]["record_id"])
    assert [(lab.source, lab.label_type) for lab in labels] == [("automatic", "II")]


def _read_csv(path):
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_cli_eval_writes_a_complete_table(peter_store, peter_index, tmp_path, capsys):
    out = tmp_path / "eval"
    code = main(["eval", "--store", str(peter_store.root), "--doc", PETER_ID, "--qa", str(DEV_QA),
                 "--answerer", "extractive", "--limit", "5", "--out", str(out), "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0
    rows = {r["label"]: r for r in _read_csv(out / "summary.csv")}
    assert list(rows) == ["groundedkg k=10", "dense k=10", "bm25 k=10", "hybrid k=10", "full", "none"]
    for label, row in rows.items():
        assert label in printed
        assert row["questions"] == "5" and row["errors"] == "0"
        for column in METRIC_COLUMNS:
            assert 0.0 <= float(row[column]) <= 100.0, (label, column, row[column])
        assert float(row["retrieval_ms_p50"]) >= 0 and float(row["answer_ms_p50"]) >= 0
    full, none = rows["full"], rows["none"]
    # The whole book holds every evidence string; no context holds none.
    assert float(full["book_pct"]) == 100.0 and float(full["evidence_hit_rate"]) == 100.0
    assert float(full["context_sentences"]) == len(peter_index.sentences)
    assert float(none["context_words"]) == 0 and float(none["evidence_hit_rate"]) == 0 and float(none["em"]) == 0
    for label in ("dense k=10", "bm25 k=10", "hybrid k=10"):
        assert float(rows[label]["context_sentences"]) == 10
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 6 * 5
    assert {r["question_id"] for r in records} == {1, 2, 3, 4, 5}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["runs"][0]["bertscore_model"] == "all-MiniLM-L6-v2" and summary["runs"][0]["answerer"] == "extractive"
    assert len(summary["rows"]) == 6


@pytest.mark.parametrize(("extra", "message"), [
    (["--methods", "groundedkg,graphrag"], "--methods: unknown method 'graphrag'"),
    (["--k", "5,ten"], "--k: 'ten' is not a valid value"),
    (["--k", "0"], "k: must be at least 1"),
    (["--tau", "2"], "tau: must be a cosine"),
    (["--doc", "no-such-book"], "No index for document 'no-such-book'"),
    (["--qa", "missing.csv"], "missing.csv: file not found"),
])
def test_cli_eval_rejects_bad_input(peter_store, tmp_path, capsys, extra, message):
    args = {"--doc": PETER_ID, "--qa": str(DEV_QA), "--out": str(tmp_path / "out")}
    args.update(zip(extra[::2], extra[1::2]))
    argv = ["eval", "--store", str(peter_store.root), "--quiet", "--answerer", "extractive"]
    assert main(argv + [x for pair in args.items() for x in pair]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# -- the benchmark report ------------------------------------------------------------------
def _bench_report_module():
    import importlib.util
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parent.parent / "bench"
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
    row = {"doc_id": PETER_ID, "label": "none", **{k: 12.5 for k in ("em", "sm", "rouge_l", "bertscore",
           "evidence_hit_rate", "answer_token_recall", "context_sentences", "context_words", "book_pct",
           "retrieval_ms_p50", "answer_ms_p50")}}
    summary = {"runs": [{"doc_id": PETER_ID, "questions": 3, "index": "srl/heuristic/basic", "answerer": "extractive",
                         "bertscore_model": "all-MiniLM-L6-v2"}],
               "columns": {"em": "EM", "sm": "SM", "rouge_l": "ROUGE-L", "bertscore": "BERTScore"}, "rows": [row]}
    (eval_dir / "summary.json").write_text(json.dumps(summary), encoding="utf-8")

    assert report.main(["--results", str(results), "--eval", str(eval_dir)]) == 0
    text = (results / "REPORT.md").read_text(encoding="utf-8")
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
