"""Collections: indexing the 24 RAG papers and the 40 ObliQA rulebooks, adding one document to many, 1,000 tiny
documents, and retrieval across (ObliQA) and within (QASPER) documents at equal words, with query latency.

    python bench/collections_bench.py                       # every part (about an hour on 2 cores)
    python bench/collections_bench.py --parts papers,incremental,tiny
    python bench/collections_bench.py --parts obliqa,obliqa-retrieval,latency --sample 300

Parts (results merged into bench/results/collections.json):

* ``papers`` / ``obliqa``: index the collection from scratch with ``--workers`` processes; wall seconds, peak
  RSS (the largest process), sentences, nodes, edges, entities shared by several documents.
* ``incremental``: the last paper removed from the ``papers`` collection and added back (a collection of the
  other 23), against that paper indexed alone (target: at most 1.2x).
* ``tiny``: 1,000 HotpotQA-sized documents in one call against the same words as one document
  (:mod:`tiny_docs_bench`)
  holding the same text (the per-document overhead).
* ``obliqa-retrieval``: a fixed random sample of ObliQA dev (seed 13; a quarter of it needing passages from more
  than one document), global retrieval; gold-passage recall at 500 / 1,000 / 2,000 words per method.  A gold
  passage counts as found when a selected sentence of its document lies inside it (the sentence, rule-id
  prefix removed, is a substring of the passage, whitespace and quotes normalised).
* ``qasper-retrieval``: the 10 QASPER papers as one collection, each question asked within its paper
  (``documents=``); evidence-paragraph recall at the same budgets.
* ``latency``: retrieval p50 / p95 per method on the ObliQA collection (answers excluded).

The data stays in ../shared/data (never copied into the project).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import resource
import statistics
import sys
import time
from collections.abc import Collection
from pathlib import Path

import tiny_docs_bench
from common import RESULTS, ROOT, machine, write_json

from kgcore.api import Job, QueryEngine, RetrievalOptions, Settings, Store, doc_id_for, index_files, remove_documents

DATA = ROOT.parent / "shared" / "data"
STORE = ROOT / "bench" / "stores" / "collections"
BUDGETS = (500, 1000, 2000)
METHODS = ("groundedkg", "dense", "bm25", "hybrid")
_RULE_ID = re.compile(r"^\(?[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)+\)?\s+")


def peak_rss_mb() -> float:
    """The largest resident set of this process and of every waited-for worker process."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, children) / 1024, 1)


def index_collection(name: str, paths: list[Path], workers: int) -> dict:
    store = Store(STORE)
    if store.exists(name):
        store.delete(name)
    start = time.perf_counter()
    (outcome,) = index_files([Job(p.name, p) for p in paths], store, name, workers=workers)
    wall = time.perf_counter() - start
    c = outcome.collection.counts
    row = {"collection": name, "documents": c.documents, "failed": [list(f) for f in outcome.failed],
           "words": c.words, "sentences": c.sentences, "nodes": c.nodes, "edges": c.edges,
           "shared_entities": c.shared_entities, "wall_s": round(wall, 1), "workers": workers,
           "link_s": outcome.collection.link_seconds, "peak_rss_mb": peak_rss_mb()}
    print(json.dumps(row), flush=True)
    return row


