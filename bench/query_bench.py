"""Query latency benchmark on the Robinson Crusoe index and the ObliQA collection: p50/p95 retrieval per method,
and memory.

The fused GroundedKG ranking parses its first 200 candidates to find the kind of answer the question asks for
(:mod:`kgcore.query.asked_kind`).  The methods are timed after the store's parse file is filled, as the app fills
it while the analyst types (``QueryEngine.store_parses``); ``groundedkg-cold`` times GroundedKG first, with no
parse file and nothing parsed in memory (a first question on a collection nobody prepared), without a target.

Crusoe: 50 questions (the 15 of bench/data/robinson_crusoe_qa.csv plus 35 more below), models
warm (one warm-up question per method first), answer generation excluded.  The methods run one after another
on the same questions, so every method after the first finds their vectors in the cache of encoded strings.
Targets: GroundedKG (fused ranking) p50 <= 100 ms, p95 <= 250 ms; the graph-score ranking p50 <= 150 ms,
p95 <= 400 ms; dense/bm25 p50 <= 50 ms.
ObliQA (40 rulebooks, 124k graph nodes): GroundedKG's fused ranking on 150 questions of the collections
benchmark's dev sample, each asked once (so none is answered from the cache of encoded strings), same target.
Needs the collection in bench/stores/collections (``python bench/collections_bench.py --parts obliqa``); skipped
with a note without it.
Writes bench/results/query.json.
"""

from __future__ import annotations

import csv
import dataclasses
import resource
import statistics
import time

from collections_bench import STORE as COLLECTIONS
from collections_bench import obliqa_questions
from common import CRUSOE_QA, STORE_ROOT, crusoe_path, machine, write_json

from kgcore.api import QueryEngine, RetrievalOptions, Store, index_file, shared_cache

EXTRA_QUESTIONS = """Why did Crusoe leave his father's house?
What did his father advise him?
Where did Crusoe first go to sea from?
What happened to the first ship in the storm?
How did Crusoe escape from slavery in Sallee?
Who helped Crusoe in the Brazils?
What did Crusoe plant in the Brazils?
Why did Crusoe sail for Guinea the second time?
How did Crusoe get to the island?
What did Crusoe take from the wreck?
How did Crusoe build his raft?
Where did Crusoe build his dwelling?
How did Crusoe make a fence around his tent?
What animals did Crusoe find on the island?
How did Crusoe tame the goats?
What did Crusoe do when he was sick with fever?
Why did Crusoe begin to read the Bible?
How did Crusoe make bread?
How did Crusoe make pots?
Why could Crusoe not launch his first canoe?
What did Crusoe see from the hill?
What did the savages do on the shore?
How many savages came in the canoes?
How did Crusoe rescue Friday?
What did Friday think of the gun?
What did Crusoe teach Friday?
Where did Friday come from?
Who was Friday's father?
How did Crusoe free the Spaniard?
Who landed on the island in the English ship's boat?
How did Crusoe help the captain retake the ship?
What happened to the mutineers?
When did Crusoe leave the island?
What did Crusoe find when he returned to England?
What happened to his plantation in Brazil?""".splitlines()
#: Name -> options: GroundedKG (fused ranking, the default), its earlier graph-score ranking, LeSeGR, baselines.
METHODS = {"groundedkg": {"method": "groundedkg"}, "groundedkg-graph-score": {"method": "groundedkg",
                                                                               "ranking": "graph-score"},
           "lesegr": {"method": "lesegr"}, "dense": {"method": "dense"}, "bm25": {"method": "bm25"},
           "hybrid": {"method": "hybrid"}}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    store = Store(STORE_ROOT)
    index_file(crusoe_path(), store, name="robinson-crusoe")
    engine = QueryEngine(store)
    questions = [r["question"] for r in csv.DictReader(CRUSOE_QA.open(encoding="utf-8"))] + EXTRA_QUESTIONS
    rows = {"groundedkg-cold": cold(engine, questions)}
    engine.store_parses("robinson-crusoe")  # as the app does while the analyst types (a no-op once filled)
    shared_cache(engine.generator("extractive").nlp).clear()  # read back from the file, not from memory
    for method, variant in METHODS.items():
        options = RetrievalOptions(budget_words=1000, **variant)
        engine.retrieve("robinson-crusoe", questions[0], options)  # warm-up: index caches, BM25 model
        rows[method] = timed(engine, "robinson-crusoe", questions, options, method)
    obliqa = obliqa_latency()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss:.0f} MB")
    targets = {"groundedkg": {"p50_ms": 100, "p95_ms": 250}, "groundedkg-graph-score": {"p50_ms": 150, "p95_ms": 400},
               "dense": {"p50_ms": 50}, "bm25": {"p50_ms": 50}}
    met = {m: all(rows[m][k] <= v for k, v in t.items()) for m, t in targets.items()}
    if obliqa:
        met["obliqa-groundedkg"] = all(obliqa[k] <= v for k, v in targets["groundedkg"].items())
    write_json("query.json", {"machine": machine(), "targets": targets, "meets_targets": met, "methods": rows,
                              "obliqa": obliqa, "peak_rss_mb": round(rss, 1)})


