"""How high can an offline answer's exact match go?  Aggregates only.

Exact match (:func:`kgcore.evaluate.metrics.exact_match`) counts a prediction when it contains a normalised gold
answer.  An offline answerer only writes words it read, so a question counts at most when a gold answer occurs,
normalised, in the text it answers from.  Per book and split this prints and writes the share of questions whose
gold answer occurs

* ``book``: anywhere in the book (the ceiling with perfect retrieval);
* ``context``: in the context each method selects at 1,000 and 2,000 words;
* for the ``qa-kg`` answerer over groundedkg's 1,000-word context: in the sentences it answers from
  (``answerer_sentences``), in some question–answer pair's answer among them (``some_pair``), and in its best pair
  (``best_pair``); and the EM of its answer and of the extractive answerer's (the answers themselves, not ceilings).

Only these shares are printed and written, never a question, so the held-out splits can be measured without being
read.  Results go to bench/results/answer_ceiling.json.  The store is ``KGCORE_BENCH_STORE`` (as
bench/experiments/qa_kg_bench.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import RESULTS, STORE_ROOT, write_json
from retrieval_quality import SETS

from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.metrics import exact_match
from kgcore.evaluate.qaset import QAItem, load_qa
from kgcore.index.store.disk import Store
from kgcore.query.answer.base import ParseMemo
from kgcore.query.answer.select import Question, score_sentences
from kgcore.query.engine import QueryEngine
from kgcore.query.qakg import qa_answer_graph

METHODS = ("groundedkg", "lesegr", "dense", "bm25", "hybrid", "qa-kg")
BUDGETS = (1000, 2000)


def found_in(item: QAItem, text: str) -> bool:
    """Whether a gold answer of ``item`` occurs, normalised, in ``text``: exact match's own test, with ``text``
    as the prediction."""
    return bool(exact_match(text, item.answers))


def share(flags: list[bool]) -> float:
    return round(100 * statistics.mean(flags), 1) if flags else 0.0


def answerer_shares(engine: QueryEngine, doc_id: str, items: list[QAItem]) -> dict:
    """The ``qa-kg`` answerer's steps over groundedkg's 1,000-word context, as shares of the questions."""
    generator, index = engine.generator("qa-kg"), engine.index(doc_id)
    qa = qa_answer_graph(index, engine.embedder)
    flags: dict[str, list[bool]] = {k: [] for k in ("answerer_sentences", "some_pair", "best_pair",
                                                    "qa_kg_em", "extractive_em")}
    for item in items:
        result = engine.retrieve(doc_id, item.question, RetrievalOptions(method="groundedkg", budget_words=1000))
        nlp = ParseMemo(generator.nlp)
        parsed = Question.parse(item.question, nlp)
        scored = score_sentences(item.question, parsed, result.sentences, nlp, generator.embedder)
        ranked = generator.ranked_answers(item.question, parsed, scored, result.sentences, qa)
        answers = [p.answer for p in ranked.table.pairs]
        flags["answerer_sentences"].append(found_in(item, " ".join(s.sentence.text for s in scored)))
        flags["some_pair"].append(any(exact_match(a, item.answers) for a in answers))
        flags["best_pair"].append(bool(ranked.answers) and bool(exact_match(ranked.answers[0]["answer"], item.answers)))
        for answerer in ("qa-kg", "extractive"):
            text = engine.answer(result, answerer).text
            flags[f"{answerer.replace('-', '_')}_em"].append(bool(exact_match(text, item.answers)))
    return {k: share(v) for k, v in flags.items()}


def measure(engine: QueryEngine, key: str, split: str, book_text: str) -> dict:
    doc_id, _, splits = SETS[key]
    items = [item for path in splits[split] for item in load_qa(path)]
    row: dict = {"book": doc_id, "split": split, "questions": len(items),
                 "book_share": share([found_in(i, book_text) for i in items])}
    for budget in BUDGETS:
        for method in METHODS:
            options = RetrievalOptions(method=method, budget_words=budget)
            row[f"context_{method}@{budget}"] = share([found_in(i, " ".join(
                s.text for s in engine.retrieve(doc_id, i.question, options).sentences)) for i in items])
    row.update(answerer_shares(engine, doc_id, items))
    print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--books", default="peter,crusoe,phantom")
    parser.add_argument("--splits", default="dev,dev-extra,test,test2,test3")
    args = parser.parse_args()
    engine = QueryEngine(Store(STORE_ROOT))
    rows = []
    for key in args.books.split(","):
        _, path, splits = SETS[key]
        text = path().read_text(encoding="utf-8")
        rows += [measure(engine, key, split, text) for split in args.splits.split(",") if split in splits]
    out = RESULTS / "answer_ceiling.json"  # the sets not measured this time are kept, in their places
    merged = {(r["book"], r["split"]): r for r in (json.loads(out.read_text())["rows"] if out.exists() else [])}
    merged.update({(r["book"], r["split"]): r for r in rows})
    write_json("answer_ceiling.json", {"budgets": list(BUDGETS), "methods": list(METHODS),
                                       "rows": list(merged.values())})


if __name__ == "__main__":
    main()
