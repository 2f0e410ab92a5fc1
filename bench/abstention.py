"""Issue #22 item 7: how often the support check says "not supported by the document".

Two kinds of questions per book, asked with the default retrieval (``RetrievalOptions()``) and each offline
answerer:

* answerable: the existing QA sets (Peter Rabbit dev ``assets/peter_rabbit_dev_qa.csv``, Robinson Crusoe
  ``bench/robinson_crusoe_qa.csv``);
* unanswerable: ``bench/unanswerable_peter_rabbit.csv`` and ``bench/unanswerable_robinson_crusoe.csv``, 20
  questions each about things that never happen in the book, written from knowledge of the books.

The abstention rate is the share of questions whose answer has ``supported == False``: it should be high on
unanswerable questions and low on answerable ones.  ``--calibrate`` prints the threshold
:func:`kgcore.query.answer.support.calibrate` gives on the Peter Rabbit dev set (extractive answerer), the only
data the threshold was chosen on; the Peter Rabbit dev rate is therefore ~10 % by construction, the Crusoe one is
not.  Books are read from ``KGCORE_BENCH_STORE`` (``peter-rabbit`` and ``robinson-crusoe``).  Results go to
``bench/results/abstention.json``.
"""

from __future__ import annotations

import argparse
import csv
import time

from common import CRUSOE_QA, PETER_QA, ROOT, STORE_ROOT, write_json

from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.qaset import load_qa
from kgcore.index.store import Store
from kgcore.query.answer.support import CALIBRATION_QUANTILE, SUPPORT_THRESHOLD, calibrate
from kgcore.query.engine import QueryEngine

BOOKS = {
    "peter-rabbit": (PETER_QA, ROOT / "bench" / "unanswerable_peter_rabbit.csv"),
    "robinson-crusoe": (CRUSOE_QA, ROOT / "bench" / "unanswerable_robinson_crusoe.csv"),
}
ANSWERERS = ("extractive", "qa-kg")


def unanswerable(path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as f:
        return [row["question"] for row in csv.DictReader(f)]


def ask_all(engine: QueryEngine, book: str, questions: list[str], answerer: str) -> list[dict]:
    rows = []
    for question in questions:
        _, answer = engine.ask(book, question, RetrievalOptions(), answerer)
        rows.append({"question": question, "answer": answer.text, "supported": answer.supported,
                     "score": answer.support_score, "reason": answer.support_reason})
    return rows


def rate(rows: list[dict]) -> float:
    return round(sum(not r["supported"] for r in rows) / len(rows), 3) if rows else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrate", action="store_true", help="print the threshold chosen on the dev set")
    parser.add_argument("--answerers", default=",".join(ANSWERERS))
    args = parser.parse_args()
    engine = QueryEngine(Store(STORE_ROOT))
    if args.calibrate:
        rows = ask_all(engine, "peter-rabbit", [i.question for i in load_qa(PETER_QA)], "extractive")
        scores = [r["score"] or 0.0 for r in rows]
        print({"scores": sorted(scores), "threshold": calibrate(scores)})
        return
    results, started = [], time.perf_counter()
    for book, (answerable_path, unanswerable_path) in BOOKS.items():
        answerable = [item.question for item in load_qa(answerable_path)]
        for answerer in args.answerers.split(","):
            yes = ask_all(engine, book, answerable, answerer)
            no = ask_all(engine, book, unanswerable(unanswerable_path), answerer)
            results.append({"book": book, "answerer": answerer, "answerable": len(yes), "unanswerable": len(no),
                            "abstain_answerable": rate(yes), "abstain_unanswerable": rate(no),
                            "answerable_set": answerable_path.name, "unanswerable_set": unanswerable_path.name,
                            "questions": {"answerable": yes, "unanswerable": no}})
            print(f"{book} {answerer}: abstains on {rate(no):.0%} of {len(no)} unanswerable and "
                  f"{rate(yes):.0%} of {len(yes)} answerable questions")
    write_json("abstention.json", {
        "threshold": SUPPORT_THRESHOLD, "calibration": f"{CALIBRATION_QUANTILE:.0%} quantile of the support of "
        "the Peter Rabbit dev questions (extractive answerer, default retrieval)",
        "retrieval": RetrievalOptions().to_dict(), "seconds": round(time.perf_counter() - started, 1),
        "summary": [{k: v for k, v in r.items() if k != "questions"} for r in results], "results": results})


if __name__ == "__main__":
    main()
