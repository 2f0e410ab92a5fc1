"""How close the sharded engine comes to one process, per method and word budget, on people's questions.

    nice -n 19 python bench/sharded_agreement.py                       # 20 HotpotQA questions, 2 and 3 shards

A real small collection: the gold paragraphs of the first ``--questions`` HotpotQA dev questions (crowd-written,
multi-hop) and ``--extra`` other paragraphs of the same pool (sorted by name), indexed into one collection.  Each
question is asked of one process (:class:`~kgcore.api.QueryEngine`) and of the same collection split into N
shards (:class:`~kgcore.api.ShardedEngine`, shards as plain objects in this process: agreement does not depend
on Ray).  Per method, budget and shard count: **overlap** = |sharded ∩ one process| / |one process| of the selected
sentences (mean over questions), **same** = questions whose selection is identical, and the supporting-sentence
recall of each (how much of HotpotQA's gold evidence the context holds) with the paired-bootstrap 95 % interval of
sharded minus one process, so a difference is seen as a gain or a loss.  Writes bench/results/sharded_agreement.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from common import machine, write_json

DATA = Path("/work/shared/data/hotpotqa")
METHODS = ("groundedkg", "lesegr", "hybrid", "bm25", "dense")
BUDGETS = (100, 200, 500)


def collection(questions: int, extra: int) -> tuple[list[dict], list[Path]]:
    """The first ``questions`` questions and the documents: their gold paragraphs and ``extra`` others."""
    rows = [json.loads(line) for line in (DATA / "hotpotqa_dev.jsonl").read_text().splitlines()[:questions]]
    gold = {g["document"] for r in rows for g in r["gold"]}
    others = [p for p in sorted((DATA / "docs").glob("*.txt")) if p.name not in gold][:extra]
    return rows, sorted([DATA / "docs" / g for g in gold] + others)


def recall(selected: list, gold: list[dict]) -> float:
    """Share of the gold supporting sentences found within the selected sentences' text."""
    text = " ".join(" ".join(s.text.split()) for s in selected)
    return sum(" ".join(g["sentence"].split()) in text for g in gold) / max(len(gold), 1)


def compare(one, sharded, rows: list[dict], method: str, budget: int) -> dict:
    """The agreement of one method at one budget over every question."""
    from kgcore.api import RetrievalOptions, paired_bootstrap

    options = RetrievalOptions(method=method, budget_words=budget)
    overlaps, same, r_one, r_many = [], 0, [], []
    for row in rows:
        a = one.retrieve("hotpot", row["question"], options).sentences
        b = sharded.retrieve(row["question"], options).sentences
        ids_a, ids_b = {s.id for s in a}, {s.id for s in b}
        overlaps.append(len(ids_a & ids_b) / max(len(ids_a), 1))
        same += [s.id for s in a] == [s.id for s in b]
        r_one.append(recall(a, row["gold"]))
        r_many.append(recall(b, row["gold"]))
    _, (low, high) = paired_bootstrap(r_one, r_many)
    return {"method": method, "budget_words": budget, "overlap": round(statistics.mean(overlaps), 3),
            "min_overlap": round(min(overlaps), 3), "same": f"{same}/{len(rows)}",
            "gold_recall_one": round(statistics.mean(r_one), 3),
            "gold_recall_sharded": round(statistics.mean(r_many), 3),
            "recall_change_95ci": [round(low, 3), round(high, 3)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--extra", type=int, default=60, help="paragraphs besides the gold ones")
    parser.add_argument("--shards", type=int, nargs="*", default=[2, 3])
    args = parser.parse_args()
    from kgcore.api import Job, QueryEngine, ShardedEngine, Store, index_files

    rows, docs = collection(args.questions, args.extra)
    out: dict = {"machine": machine(), "questions": len(rows), "documents": len(docs), "rows": []}
    with tempfile.TemporaryDirectory(prefix="sharded-agreement-") as tmp:
        store = Store(Path(tmp))
        (outcome,) = index_files([Job(p.name, p) for p in docs], store, "hotpot", workers=1)
        if outcome.failed:
            raise SystemExit(f"indexing failed: {outcome.failed[:3]}")
        out["sentences"] = outcome.collection.counts.sentences
        one = QueryEngine(store)
        for shards in args.shards:
            with ShardedEngine(store, "hotpot", shards=shards, address=None) as sharded:
                for method in METHODS:
                    for budget in BUDGETS:
                        row = {"shards": shards, **compare(one, sharded, rows, method, budget)}
                        print(json.dumps(row), flush=True)
                        out["rows"].append(row)
    write_json("sharded_agreement.json", out, one_line="rows")


if __name__ == "__main__":
    main()
