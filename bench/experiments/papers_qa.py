"""Questions about papers, asked within their paper: does the context hold the answer, before and after an
ingestion change?  (Retrieval and answer quality on papers must not drop.)

    python bench/experiments/papers_qa.py --label after                    # the working tree
    (cd /tmp/base && PYTHONPATH=. python $REPO/bench/experiments/papers_qa.py --label before --root /tmp/base)

The questions (bench/data/papers_qa.csv: paper, question, answer, evidence) were written from eight of the 24
RAG papers' text alone, before either run, and are used as held-out: aggregates only.  Per method and word
budget (asked with ``documents=(paper,)``, QASPER's chat-with-one-paper mode):

* ``answer_recall``: share of the gold answer's content words found in the context (the measure of the
  unseen-papers set of bench/experiments/fused_quality.py);
* ``evidence_hit``: share of questions where one context sentence holds at least 70 % of the evidence
  sentence's content words;
* ``answer_words``: share of the gold answer's content words in the offline extractive answer (at 1,000 words).

The same script runs on both trees (it uses only the collection API both have); each run indexes the papers
into its own store.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
STOP = frozenset("a an the of in on at to for and or with by from is are was were be been it its this that "
                 "which what who how when where why does do did as into than their they we our".split())
BUDGETS = (500, 1000)
METHODS = ("groundedkg", "dense", "bm25", "hybrid")


def words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower().replace("-", "")) if w not in STOP]


def recall(gold: str, text: str) -> float:
    wanted = set(words(gold))
    return len(wanted & set(words(text))) / len(wanted) if wanted else 0.0


def measure(engine, collection: str, rows: list[dict], doc_id_for) -> list[dict]:
    from kgcore.core.settings import RetrievalOptions

    out = []
    for method in METHODS:
        for budget in BUDGETS:
            answers, hits, extractive = [], [], []
            for row in rows:
                options = RetrievalOptions(method=method, budget_words=budget, documents=(doc_id_for(row["paper"]),))
                result = engine.retrieve(collection, row["question"], options)
                context = " ".join(s.text for s in result.sentences)
                answers.append(recall(row["answer"], context))
                hits.append(any(recall(row["evidence"], s.text) >= 0.7 for s in result.sentences))
                if budget == 1000:
                    _, answer = engine.ask(collection, row["question"], options, "extractive")
                    extractive.append(recall(row["answer"], answer.text))
            out.append({"method": method, "budget_words": budget, "questions": len(rows),
                        "answer_recall": round(statistics.mean(answers), 3),
                        "evidence_hit": round(statistics.mean(hits), 3),
                        **({"answer_words": round(statistics.mean(extractive), 3)} if extractive else {})})
            print(json.dumps(out[-1]), flush=True)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--root", default=str(BENCH.parent), help="the tree whose kgcore is measured")
    parser.add_argument("--papers", default=str(BENCH.parents[1] / "shared" / "data" / "papers"))
    parser.add_argument("--qa", default=str(BENCH / "data" / "papers_qa.csv"))
    args = parser.parse_args(argv)
    sys.path.insert(0, args.root)
    from kgcore.index.load import doc_id_for
    from kgcore.index.pipeline import Job, index_files
    from kgcore.index.store.disk import Store
    from kgcore.query.engine import QueryEngine

    rows = list(csv.DictReader(open(args.qa, encoding="utf-8")))
    files = sorted({r["paper"] for r in rows})
    store = Store(BENCH / "stores" / "papers_qa" / args.label)
    started = time.perf_counter()
    index_files([Job(f, Path(args.papers) / f) for f in files], store, "papers8", workers=2)
    seconds = round(time.perf_counter() - started, 1)
    index = store.load("papers8")
    results = {"label": args.label, "papers": len(files), "index_seconds": seconds,
               "sentences": len(index.sentences), "rows": measure(QueryEngine(store), "papers8", rows, doc_id_for)}
    out = BENCH / "results" / f"papers_qa_{args.label}.json"
    out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
