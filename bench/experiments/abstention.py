"""How often the support check says "not supported by the document", on three books.

Questions are asked with the default retrieval (``RetrievalOptions()``) and each offline answerer, per book:

* unanswerable: ``bench/unanswerable_<book>.csv``, 20 questions each about plausible things that never happen
  in the book (Peter Rabbit and Robinson Crusoe: dev; The Phantom of the Opera: held out, written before
  anything was measured on that book);
* answerable, dev: Peter Rabbit ``assets/peter_rabbit_dev_qa.csv``, Robinson Crusoe
  ``bench/data/robinson_crusoe_qa.csv`` and ``bench/data/robinson_crusoe_qa_dev2.csv``, The Phantom of the Opera
  ``bench/data/phantom_qa_dev.csv`` (since it was written;
  the quantile was chosen before it existed);
* answerable, test (held out): ``bench/data/peter_rabbit_qa_test.csv``, ``bench/data/robinson_crusoe_qa_test.csv``,
  ``bench/data/phantom_qa_test.csv``.

The abstention rate is the share of questions whose answer is not supported: it should be high on unanswerable
questions and low on answerable ones.  Two checks are scored on the same answers: ``after``, the verdict the
answer carries (the collection's own threshold, :mod:`kgcore.query.answer.calibration`), and ``before``, the
former absolute threshold :data:`~kgcore.query.answer.support.FIXED_THRESHOLD` applied to the same support
score.  An answerable question's answer may cite the wrong sentence, and then refusing it is right: the
``evidence_cited`` figures count only the answers citing a sentence that holds the set's evidence.

``--split dev`` runs the dev sets only and, with ``--quantiles``, prints the rates each candidate quantile would
give: how :data:`~kgcore.query.answer.support.QUANTILE` was chosen.  ``--split all`` (the default) runs
everything; the held-out sets were run once, with the chosen quantile.  Books are indexed into
``KGCORE_BENCH_STORE`` when missing (an identical index is reused).  Results go to ``bench/results/abstention.json``
(``abstention_dev.json`` for ``--split dev``, with the quantile grid).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import CRUSOE_QA, PETER, PETER_QA, ROOT, STORE_ROOT, crusoe_path, machine, write_json

from kgcore.core.nlp import load_spacy
from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.metrics import evidence_hit
from kgcore.evaluate.qaset import load_qa
from kgcore.index.pipeline import index_file
from kgcore.index.store.disk import Store
from kgcore.query.answer.calibration import collection_supports
from kgcore.query.answer.select import answer_type
from kgcore.query.answer.support import FIXED_THRESHOLD, QUANTILE, calibrate, kind_held
from kgcore.query.engine import QueryEngine

BENCH = ROOT / "bench"
PHANTOM = ROOT.parent / "shared" / "data" / "phantom_of_the_opera.txt"
#: Per book: its source, and its question sets as (kind, split, file).
BOOKS = {
    "peter-rabbit": (lambda: PETER, [("unanswerable", "dev", BENCH / "data" / "unanswerable_peter_rabbit.csv"),
                                     ("answerable", "dev", PETER_QA),
                                     ("answerable", "test", BENCH / "data" / "peter_rabbit_qa_test.csv")]),
    "robinson-crusoe": (crusoe_path, [("unanswerable", "dev", BENCH / "data" / "unanswerable_robinson_crusoe.csv"),
                                      ("answerable", "dev", CRUSOE_QA),
                                      ("answerable", "dev", BENCH / "data" / "robinson_crusoe_qa_dev2.csv"),
                                      ("answerable", "test", BENCH / "data" / "robinson_crusoe_qa_test.csv")]),
    "phantom-of-the-opera": (lambda: PHANTOM, [
        ("unanswerable", "test", BENCH / "data" / "unanswerable_phantom_of_the_opera.csv"),
        ("answerable", "dev", BENCH / "data" / "phantom_qa_dev.csv"),
        ("answerable", "test", BENCH / "data" / "phantom_qa_test.csv")]),
}
ANSWERERS = ("extractive", "qa-kg")


def questions(kind: str, path: Path) -> list[tuple[str, str]]:
    """(question, evidence) of a set; unanswerable sets have no evidence."""
    if kind == "answerable":
        return [(item.question, item.evidence) for item in load_qa(path)]
    with open(path, newline="", encoding="utf-8") as f:
        return [(row["question"], "") for row in csv.DictReader(f)]


def ask_all(engine: QueryEngine, book: str, items: list[tuple[str, str]], answerer: str) -> list[dict]:
    rows = []
    for question, evidence in items:
        result, answer = engine.ask(book, question, RetrievalOptions(), answerer)
        ids = {i for c in answer.citations for i in c.sentence_ids}
        cited = [s for s in result.sentences if s.id in ids]
        rows.append({"question": question, "answer": answer.text, "supported": answer.supported,
                     "score": answer.support_score, "reason": answer.support_reason,
                     "kind_found": kind_found(engine, question, cited),
                     "evidence_cited": evidence_hit(evidence, [s.text for s in cited]) if evidence else None})
    return rows


def kind_found(engine: QueryEngine, question: str, cited: list) -> bool:
    """Whether the cited sentences hold what the question asks for, as the support check's answer-type rule tests
    it (True for questions asking for no such kind), whatever the support score: the quantile grid needs it."""
    nlp = load_spacy(engine.settings.spacy_model)
    q_doc = nlp(question)
    return kind_held(answer_type(q_doc), q_doc, [(nlp(s.text), nlp(s.resolved or s.text)) for s in cited])


def rate(rows: list[dict], threshold: float | None = None, kinds: bool = False) -> float | None:
    """Share refused: by the answers' verdicts, or by ``threshold`` on their support scores (with ``kinds``, also
    those the answer-type rule refused: :data:`~kgcore.query.answer.support.TYPED`)."""
    if not rows:
        return None
    refused = [not r["supported"] if threshold is None else r["score"] is None or r["score"] < threshold
               or (kinds and not r["kind_found"]) for r in rows]
    return round(sum(refused) / len(rows), 3)


def summary(book: str, answerer: str, kind: str, split: str, sets: list[str], rows: list[dict]) -> dict:
    cited = [r for r in rows if r["evidence_cited"]]
    return {"book": book, "answerer": answerer, "kind": kind, "split": split, "sets": sets, "questions": len(rows),
            "abstain_after": rate(rows), "abstain_before": rate(rows, FIXED_THRESHOLD),
            "evidence_cited": len(cited) if kind == "answerable" else None,
            "abstain_evidence_cited_after": rate(cited), "abstain_evidence_cited_before": rate(cited, FIXED_THRESHOLD)}


def run_book(engine: QueryEngine, book: str, splits: set[str], answerers: list[str]) -> tuple[list[dict], list]:
    """Summaries per (answerer, kind, split) and every question's row."""
    out, detail = [], []
    sets = [s for s in BOOKS[book][1] if s[1] in splits]
    for answerer in answerers:
        for kind, split in dict.fromkeys((k, s) for k, s, _ in sets):
            files = [p for k, s, p in sets if (k, s) == (kind, split)]
            rows = [r for p in files for r in ask_all(engine, book, questions(kind, p), answerer)]
            out.append(summary(book, answerer, kind, split, [p.name for p in files], rows))
            detail.append({**out[-1], "rows": rows})
            print(f"{book} {answerer} {kind}/{split}: abstains on {out[-1]['abstain_after']:.0%} "
                  f"(before: {out[-1]['abstain_before']:.0%}) of {len(rows)}", flush=True)
    return out, detail


