"""The ``entities`` retrieval method against groundedkg, dense, bm25 and hybrid at equal words,
and the cost of the grounded entity descriptions (item 4) it rests on.

    nice -n 10 python bench/experiments/entities_retrieval_bench.py                 # every part
    nice -n 10 python bench/experiments/entities_retrieval_bench.py --parts describe-obliqa,obliqa --sample 300

Parts (merged into bench/results/entities_retrieval.json):

* ``describe-obliqa`` / ``describe-papers``: on the ObliQA collection (40 rulebooks) and the 24 RAG papers,
  the time to resolve entities (:func:`kgcore.index.views.entities.entity_groups`) and to describe and embed them
  (:func:`kgcore.index.views.entities.describe.build`, extractive, nothing reused), how many entities and how many
  descriptions; then the same descriptions stored and read back (what a later process pays), and the
  entity overview (PageRank, subgraphs, subtopics) built and checked: every statement line ends with a citation.
* ``obliqa``: the fixed ObliQA dev sample of :func:`collections_bench.obliqa_questions` (seed 13, a quarter
  needing passages from several documents), global retrieval, gold-passage recall at 500 / 1,000 / 2,000 words
  with :func:`collections_bench.inside`; retrieval latency p50 / p95 per method over every call.
* ``qasper``: the QASPER collection, each question within its paper (``documents=``), evidence recall at the
  same budgets.
* ``obliqa-pool-only`` (not in the default parts): a diagnostic of where ``entities`` loses on ObliQA: the same
  sample with the entity weight off, so sentences rank by question cosine alone inside the entity-selected pool.

Every method gets the same word budget (:func:`kgcore.query.context.budget_positions`).  Nothing is tuned here:
the ``entities`` constants were set on the self-written test texts before this ran.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from collections_bench import STORE, evidence_recall, obliqa_questions, passage_recall, qasper_cases
from common import RESULTS, machine, write_json

from kgcore.core.embed import query_embedder
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.index.load import doc_id_for
from kgcore.index.store.disk import Store
from kgcore.index.store.recovery import linked_folder
from kgcore.index.views.entities import describe as describe_mod
from kgcore.index.views.entities import entity_groups
from kgcore.index.views.entities.overview import collection_overview, overview_markdown
from kgcore.query.engine import QueryEngine

BUDGETS = (500, 1000, 2000)
#: groundedkg last: the slowest; rows are written after every method, so a cut-short run keeps the others.
METHODS = ("entities", "dense", "bm25", "hybrid", "groundedkg")
OUT = "entities_retrieval.json"


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` by nearest rank.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([1.0, 2.0, 3.0, 4.0], 0.95)
    (2.0, 4.0)
    """
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))]


def describe_part(collection: str) -> dict:
    settings = Settings.from_env()
    embedder = query_embedder(settings)
    index = Store(STORE).load(collection)
    start = time.perf_counter()
    groups = entity_groups(index)
    resolve_s = time.perf_counter() - start
    start = time.perf_counter()
    built = describe_mod.build(index, embedder, settings)  # nothing reused: the cost of a first build
    describe_s = time.perf_counter() - start
    folder = index.path / linked_folder(index.manifest.generation)
    sig = describe_mod.signature(embedder, settings)
    describe_mod.write(built, folder / describe_mod.STORED, sig, index.manifest.stamp)
    start = time.perf_counter()
    read = describe_mod.read(folder / describe_mod.STORED, sig, index.manifest.stamp)
    read_s = time.perf_counter() - start
    sizes = [len(g.grounded_texts) for g in groups]
    start = time.perf_counter()
    index.cache.drop(describe_mod.DESCRIPTIONS)  # the overview reads the stored descriptions, as a new process would
    markdown = overview_markdown(collection_overview(index, embedder, settings))
    overview_s = time.perf_counter() - start
    statements = [line for line in markdown.splitlines() if line and not line.startswith(("#", "|", "Linked to"))][1:]
    row = {"collection": collection, "documents": len(index.manifest.documents), "sentences": len(index.sentences),
           "entities": len(groups), "min_grounding": settings.entity_min_grounding,
           "described": len(built.descriptions), "resolve_s": round(resolve_s, 2), "describe_s": round(describe_s, 2),
           "describe_ms_per_entity": round(1000 * describe_s / max(1, len(built.descriptions)), 2),
           "read_back_s": round(read_s, 3),
           "read_back_ok": read is not None and len(read[0]) == len(built.descriptions),
           "sentences_per_description": round(statistics.mean(len(d.sentences) for d in built.descriptions), 2)
           if built.descriptions else 0.0,
           "entities_grounded_1": sum(1 for n in sizes if n == 1),
           "entities_grounded_2": sum(1 for n in sizes if n == 2),
           "overview_s": round(overview_s, 2), "overview_statements": len(statements),
           "overview_statements_uncited": sum(1 for line in statements if not line.rstrip().endswith("]"))}
    print(json.dumps(row), flush=True)
    return row


