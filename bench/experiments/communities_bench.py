"""Communities: detectors compared, community statistics and build cost, incremental reuse, and
retrieval with community summaries (``community``, ``hybrid-summaries``) against dense, bm25, hybrid and
groundedkg at equal words, with query latency.

    nice -n 10 python bench/experiments/communities_bench.py                                  # every part
    nice -n 10 python bench/experiments/communities_bench.py --parts obliqa-retrieval --sample 40   # a first look

Parts (merged into bench/results/communities.json):

* ``detectors``: the entity graph (:mod:`kgcore.index.views.communities.graph`) of ObliQA and Robinson Crusoe clustered
  by graspologic-native's hierarchical Leiden, leidenalg+igraph (same recursion) and networkx Louvain, max
  cluster size 10, seed 42: seconds, modularity per level, communities per level, leaf sizes.
* ``stats``: for papers, ObliQA and Robinson Crusoe, the stored build (detection + extractive summaries +
  vectors): seconds, the peak of Python/numpy allocations during the build (tracemalloc), communities per
  level, modularity, leaf size distribution.  The build is written to the collection's linked folder (derived
  data, as the contextual graph), so retrieval reuses it.  ``peak_alloc_mb`` counts Python and numpy
  allocations only (not graspologic's Rust heap); ``peak_rss_growth_mb`` is how much the build raised the
  process's peak resident memory above what the loaded collection already took.
* ``incremental``: a copy of the QASPER collection (10 papers): communities built, one paper removed (a new
  generation) and built again, then the paper added back and built again; summaries reused / computed and
  seconds against a build from scratch.
* ``obliqa-retrieval``: the fixed ObliQA dev sample of ``collections_bench.obliqa_questions`` (seed 13, a
  quarter needing passages of several documents), global retrieval; gold-passage recall at 500 / 1,000 / 2,000
  words per method, for all questions and separately for the multi-document ones (``inside()`` passage check);
  per-question latency p50 / p95 per method (all budgets pooled, after a warm-up question).
* ``qasper-retrieval``: the 10 QASPER papers, each question within its paper; evidence recall at the same budgets.

The data stays in ../shared/data (never copied into the project).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from collections_bench import DATA, STORE, evidence_recall, obliqa_questions, passage_recall, qasper_cases
from common import RESULTS, STORE_ROOT, machine, write_json

from kgcore.core.embed import query_embedder
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.index.load import doc_id_for
from kgcore.index.pipeline import Job, index_files, remove_documents
from kgcore.index.store.disk import Store
from kgcore.index.store.recovery import linked_folder
from kgcore.index.views.communities import communities, detect
from kgcore.index.views.communities.graph import entity_graph
from kgcore.index.views.communities.stored import Params, build, write
from kgcore.query.engine import QueryEngine

BUDGETS = (500, 1000, 2000)
METHODS = ("hybrid-summaries", "community", "dense", "bm25", "hybrid", "groundedkg")
COLLECTIONS = {"papers": (STORE, "papers"), "obliqa": (STORE, "obliqa"), "robinson-crusoe": (STORE_ROOT,
                                                                                             "robinson-crusoe")}


def detectors() -> dict:
    out = {}
    for name in ("obliqa", "robinson-crusoe"):
        root, collection = COLLECTIONS[name]
        index = Store(root).load(collection)
        eg = entity_graph(index.graph, len(index.sentences))
        rows = {"entities": len(eg.nodes), "links": len(eg.pairs)}
        for algorithm in ("leiden", "leidenalg", "louvain"):
            start = time.perf_counter()
            h = detect(eg, algorithm, 10, 42)
            seconds = time.perf_counter() - start
            leaves = sorted(len(c.members) for c in h.leaves())
            rows[algorithm] = {"seconds": round(seconds, 2), "levels": h.levels, "modularity": list(h.modularity),
                               "per_level": [len(h.at_level(n)) for n in range(h.levels)],
                               "leaf_median": statistics.median(leaves), "leaf_max": leaves[-1],
                               "leaves_over_10": sum(s > 10 for s in leaves)}
            print(name, algorithm, json.dumps(rows[algorithm]), flush=True)
        out[name] = rows
    return out


def stats() -> dict:
    embedder = query_embedder(Settings.from_env())
    out = {}
    for name, (root, collection) in COLLECTIONS.items():
        index = Store(root).load(collection)
        index.grounding  # noqa: B018 - the index's own matrix, loaded before measuring
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        ci = build(index, Params(), embedder)
        seconds = time.perf_counter() - start
        rss_growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
        tracemalloc.start()
        build(index, Params(), embedder)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        write(ci, index.path / linked_folder(index.manifest.generation), index.manifest.stamp)
        h = ci.hierarchy
        out[name] = {"documents": len(index.manifest.documents), "sentences": len(index.sentences),
                     "entities": ci.stats.entities, "links": ci.stats.links, "build_s": round(seconds, 2),
                     "detect_s": ci.stats.detect_s, "summaries_s": ci.stats.summary_s,
                     "peak_alloc_mb": round(peak / 2**20, 1), "peak_rss_growth_mb": round(rss_growth, 1),
                     "levels": h.levels,
                     "communities": len(h.communities), "per_level": [len(h.at_level(n)) for n in range(h.levels)],
                     "modularity": list(h.modularity), "leaf_sizes": ci.size_distribution(),
                     "summary_words_mean": round(statistics.mean(
                         sum(len(c.text.split()) for c in s.claims) for s in ci.summaries), 1)}
        print(name, json.dumps(out[name]), flush=True)
    return out


def incremental() -> dict:
    embedder = query_embedder(Settings.from_env())
    source = STORE / "qasper"
    with tempfile.TemporaryDirectory(prefix="kg-communities-") as tmp:
        shutil.copytree(source, Path(tmp) / "qasper", ignore=shutil.ignore_patterns("chroma"))
        store = Store(Path(tmp))
        first = communities(store.load("qasper"), embedder)
        last = store.load("qasper").manifest.documents[-1]
        paper = DATA / "qasper" / "papers" / last.manifest.source_file
        start = time.perf_counter()
        build(store.load("qasper"), Params(), embedder)
        rows = {"from_scratch_s": round(time.perf_counter() - start, 2), "communities": len(first.summaries)}
        remove_documents(store, "qasper", [last.doc_id])
        rows["removed"] = _timed(store, embedder)
        index_files([Job(paper.name, data=paper.read_bytes())], store, "qasper", workers=1)
        rows["added_back"] = _timed(store, embedder)
        rows["document"] = last.doc_id
    print("incremental", json.dumps(rows), flush=True)
    return rows


def _timed(store: Store, embedder) -> dict:
    index = store.load("qasper")
    start = time.perf_counter()
    ci = communities(index, embedder)
    return {"seconds": round(time.perf_counter() - start, 2), "communities": len(ci.summaries),
            "reused": ci.stats.reused, "computed": ci.stats.computed,
            "reused_share": round(ci.stats.reused / max(len(ci.summaries), 1), 3)}


def _percentiles(times: list[float]) -> dict:
    times = sorted(times)
    return {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1)}


def obliqa_retrieval(sample: int) -> dict:
    engine = QueryEngine(Store(STORE))
    questions = obliqa_questions(sample)
    multi = {id(q) for q in questions if len({g["document"] for g in q["gold"]}) > 1}
    rows, latency = [], {}
    for method in METHODS:
        engine.retrieve("obliqa", questions[0]["question"], RetrievalOptions(method=method, budget_words=1000))
        times = []
        for budget in BUDGETS:
            recalls, words = {"all": [], "multi": [], "single": []}, []
            for q in questions:
                start = time.perf_counter()
                result = engine.retrieve("obliqa", q["question"], RetrievalOptions(method=method, budget_words=budget))
                times.append((time.perf_counter() - start) * 1000)
                recall = passage_recall(result.sentences, q)
                recalls["all"].append(recall)
                recalls["multi" if id(q) in multi else "single"].append(recall)
                words.append(result.context_words)
            rows.append({"method": method, "budget_words": budget, "questions": len(questions),
                         **{f"recall_{k}": round(statistics.mean(v), 3) for k, v in recalls.items() if v},
                         "multi_questions": len(recalls["multi"]), "mean_words": round(statistics.mean(words), 1)})
            print(json.dumps(rows[-1]), flush=True)
        latency[method] = {"queries": len(times), **_percentiles(times)}
        print(method, latency[method], flush=True)
    return {"sample": sample, "multi_document": len(multi), "rows": rows, "latency": latency}


def qasper_retrieval(limit: int = 0) -> dict:
    engine = QueryEngine(Store(STORE))
    rows, latency = [], {}
    for method in METHODS:
        times = []
        for budget in BUDGETS:
            recalls = []
            for item, evidence in qasper_cases(limit):
                options = RetrievalOptions(method=method, budget_words=budget, documents=(doc_id_for(item["paper"]),))
                start = time.perf_counter()
                result = engine.retrieve("qasper", item["question"], options)
                times.append((time.perf_counter() - start) * 1000)
                recalls.append(evidence_recall(result.sentences, evidence))
            rows.append({"method": method, "budget_words": budget, "questions": len(recalls),
                         "evidence_recall": round(statistics.mean(recalls), 3)})
            print(json.dumps(rows[-1]), flush=True)
        latency[method] = {"queries": len(times), **_percentiles(times[1:])}
    return {"rows": rows, "latency": latency}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="detectors,stats,incremental,obliqa-retrieval,qasper-retrieval")
    parser.add_argument("--sample", type=int, default=300, help="ObliQA questions (the reported run: 300)")
    parser.add_argument("--qasper", type=int, default=0, help="QASPER questions (0: all)")
    parser.add_argument("--out", default="communities.json")
    args = parser.parse_args(argv)
    out_path = RESULTS / args.out
    results = json.loads(out_path.read_text()) if out_path.exists() else {}
    parts = {"detectors": detectors, "stats": stats, "incremental": incremental,
             "obliqa-retrieval": lambda: obliqa_retrieval(args.sample),
             "qasper-retrieval": lambda: qasper_retrieval(args.qasper)}
    for part in args.parts.split(","):
        start = time.perf_counter()
        results[part] = parts[part]()
        results[part + "_seconds"] = round(time.perf_counter() - start, 1)
        results["machine"] = machine()
        write_json(args.out, results)


if __name__ == "__main__":
    sys.exit(main())