def calibration_of(engine: QueryEngine, book: str, supports: bool) -> dict:
    """The collection's calibration as the engine measures it on first use (timed); with ``supports``, the
    generated questions' supports too (for the quantile grid)."""
    index = engine.index(book)
    start = time.perf_counter()
    calibration = engine.support_calibration(book)
    seconds = time.perf_counter() - start
    out = {"threshold": calibration.threshold, "questions": calibration.questions, "quantile": calibration.quantile,
           "describe": calibration.describe(), "measure_seconds": round(seconds, 2)}
    if supports:
        out["supports"] = collection_supports(index, load_spacy(engine.settings.spacy_model), engine.embedder)
    return out


def quantile_grid(calibrations: dict, detail: list[dict], quantiles: list[float]) -> list[dict]:
    """Dev rates each candidate quantile would give (the support scores do not depend on it)."""
    grid = []
    for q in quantiles:
        for d in detail:
            threshold = calibrate(calibrations[d["book"]]["supports"], d["book"], q).threshold
            grid.append({"quantile": q, "book": d["book"], "answerer": d["answerer"], "kind": d["kind"],
                         "threshold": threshold, "abstain": rate(d["rows"], threshold, kinds=True),
                         "abstain_evidence_cited": rate([r for r in d["rows"] if r["evidence_cited"]], threshold,
                                                        kinds=True)})
    for q in quantiles:
        cells = [f"{g['book'][:7]} {g['answerer'][:3]} {g['kind'][:2]} {g['abstain']:.2f}"
                 for g in grid if g["quantile"] == q]
        print(f"quantile {q:.2f}: " + " | ".join(cells))
    return grid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "all"), default="all")
    parser.add_argument("--answerers", default=",".join(ANSWERERS))
    parser.add_argument("--quantiles", default="", help="comma-separated candidate quantiles (dev only)")
    args = parser.parse_args()
    store = Store(STORE_ROOT)
    engine = QueryEngine(store)
    splits = {"dev"} if args.split == "dev" else {"dev", "test"}
    results, detail, calibrations, started = [], [], {}, time.perf_counter()
    for book, (source, sets) in BOOKS.items():
        if not any(s in splits for _, s, _ in sets):
            continue
        index_file(source(), store, name=book)  # reuses an identical existing index
        calibrations[book] = calibration_of(engine, book, bool(args.quantiles))
        out, rows = run_book(engine, book, splits, args.answerers.split(","))
        results += out
        detail += rows
    grid = quantile_grid(calibrations, detail, [float(q) for q in args.quantiles.split(",")]) \
        if args.quantiles and args.split == "dev" else []
    name = "abstention.json" if args.split == "all" else "abstention_dev.json"
    write_json(name, {
        "machine": machine(), "retrieval": RetrievalOptions().to_dict(), "quantile": QUANTILE,
        "before": f"absolute threshold {FIXED_THRESHOLD} (Peter Rabbit dev's 10th percentile)",
        "after": "per collection: the quantile of the support of questions generated from its own sentences",
        "calibration": {b: {k: v for k, v in c.items() if k != "supports"} for b, c in calibrations.items()},
        "seconds": round(time.perf_counter() - started, 1), "summary": results, "quantile_grid": grid,
        "results": detail})


if __name__ == "__main__":
    main()