def cold(engine: QueryEngine, questions: list[str]) -> dict:
    """GroundedKG before any sentence is parsed: no parse file, nothing in memory.  The fused ranking parses its
    first 200 candidates to find the asked kind (:mod:`kgcore.query.asked_kind`), so a first question on a
    collection nobody has prepared pays for parsing them; the app fills the parse file ahead of the questions."""
    unstored = QueryEngine(engine.store, dataclasses.replace(engine.settings, parse_store="off"))
    options = RetrievalOptions(budget_words=1000)
    unstored.retrieve("robinson-crusoe", "Who is Friday?", options)  # warm-up: models, index caches, BM25
    shared_cache(engine.generator("extractive").nlp).clear()  # the pipeline retrieval parses with too
    return timed(unstored, "robinson-crusoe", questions, options, "cold")


def obliqa_latency(count: int = 150) -> dict:
    """GroundedKG (fused, 1,000 words) on the ObliQA collection: p50/p95 and the median of each step."""
    store = Store(COLLECTIONS)
    if not store.exists("obliqa"):
        print(f"ObliQA latency skipped: no collection 'obliqa' in {COLLECTIONS} "
              "(python bench/collections_bench.py --parts obliqa builds it)")
        return {}
    engine = QueryEngine(store)
    questions = [q["question"] for q in obliqa_questions(300)]
    options = RetrievalOptions(budget_words=1000)
    engine.retrieve("obliqa", questions[-1], options)  # warm-up on a question not timed: index caches, BM25 model
    return timed(engine, "obliqa", questions[:count], options, "obliqa groundedkg")


def timed(engine: QueryEngine, name: str, questions: list[str], options: RetrievalOptions, label: str) -> dict:
    """Retrieval of each question once: p50 / p95 / max and the median of each step (printed under ``label``)."""
    latencies, steps = [], {"parse": [], "embed": [], "match": [], "select": []}
    for q in questions:
        start = time.perf_counter()
        result = engine.retrieve(name, q, options)
        latencies.append((time.perf_counter() - start) * 1000)
        for k in steps:
            steps[k].append(result.timings_ms.get(k, 0.0))
    row = {"questions": len(latencies), "p50_ms": round(statistics.median(latencies), 1),
           "p95_ms": round(percentile(latencies, 0.95), 1), "max_ms": round(max(latencies), 1),
           "p50_step_ms": {k: round(statistics.median(v), 1) for k, v in steps.items()}}
    print(f"{label:<11} p50={row['p50_ms']:7.1f} ms  p95={row['p95_ms']:7.1f} ms  steps={row['p50_step_ms']}")
    return row

if __name__ == "__main__":
    main()