def _run(engine: QueryEngine, collection: str, question: str, options: RetrievalOptions, times: dict) -> object:
    start = time.perf_counter()
    result = engine.retrieve(collection, question, options)
    times.setdefault(options.method, []).append((time.perf_counter() - start) * 1000)
    return result


def _latency(times: dict) -> dict:
    return {m: {"calls": len(t), "p50_ms": round(percentile(t, 0.5), 1), "p95_ms": round(percentile(t, 0.95), 1)}
            for m, t in times.items()}


def obliqa_part(sample: int, save=lambda partial: None) -> dict:
    engine = QueryEngine(Store(STORE))
    questions = obliqa_questions(sample)
    for method in METHODS:  # warm-up: indexes, BM25 model, descriptions, entity tables
        engine.retrieve("obliqa", questions[0]["question"], RetrievalOptions(method=method, budget_words=500))
    rows, times, matched = [], {}, []
    for method in METHODS:
        for budget in BUDGETS:
            recalls, words = [], []
            for q in questions:
                result = _run(engine, "obliqa", q["question"], RetrievalOptions(method=method, budget_words=budget),
                              times)
                recalls.append(passage_recall(result.sentences, q))
                words.append(result.context_words)
                if method == "entities" and budget == BUDGETS[0]:
                    matched.append(len(result.matches))
            rows.append({"method": method, "budget_words": budget, "questions": len(questions),
                         "passage_recall": round(statistics.mean(recalls), 3),
                         "mean_words": round(statistics.mean(words), 1)})
            print(json.dumps(rows[-1]), flush=True)
        save({"rows": rows, "latency": _latency(times), "partial": True})
    return {"rows": rows, "latency": _latency(times),
            "entities_matched_mean": round(statistics.mean(matched), 2) if matched else 0.0,
            "questions_without_entity": sum(1 for m in matched if m == 0)}


