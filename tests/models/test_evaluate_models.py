"""Evaluation with the real models: BERTScore with MiniLM, the harness on the real Peter Rabbit index,
failures sent to the audit queue, and the ``eval`` CLI."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from kgcore.audit import send_failures_to_audit
from kgcore.cli import main
from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate import (
    evaluate,
)
from kgcore.evaluate.metrics import (
    BertScorer,
)
from kgcore.evaluate.qaset import load_qa
from paths import DEV_QA, PETER_ID

METRIC_COLUMNS = ("em", "sm", "rouge_l", "bertscore", "evidence_hit_rate", "answer_token_recall", "book_pct")


# -- BERTScore with the real MiniLM ---------------------------------------------------
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


# -- running on the real Peter Rabbit index ---------------------------------------------
def test_equal_contexts_are_answered_once(engine):
    items = load_qa(DEV_QA)[:2]
    grid = [RetrievalOptions("full"), RetrievalOptions("full", budget_words=50_000)]  # the book is far shorter
    run = evaluate(engine, PETER_ID, items, grid, "extractive")
    first, second = run.records[:2], run.records[2:]
    assert [r.answer_cached for r in first + second] == [False, False, True, True]
    assert [r.prediction for r in first] == [r.prediction for r in second]
    assert run.meta[0]["bertscore_model"] == "all-MiniLM-L6-v2" and run.meta[0]["index"] == "srl/heuristic/basic"


def test_the_same_sentences_ranked_differently_are_answered_again(engine):
    """The extractive answerer reads the best-ranked sentences first, so a cached answer of the same sentence set
    under another ranking would be another method's answer."""
    items = load_qa(DEV_QA)[:3]
    grid = [RetrievalOptions("dense", budget_words=50_000), RetrievalOptions("bm25", budget_words=50_000)]
    run = evaluate(engine, PETER_ID, items, grid, "extractive")
    dense, bm25 = run.records[:3], run.records[3:]
    assert [r.sentence_ids for r in dense] == [r.sentence_ids for r in bm25]  # the whole book both times
    assert not any(r.answer_cached for r in bm25)


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
    assert list(rows) == [
        "groundedkg k=10", "lesegr k=10", "dense k=10", "bm25 k=10", "hybrid k=10", "qa-kg k=10", "entities k=10",
        "community k=10", "hybrid-summaries", "full", "none"]
    for label, row in rows.items():
        assert label in printed
        assert row["questions"] == "5" and row["errors"] == "0"
        for column in METRIC_COLUMNS:
            assert 0.0 <= float(row[column]) <= 100.0, (label, column, row[column])
        assert float(row["retrieval_ms_p50"]) >= 0 and float(row["answer_ms_p50"]) >= 0
    full, none = rows["full"], rows["none"]
    # The whole book (front matter aside: title page and headings) holds every evidence string; no context holds none.
    body = [s for s in peter_index.sentences if s.role == "body"]
    body_pct = round(100 * sum(len(s.original.split()) for s in body) / peter_index.total_words, 1)
    assert float(full["book_pct"]) == body_pct < 100.0 and float(full["evidence_hit_rate"]) == 100.0
    assert float(full["context_sentences"]) == len(body)
    assert float(none["context_words"]) == 0 and float(none["evidence_hit_rate"]) == 0 and float(none["em"]) == 0
    for label in ("dense k=10", "bm25 k=10", "hybrid k=10"):
        assert float(rows[label]["context_sentences"]) == 10
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(rows) * 5
    assert {r["question_id"] for r in records} == {1, 2, 3, 4, 5}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (
        summary["runs"][0]["bertscore_model"] == "all-MiniLM-L6-v2" and summary["runs"][0]["answerer"] == "extractive"
    )
    assert len(summary["rows"]) == len(rows)


@pytest.mark.parametrize(("extra", "message"), [
    (["--methods", "groundedkg,graphrag"], "--methods: unknown method 'graphrag'"),
    (["--k", "5,ten"], "--k: 'ten' is not a valid value"),
    (["--k", "0"], "k: must be at least 1"),
    (["--tau", "2"], "tau: must be a cosine"),
    (["--doc", "no-such-book"], "No collection 'no-such-book'"),
    (["--qa", "missing.csv"], "missing.csv: file not found"),
    (["--bertscore-model", "/no/such/model"], "--bertscore-model: '/no/such/model' is not a folder"),
    (["--bertscore-model", "EMPTY"], "holds no sentence-transformers model it can load"),
])
def test_cli_eval_rejects_bad_input(peter_store, tmp_path, capsys, extra, message):
    if "EMPTY" in extra:
        (tmp_path / "empty").mkdir()
        extra = [str(tmp_path / "empty") if x == "EMPTY" else x for x in extra]
    args = {"--doc": PETER_ID, "--qa": str(DEV_QA), "--out": str(tmp_path / "out")}
    args.update(zip(extra[::2], extra[1::2]))
    argv = ["eval", "--store", str(peter_store.root), "--quiet", "--answerer", "extractive"]
    assert main(argv + [x for pair in args.items() for x in pair]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
