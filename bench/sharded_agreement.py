"""How close the sharded engine comes to one process, per method and word budget, on people's questions.

    nice -n 19 python bench/sharded_agreement.py                       # 20 HotpotQA questions, 2 and 3 shards
    nice -n 19 python bench/sharded_agreement.py --store bench/stores/papers24 --collection papers \
        --qa bench/data/papers_qa.csv --methods groundedkg lesegr dense --budgets 500 1000 --answers

A real small collection: the gold paragraphs of the first ``--questions`` HotpotQA dev questions (crowd-written,
multi-hop) and ``--extra`` other paragraphs of the same pool (sorted by name), indexed into one collection.  Each
question is asked of one process (:class:`~kgcore.api.QueryEngine`) and of the same collection split into N
shards (:class:`~kgcore.api.ShardedEngine`, shards as plain objects in this process: agreement does not depend
on Ray).  Per method, budget and shard count: **overlap** = |sharded ∩ one process| / |one process| of the selected
sentences (mean over questions), **same** = questions whose selection is identical, and the supporting-sentence
recall of each (how much of HotpotQA's gold evidence the context holds) with the paired-bootstrap 95 % interval of
sharded minus one process, so a difference is seen as a gain or a loss.  Writes bench/results/sharded_agreement.json.

With ``--store`` and ``--collection``, an indexed collection instead (the 24 arXiv papers: ``--qa`` a CSV of
``question`` and ``evidence``, the evidence sentence as gold), written to ``sharded_agreement_<collection>.json``;
``--answers`` also compares the offline answer and its verdict (**same answer**: questions whose answer text and
verdict state are one process's).
"""

from __future__ import annotations

import argparse
import csv
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


def qa_rows(path: Path) -> list[dict]:
    """Questions of a CSV with ``question`` and ``evidence`` columns, the evidence as the gold sentence."""
    with path.open(encoding="utf-8") as f:
        return [{"question": r["question"], "gold": [{"sentence": r["evidence"]}]} for r in csv.DictReader(f)]


def compare(one, sharded, rows: list[dict], method: str, budget: int, name: str = "hotpot",
            answers: bool = False) -> dict:
    """The agreement of one method at one budget over every question (``answers``: also the offline answer's)."""
    from kgcore.api import RetrievalOptions, paired_bootstrap

    options = RetrievalOptions(method=method, budget_words=budget)
    overlaps, same, r_one, r_many, same_answer = [], 0, [], [], 0
    for row in rows:
        result_a, result_b = one.retrieve(name, row["question"], options), sharded.retrieve(row["question"], options)
        a, b = result_a.sentences, result_b.sentences
        if answers:
            answer_a, answer_b = one.answer(result_a, "extractive"), sharded.answer(result_b, "extractive")
            same_answer += (answer_a.text, _state(answer_a)) == (answer_b.text, _state(answer_b))
        ids_a, ids_b = {s.id for s in a}, {s.id for s in b}
        overlaps.append(len(ids_a & ids_b) / max(len(ids_a), 1))
        same += [s.id for s in a] == [s.id for s in b]
        r_one.append(recall(a, row["gold"]))
        r_many.append(recall(b, row["gold"]))
    _, (low, high) = paired_bootstrap(r_one, r_many)
    extra = {"same_answer": f"{same_answer}/{len(rows)}"} if answers else {}
    return {"method": method, "budget_words": budget, **extra, "overlap": round(statistics.mean(overlaps), 3),
            "min_overlap": round(min(overlaps), 3), "same": f"{same}/{len(rows)}",
            "gold_recall_one": round(statistics.mean(r_one), 3),
            "gold_recall_sharded": round(statistics.mean(r_many), 3),
            "recall_change_95ci": [round(low, 3), round(high, 3)]}


def _state(answer) -> str | None:
    return answer.verdict.state if answer.verdict is not None else None


def agreement(store, name: str, rows: list[dict], args: argparse.Namespace) -> list[dict]:
    """Every shard count x method x budget of ``args`` compared on collection ``name``."""
    from kgcore.api import QueryEngine, ShardedEngine

    one, out = QueryEngine(store), []
    for shards in args.shards:
        with ShardedEngine(store, name, shards=shards, address=None) as sharded:
            for method in args.methods:
                for budget in args.budgets:
                    row = {"shards": shards, **compare(one, sharded, rows, method, budget, name, args.answers)}
                    print(json.dumps(row), flush=True)
                    out.append(row)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--extra", type=int, default=60, help="paragraphs besides the gold ones")
    parser.add_argument("--shards", type=int, nargs="*", default=[2, 3])
    parser.add_argument("--methods", nargs="*", default=list(METHODS))
    parser.add_argument("--budgets", type=int, nargs="*", default=list(BUDGETS))
    parser.add_argument("--store", type=Path, help="an indexed store instead of HotpotQA paragraphs")
    parser.add_argument("--collection", help="with --store: the collection")
    parser.add_argument("--qa", type=Path, help="with --store: a CSV of question and evidence")
    parser.add_argument("--answers", action="store_true", help="also compare the offline answer and verdict")
    args = parser.parse_args()
    from kgcore.api import Job, Store, index_files

    if args.store and not (args.collection and args.qa):
        parser.error("--store needs --collection and --qa")
    if args.store:
        rows, store = qa_rows(args.qa), Store(args.store)
        counts = store.manifest(args.collection).counts
        out: dict = {"machine": machine(), "collection": args.collection, "qa": str(args.qa), "questions": len(rows),
                     "documents": counts.documents, "sentences": counts.sentences}
        out["rows"] = agreement(store, args.collection, rows, args)
        write_json(f"sharded_agreement_{args.collection}.json", out, one_line="rows")
        return
    rows, docs = collection(args.questions, args.extra)
    out = {"machine": machine(), "questions": len(rows), "documents": len(docs)}
    with tempfile.TemporaryDirectory(prefix="sharded-agreement-") as tmp:
        store = Store(Path(tmp))
        (outcome,) = index_files([Job(p.name, p) for p in docs], store, "hotpot", workers=1)
        if outcome.failed:
            raise SystemExit(f"indexing failed: {outcome.failed[:3]}")
        out["sentences"] = outcome.collection.counts.sentences
        out["rows"] = agreement(store, "hotpot", rows, args)
    write_json("sharded_agreement.json", out, one_line="rows")


if __name__ == "__main__":
    main()
