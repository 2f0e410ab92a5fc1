"""Retrieval quality: evidence hit rate, answer-token recall and context size per method and budget.

Books: assets/ Peter Rabbit with its dev QA set, Robinson Crusoe with the
hand-written bench/robinson_crusoe_qa.csv (evidence substrings checked
against the text).  Budgets 200/500/1000 words and unbudgeted (0).
Writes bench/results/retrieval_quality.json and prints the table.
"""

from __future__ import annotations

import argparse
import statistics

from common import CRUSOE_QA, PETER, PETER_QA, STORE_ROOT, crusoe_path, machine, write_json

from kgcore.engine import QueryEngine
from kgcore.metrics import answer_token_recall, evidence_hit
from kgcore.qaset import load_qa
from kgcore.pipeline import index_file
from kgcore.settings import RetrievalOptions
from kgcore.store import Store

METHODS = ("groundedkg", "dense", "bm25", "hybrid")
BUDGETS = (200, 500, 1000, 0)


def ensure_index(store: Store, path, doc_id: str) -> None:
    index_file(path, store, name=doc_id)  # reuses an identical existing index


def evaluate_book(engine: QueryEngine, doc_id: str, qa_path, methods, budgets) -> list[dict]:
    items = load_qa(qa_path)
    book_words = engine.index(doc_id).total_words
    rows = []
    for budget in budgets:
        for method in methods:
            hits, recalls, words, sents = [], [], [], []
            for item in items:
                result = engine.retrieve(doc_id, item.question, RetrievalOptions(method=method, budget_words=budget))
                context = [s.text for s in result.sentences]
                hits.append(evidence_hit(item.evidence, context))
                recalls.append(answer_token_recall(item.answers, context))
                words.append(result.context_words)
                sents.append(len(result.sentences))
            rows.append({
                "book": doc_id, "method": method, "budget_words": budget, "questions": len(items),
                "evidence_hit_rate": round(sum(hits) / len(hits), 3),
                "answer_token_recall": round(statistics.mean(recalls), 3),
                "mean_words": round(statistics.mean(words), 1),
                "mean_sentences": round(statistics.mean(sents), 1),
                "pct_of_book": round(100 * statistics.mean(words) / book_words, 2),
            })
            r = rows[-1]
            print(f"{doc_id:<16} budget={budget:<5} {method:<10} hit={r['evidence_hit_rate']:.2f} "
                  f"recall={r['answer_token_recall']:.2f} words={r['mean_words']:>7.0f} ({r['pct_of_book']:.1f}% of book)")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--books", default="peter,crusoe")
    args = parser.parse_args()
    store = Store(STORE_ROOT)
    engine = QueryEngine(store)
    rows = []
    if "peter" in args.books:
        ensure_index(store, PETER, "peter-rabbit")
        rows += evaluate_book(engine, "peter-rabbit", PETER_QA, METHODS, BUDGETS)
    if "crusoe" in args.books:
        ensure_index(store, crusoe_path(), "robinson-crusoe")
        rows += evaluate_book(engine, "robinson-crusoe", CRUSOE_QA, METHODS, BUDGETS)
    wins = _groundedkg_wins(rows)
    for line in wins["lines"]:
        print(line)
    write_json("retrieval_quality.json", {"machine": machine(), "rows": rows, "groundedkg_beats_baselines": wins})


def _groundedkg_wins(rows: list[dict]) -> dict:
    """At each (book, budget): does GroundedKG's evidence hit rate beat dense and BM25?"""
    lines, verdict = [], {}
    for book in sorted({r["book"] for r in rows}):
        for budget in sorted({r["budget_words"] for r in rows if r["book"] == book and r["budget_words"]}):
            at = {r["method"]: r for r in rows if r["book"] == book and r["budget_words"] == budget}
            g = at["groundedkg"]
            beats = all((g["evidence_hit_rate"], g["answer_token_recall"]) > (at[m]["evidence_hit_rate"], at[m]["answer_token_recall"])
                        for m in ("dense", "bm25"))
            verdict[f"{book}@{budget}"] = beats
            lines.append(f"{book} @ {budget} words: GroundedKG {'beats' if beats else 'does NOT beat'} dense and BM25 "
                         f"(hit {g['evidence_hit_rate']:.2f} vs {at['dense']['evidence_hit_rate']:.2f} / {at['bm25']['evidence_hit_rate']:.2f})")
    return {"verdict": verdict, "lines": lines}


if __name__ == "__main__":
    main()