def papers() -> list[Path]:
    return sorted((DATA / "papers").glob("*.pdf"))


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its finished children (robust to other busy processes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def incremental(workers: int, repeats: int = 5) -> dict:
    """The last paper removed from the ``papers`` collection and added back, against the same paper indexed
    alone (models already loaded for both), ``repeats`` times alternately; the ratio of the medians."""
    store = Store(STORE)
    if not store.exists("papers"):
        index_collection("papers", papers(), workers)
    last = papers()[-1]
    alone, added, links, alone_cpu, added_cpu = [], [], [], [], []
    for _ in range(repeats):
        if any(d.doc_id == doc_id_for(last.name) for d in store.manifest("papers").documents):
            remove_documents(store, "papers", [doc_id_for(last.name)])
        if store.exists("paper-alone"):
            store.delete("paper-alone")
        start, cpu = time.perf_counter(), cpu_seconds()
        index_files([Job(last.name, last)], store, "paper-alone", workers=1)
        alone.append(time.perf_counter() - start)
        alone_cpu.append(cpu_seconds() - cpu)
        start, cpu = time.perf_counter(), cpu_seconds()
        (outcome,) = index_files([Job(last.name, last)], store, "papers", workers=1)
        added.append(time.perf_counter() - start)
        added_cpu.append(cpu_seconds() - cpu)
        links.append(outcome.collection.link_seconds)
        print(json.dumps({"alone_s": round(alone[-1], 2), "added_s": round(added[-1], 2),
                          "alone_cpu_s": round(alone_cpu[-1], 2), "added_cpu_s": round(added_cpu[-1], 2)}),
              flush=True)
    row = {"paper": last.name, "collection_words": outcome.collection.counts.words, "repeats": repeats,
           "alone_s": round(statistics.median(alone), 2), "added_to_23_s": round(statistics.median(added), 2),
           "ratio": round(statistics.median(added) / statistics.median(alone), 3),
           "ratios": [round(b / a, 3) for a, b in zip(alone, added)],
           "alone_cpu_s": round(statistics.median(alone_cpu), 2),
           "added_cpu_s": round(statistics.median(added_cpu), 2),
           "cpu_ratio": round(statistics.median(added_cpu) / statistics.median(alone_cpu), 3),
           "link_s": round(statistics.median(links), 3), "target_ratio": 1.2,
           "load_average": os.getloadavg()}
    print(json.dumps(row), flush=True)
    return row


def _norm(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return " ".join(text.lower().split())


def inside(sentence: str, passage: str) -> bool:
    """Whether a sentence lies inside a passage (rule-id prefix dropped; whitespace, quotes and case ignored).

    >>> inside("18.8.2 A PFP Operator must provide the following:", "A PFP Operator must provide the following:\\n(a)")
    True
    """
    s = _norm(_RULE_ID.sub("", sentence.strip()))
    return len(s) >= 12 and s in _norm(passage)


def passage_recall(sentences, question: dict) -> float:
    """The share of an ObliQA question's gold passages that a selected sentence of the right document lies
    inside."""
    found = [any(s.document == doc_id_for(g["document"]) and inside(s.text, g["passage"]) for s in sentences)
             for g in question["gold"]]
    return sum(found) / len(found)


def obliqa_questions(sample: int, seed: int = 13, taken: Collection[str] = ()) -> list[dict]:
    """``sample`` questions of obliqa_dev.csv drawn with ``seed``, a quarter multi-document (or as many as are
    left), none whose ``question_id`` is in ``taken``; the default is the fixed dev sample every bench uses."""
    rows = [r for r in csv.DictReader((DATA / "obliqa" / "obliqa_dev.csv").open(encoding="utf-8"))
            if r["question_id"] not in taken]
    for r in rows:
        r["gold"] = json.loads(r["gold"])
    multi = [r for r in rows if len({g["document"] for g in r["gold"]}) > 1]
    single = [r for r in rows if r not in multi]
    rng = random.Random(seed)
    k_multi = min(sample // 4, len(multi))
    return rng.sample(multi, k_multi) + rng.sample(single, sample - k_multi)


def obliqa_retrieval(sample: int) -> dict:
    engine = QueryEngine(Store(STORE))
    questions = obliqa_questions(sample)
    rows = []
    for method in METHODS:
        for budget in BUDGETS:
            recalls, words, multi = [], [], []
            for q in questions:
                result = engine.retrieve("obliqa", q["question"], RetrievalOptions(method=method, budget_words=budget))
                recalls.append(passage_recall(result.sentences, q))
                words.append(result.context_words)
                if len({g["document"] for g in q["gold"]}) > 1:
                    multi.append(recalls[-1])
            rows.append({"method": method, "budget_words": budget, "questions": len(questions),
                         "passage_recall": round(statistics.mean(recalls), 3),
                         "multi_document_recall": round(statistics.mean(multi), 3) if multi else None,
                         "mean_words": round(statistics.mean(words), 1)})
            print(json.dumps(rows[-1]), flush=True)
    return {"sample": sample, "multi_document": sample // 4, "rows": rows,
            "full": "refused: the collection exceeds KGCORE_MAX_FULL_WORDS"}


def qasper_cases(limit: int = 0) -> list[tuple[dict, list[str]]]:
    """The QASPER questions (the first ``limit``; 0: all) with the evidence paragraphs of their answerable
    answers; questions without any are left out."""
    items = [json.loads(line) for line in (DATA / "qasper" / "qasper_qa.jsonl").open(encoding="utf-8")]
    items = items[:limit] if limit else items
    cases = [(i, [e for a in i["answers"] if not a["unanswerable"] for e in a["evidence"]]) for i in items]
    return [(item, evidence) for item, evidence in cases if evidence]


def evidence_recall(sentences, evidence: list[str]) -> float:
    """The share of ``evidence`` paragraphs some selected sentence lies inside."""
    return sum(any(inside(s.text, e) for s in sentences) for e in evidence) / len(evidence)


def qasper_retrieval(workers: int) -> dict:
    index_collection("qasper", sorted((DATA / "qasper" / "papers").glob("*.md")), workers)
    engine = QueryEngine(Store(STORE))
    rows = []
    for method in METHODS:
        for budget in BUDGETS:
            recalls = []
            for item, evidence in qasper_cases():
                options = RetrievalOptions(method=method, budget_words=budget, documents=(doc_id_for(item["paper"]),))
                result = engine.retrieve("qasper", item["question"], options)
                recalls.append(evidence_recall(result.sentences, evidence))
            rows.append({"method": method, "budget_words": budget, "questions": len(recalls),
                         "evidence_recall": round(statistics.mean(recalls), 3)})
            print(json.dumps(rows[-1]), flush=True)
    return {"rows": rows}


def latency(sample: int) -> dict:
    engine = QueryEngine(Store(STORE))
    questions = [q["question"] for q in obliqa_questions(sample)][:100]
    rows = {}
    for method in (*METHODS, "lesegr"):
        options = RetrievalOptions(method=method, budget_words=1000)
        engine.retrieve("obliqa", questions[0], options)  # warm-up: caches, BM25 model
        times = []
        for q in questions:
            start = time.perf_counter()
            engine.retrieve("obliqa", q, options)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        rows[method] = {"questions": len(times), "p50_ms": round(statistics.median(times), 1),
                        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1)}
        print(method, rows[method], flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="papers,incremental,tiny,obliqa,obliqa-retrieval,qasper-retrieval,latency")
    parser.add_argument("--workers", type=int, default=Settings.from_env().workers or 2)
    parser.add_argument("--sample", type=int, default=300)
    args = parser.parse_args(argv)
    out_path = RESULTS / "collections.json"
    results = json.loads(out_path.read_text()) if out_path.exists() else {}
    parts = {
        "papers": lambda: index_collection("papers", papers(), args.workers),
        "incremental": lambda: incremental(args.workers),
        "tiny": lambda: tiny_docs_bench.run(1000, args.workers),
        "obliqa": lambda: index_collection("obliqa", sorted((DATA / "obliqa" / "docs").glob("*.txt")), args.workers),
        "obliqa-retrieval": lambda: obliqa_retrieval(args.sample),
        "qasper-retrieval": lambda: qasper_retrieval(args.workers),
        "latency": lambda: latency(args.sample),
    }
    for part in args.parts.split(","):
        results[part] = parts[part]()
        results["machine"] = machine()
        write_json("collections.json", results)


if __name__ == "__main__":
    sys.exit(main())