def tuning_questions(sample: int, fixed: int = 300) -> list[dict]:
    """ObliQA dev questions disjoint from the fixed sample every figure is reported on (seed 29, a quarter of
    them multi-document): what the ``entities`` variants are chosen on."""
    taken = {q["question"] for q in obliqa_questions(fixed)}
    rows = [r for r in obliqa_questions(2788) if r["question"] not in taken]
    multi = [r for r in rows if len({g["document"] for g in r["gold"]}) > 1]
    single = [r for r in rows if r not in multi]
    rng = random.Random(29)
    return rng.sample(multi, sample // 4) + rng.sample(single, sample - sample // 4)


#: (name, DENSE_POOL, SQUASH) of the ``entities`` variants compared on the tuning questions.
VARIANTS = [("entity pool, raw term", 0, False), ("entity pool, squashed term", 0, True),
            ("entity + dense pool, raw term", 3, False), ("entity + dense pool, squashed term", 3, True)]


def variants_part(sample: int) -> dict:
    """The ``entities`` variants on :func:`tuning_questions` (never on the fixed sample); the best by mean recall
    over the budgets is the one to make the default, then reported on the fixed sample by ``obliqa``."""
    from kgcore.query.methods import entities

    engine = QueryEngine(Store(STORE))
    questions = tuning_questions(sample)
    saved = entities.DENSE_POOL, entities.SQUASH
    rows = []
    try:
        for name, pool, squash in VARIANTS:
            entities.DENSE_POOL, entities.SQUASH = pool, squash
            for budget in BUDGETS:
                recalls = [passage_recall(engine.retrieve("obliqa", q["question"], RetrievalOptions(
                    method="entities", budget_words=budget)).sentences, q) for q in questions]
                rows.append({"variant": name, "budget_words": budget, "questions": len(questions),
                             "passage_recall": round(statistics.mean(recalls), 3)})
                print(json.dumps(rows[-1]), flush=True)
    finally:
        entities.DENSE_POOL, entities.SQUASH = saved
    means = {name: statistics.mean(r["passage_recall"] for r in rows if r["variant"] == name) for name, *_ in VARIANTS}
    return {"rows": rows, "mean_by_variant": {k: round(v, 3) for k, v in means.items()},
            "best": max(means, key=means.__getitem__)}


def pool_only_part(sample: int) -> dict:
    """Diagnostic, not tuning: ``entities`` on the ObliQA sample with the entity weight off (sentences ranked by
    question cosine alone inside the entity-selected pool): does the pool or the ranking lose against dense?"""
    from kgcore.query.methods import entities

    engine = QueryEngine(Store(STORE))
    questions = obliqa_questions(sample)
    saved, entities.W_ENTITY = entities.W_ENTITY, 0.0
    rows = []
    try:
        for budget in BUDGETS:
            recalls = []
            for q in questions:
                result = engine.retrieve("obliqa", q["question"], RetrievalOptions(method="entities",
                                                                                   budget_words=budget))
                recalls.append(passage_recall(result.sentences, q))
            rows.append({"method": "entities, W_ENTITY=0", "budget_words": budget, "questions": len(questions),
                         "passage_recall": round(statistics.mean(recalls), 3)})
            print(json.dumps(rows[-1]), flush=True)
    finally:
        entities.W_ENTITY = saved
    return {"rows": rows}


def qasper_part(save=lambda partial: None) -> dict:
    engine = QueryEngine(Store(STORE))
    items = qasper_cases()
    first = items[0][0]
    for method in METHODS:  # warm-up: the index, BM25 model, descriptions, entity tables
        engine.retrieve("qasper", first["question"], RetrievalOptions(method=method, budget_words=500,
                                                                      documents=(doc_id_for(first["paper"]),)))
    rows, times = [], {}
    for method in METHODS:
        for budget in BUDGETS:
            recalls = []
            for item, evidence in items:
                options = RetrievalOptions(method=method, budget_words=budget, documents=(doc_id_for(item["paper"]),))
                result = _run(engine, "qasper", item["question"], options, times)
                recalls.append(evidence_recall(result.sentences, evidence))
            rows.append({"method": method, "budget_words": budget, "questions": len(recalls),
                         "evidence_recall": round(statistics.mean(recalls), 3)})
            print(json.dumps(rows[-1]), flush=True)
        save({"rows": rows, "latency": _latency(times), "partial": True})
    return {"rows": rows, "latency": _latency(times)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="describe-obliqa,describe-papers,obliqa,qasper")
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--tuning", type=int, default=160, help="tuning questions for obliqa-variants")
    args = parser.parse_args(argv)
    out_path = RESULTS / OUT
    results = json.loads(out_path.read_text()) if out_path.exists() else {}
    def saver(part: str):
        def save(partial: dict) -> None:
            results[part] = partial
            write_json(OUT, results)
        return save

    parts = {
        "describe-obliqa": lambda: describe_part("obliqa"),
        "describe-papers": lambda: describe_part("papers"),
        "obliqa": lambda: obliqa_part(args.sample, saver("obliqa")),
        "qasper": lambda: qasper_part(saver("qasper")),
        "obliqa-pool-only": lambda: pool_only_part(args.sample),
        "obliqa-variants": lambda: variants_part(args.tuning),
    }
    for part in args.parts.split(","):
        start = time.perf_counter()
        results[part] = parts[part]()
        results[part]["part_s"] = round(time.perf_counter() - start, 1)
        results["machine"] = machine()
        write_json(OUT, results)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
