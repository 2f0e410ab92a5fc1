"""QA pairs, ``qa-kg`` retrieval and short answers, measured.

* ``pairs``: pairs per 1,000 words, and the seconds the ``qa`` stage added (from each book's manifest) or, for a book
  indexed without stored pairs, the seconds generating them from its frames took;
  ``--sample N`` writes N pairs drawn with a fixed seed (for judging precision by hand).  A run keeps the rows of the
  books it does not measure.
* ``retrieval``: evidence hit and answer-token recall of ``qa-kg`` vs groundedkg/dense/bm25/hybrid at
  500 and 1,000 words.
* ``answers``: EM/SM/ROUGE-L/BERTScore per method × answerer at 1,000 words.

Sets are bench/retrieval_quality.py's: ``dev`` guides design; ``test`` (held out) is run once at the end
with ``--split test``.  The store is ``KGCORE_BENCH_STORE`` (books indexed there beforehand with
``python -m kgcore index FILE --name ID --store DIR``).  Results go to bench/results/qa_kg_<split>.json (the
parts not run are kept from the file).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import RESULTS, STORE_ROOT, write_json
from retrieval_quality import SETS, measure

from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.harness import evaluate
from kgcore.evaluate.qaset import load_qa
from kgcore.index.store.disk import Store
from kgcore.query.engine import QueryEngine
from kgcore.query.qakg.graph import document_pairs

METHODS = ("qa-kg", "groundedkg", "dense", "bm25", "hybrid")
ANSWERERS = ("extractive", "qa-kg")
PREDICTIONS: list[dict] = []


def pair_stats(engine: QueryEngine, doc_id: str, sample: int) -> dict:
    """The book's pairs as qa-kg uses them: stored by the ``qa`` stage, else generated from the stored frames (the
    bench books are indexed without ``KGCORE_QA_PAIRS``; reading only stored tables reported 0 pairs for them)."""
    index = engine.index(doc_id)
    entry = index.manifest.documents[0]
    table, pairs, seconds = document_pairs(index)[entry.doc_id]
    words = index.total_words
    timings = entry.manifest.timings_s
    out = {"book": doc_id, "words": words, "pairs": len(pairs), "stored": table is not None,
           "pairs_per_1000_words": round(1000 * len(pairs) / words, 1),
           "qa_stage_s": timings.get("qa") if table is not None else None,
           "generated_s": None if table is not None else round(seconds, 2),
           "index_s": entry.manifest.seconds, "timings_s": timings,
           "by_type": dict(Counter(p.answer_type for p in pairs)) if pairs else {}}
    if sample:
        rng = random.Random(15)
        by_id = {s.id: s for s in index.sentences}
        out["sample"] = [{"question": p.question, "answer": p.answer, "sentence": by_id[p.sentence_id].resolved,
                          "sentence_id": p.sentence_id} for p in rng.sample(pairs, min(sample, len(pairs)))]
    return out


def retrieval(engine: QueryEngine, doc_id: str, items, budgets=(500, 1000)) -> list[dict]:
    rows = []
    for budget in budgets:
        for method in METHODS:
            row = {"book": doc_id, **measure(engine, doc_id, items, method, budget)}
            rows.append(row)
            print(f"{doc_id:<16} {budget:>5} {method:<10} hit={row['evidence_hit_rate']:.3f} "
                  f"recall={row['answer_token_recall']:.3f}", flush=True)
    return rows


def answers(engine: QueryEngine, doc_id: str, items, methods, budget: int) -> list[dict]:
    rows = []
    grid = [RetrievalOptions(method=m, budget_words=budget) for m in methods]
    for answerer in ANSWERERS:
        run = evaluate(engine, doc_id, items, grid, answerer=answerer)
        PREDICTIONS.extend({"book": doc_id, "answerer": answerer, "setting": r.label, "question": r.question,
                            "answers": r.answers, "prediction": r.prediction, "em": r.exact_match,
                            "rouge_l": r.rouge_l} for r in run.records)
        for row in run.summary:
            rows.append({"book": doc_id, "answerer": answerer, **{k: row[k] for k in (
                "label", "em", "sm", "rouge_l", "bertscore", "evidence_hit_rate", "answer_ms_p50") if k in row}})
            print(f"{doc_id:<16} {answerer:<10} {row['label']:<26} EM={row['em']:5.1f} SM={row['sm']:5.1f} "
                  f"RL={row['rouge_l']:5.1f} BS={row['bertscore']:5.1f}", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--books", default="peter,crusoe")
    ap.add_argument("--split", default="dev", choices=("dev", "dev-extra", "test", "test2", "test3"))
    ap.add_argument("--parts", default="pairs,retrieval,answers")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--methods", default=",".join(METHODS))
    args = ap.parse_args()
    engine = QueryEngine(Store(STORE_ROOT))
    parts = args.parts.split(",")
    path = RESULTS / f"qa_kg_{args.split}.json"  # the parts not run this time are kept
    result: dict = json.loads(path.read_text()) if path.exists() else {"split": args.split}
    measured = {SETS[book][0] for book in args.books.split(",")}
    for part in ("pairs", "retrieval", "answers"):  # a part run keeps the rows of the books not run this time
        result[part] = [r for r in result.get(part, []) if part not in parts or r["book"] not in measured]
    for book in args.books.split(","):
        doc_id, _, splits = SETS[book]
        items = [item for path in splits[args.split] for item in load_qa(path)]
        if "pairs" in parts:
            result["pairs"].append(pair_stats(engine, doc_id, args.sample))
        if "retrieval" in parts:
            result["retrieval"] += retrieval(engine, doc_id, items)
        if "answers" in parts:
            result["answers"] += answers(engine, doc_id, items, args.methods.split(","), args.budget)
    write_json(f"qa_kg_{args.split}.json", result)
    if PREDICTIONS:  # the predictions of the books not run this time are kept, as the rows are
        kept_path = RESULTS / f"qa_kg_{args.split}_predictions.json"
        kept = json.loads(kept_path.read_text())["predictions"] if kept_path.exists() else []
        write_json(f"qa_kg_{args.split}_predictions.json",
                   {"predictions": [p for p in kept if p["book"] not in measured] + PREDICTIONS})
    if args.sample:
        print(json.dumps([p.get("sample") for p in result["pairs"]], indent=1)[:200])


if __name__ == "__main__":
    main()
