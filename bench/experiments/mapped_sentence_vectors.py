"""Does mapping a collection's sentence vectors from one file shrink what a loaded collection holds in its own
memory, and does it cost load time or query latency?

    nice -n 19 python bench/experiments/mapped_sentence_vectors.py --store bench/stores/papers24 --collection papers

Copies the store twice into a scratch folder.  ``copied``: loaded while this script holds the collection's writer
lock, so it loads as a collection committed before the file existed (each document's vectors read and
concatenated into the process, as every load did before).  ``mapped``: its first load writes the file
(:mod:`kgcore.index.store.sentence_matrix`, done once before timing) and every load maps it.  Rounds alternate
copied, mapped, copied ...; each side of a round is a fresh process that loads spaCy and the embedder, then the
collection through a :class:`QueryEngine`: the load time, the growth of its resident memory (every vector page
touched, as a question touches them), split into the process's own pages and pages of mapped files, then p50/p95
of ``groundedkg`` and ``dense`` at 1,000 words over the questions of ``bench/data/papers_qa.csv`` (their text only:
a timing set) after one warm-up question each, and the resident growth after them.  Figures are medians over
rounds; ``same_sentences`` says whether both sides selected the same sentences with the same scores.
Writes bench/results/mapped_sentence_vectors.json.

``--in-process`` (merged into the same file as ``in_process``) times latency without the noise of separate
processes on a shared machine: one process loads the mapped collection and, alternating per question, answers
with the arrays every load gave before (node vectors a ``np.memmap``, sentence vectors a copy) and with the ones it
gives now (both plain arrays over the mapped files: :func:`~kgcore.index.store.integrity.map_npy`).
"""

from __future__ import annotations

import argparse
import csv
import gc
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "mapped_sentence_vectors.json"
METHODS = ("groundedkg", "dense")


def rss_mb() -> tuple[float, float]:
    """This process's resident MB, and the part of it in pages of files or shared memory."""
    import psutil

    info = psutil.Process().memory_info()
    return info.rss / 2 ** 20, info.shared / 2 ** 20


def questions(count: int) -> list[str]:
    with (ROOT / "bench" / "data" / "papers_qa.csv").open(encoding="utf-8") as fh:
        return [row["question"] for row in csv.DictReader(fh)][:count]


def measure(store: Path, collection: str, count: int) -> dict:
    """In this process: models, then the collection; its memory, load time, latencies and selections."""
    from kgcore.api import QueryEngine, RetrievalOptions, Store, get_embedder, load_spacy
    from kgcore.index.store.integrity import mapped_file

    load_spacy()
    get_embedder().encode(["warm up the encoder"])
    gc.collect()
    engine, (rss, shared) = QueryEngine(Store(store)), rss_mb()
    start = time.perf_counter()
    index = engine.index(collection)
    load_s = time.perf_counter() - start
    index.node_vectors.sum(), index.sentence_vectors.sum()  # every vector page touched, as questions touch them
    gc.collect()
    after, after_shared = rss_mb()
    row = {"mapped": mapped_file(index.sentence_vectors) is not None, "load_s": round(load_s, 3),
           "resident_mb": round(after - rss, 1), "mapped_files_mb": round(after_shared - shared, 1),
           "own_mb": round((after - rss) - (after_shared - shared), 1), "selected": {}}
    for method in METHODS:
        options = RetrievalOptions(method=method, budget_words=1000)
        engine.retrieve(collection, "What is retrieval-augmented generation?", options)  # views built on first use
        times, selected = [], []
        for q in questions(count):
            t = time.perf_counter()
            result = engine.retrieve(collection, q, options)
            times.append((time.perf_counter() - t) * 1000)
            selected.append([(s.id, round(float(s.score), 6)) for s in result.sentences])
        row[method] = {"p50_ms": round(statistics.median(times), 1),
                       "p95_ms": round(sorted(times)[round(0.95 * (len(times) - 1))], 1)}
        row["selected"][method] = selected
    row["after_queries_resident_mb"] = round(rss_mb()[0] - rss, 1)
    return row


def in_process(source: Path, collection: str, count: int) -> dict:
    """p50/p95 of both methods with the arrays of before and of now, alternating per question in this process."""
    sys.path.insert(0, str(ROOT))
    from kgcore.api import QueryEngine, RetrievalOptions, Store, get_embedder, load_spacy

    load_spacy()
    get_embedder().encode(["warm up the encoder"])
    with tempfile.TemporaryDirectory(prefix="mapped-vectors-") as tmp:
        shutil.copytree(source, Path(tmp) / "store", symlinks=True)
        engine = QueryEngine(Store(Path(tmp) / "store"))
        index = engine.index(collection)
        before = (np.load(index.path / f"linked-{index.manifest.generation}" / "node_vectors.npy", mmap_mode="r"),
                  np.array(index.sentence_vectors))
        sides, out = {"before": before, "now": (index.node_vectors, index.sentence_vectors)}, {}
        for method in METHODS:
            options = RetrievalOptions(method=method, budget_words=1000)
            engine.retrieve(collection, "What is retrieval-augmented generation?", options)
            times: dict[str, list[float]] = {side: [] for side in sides}
            same = True
            for q in questions(count):
                got = {}
                for side, (index.node_vectors, index.sentence_vectors) in sides.items():
                    t = time.perf_counter()
                    got[side] = [(s.id, s.score) for s in engine.retrieve(collection, q, options).sentences]
                    times[side].append((time.perf_counter() - t) * 1000)
                same &= got["before"] == got["now"]
            out[method] = {side: {"p50_ms": round(statistics.median(t), 1),
                                  "p95_ms": round(sorted(t)[round(0.95 * (len(t) - 1))], 1)}
                           for side, t in times.items()}
            out[method]["same_sentences"] = same
    return out


def child(store: Path, collection: str, count: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(store), "--collection", collection,
                          "--questions", str(count)], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(source: Path, collection: str, rounds: int, count: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from kgcore.index.store.locks import collection_lock

    with tempfile.TemporaryDirectory(prefix="mapped-vectors-") as tmp:
        stores = {side: Path(tmp) / side for side in ("copied", "mapped")}
        for folder in stores.values():
            shutil.copytree(source, folder, symlinks=True)
        from kgcore.api import Store

        Store(stores["mapped"]).load(collection)  # its first load writes the file
        rows: dict[str, list[dict]] = {"copied": [], "mapped": []}
        with collection_lock(stores["copied"], collection):  # a writer holds it: loads as before the file existed
            for r in range(rounds):
                for side in ("copied", "mapped"):
                    rows[side].append(child(stores[side], collection, count))
                    print(side, r, {k: v for k, v in rows[side][-1].items() if k != "selected"}, flush=True)
    return summary(rows)


def summary(rows: dict[str, list[dict]]) -> dict:
    out: dict = {}
    for side, runs in rows.items():
        assert all(r["mapped"] == (side == "mapped") for r in runs), side
        out[side] = {key: statistics.median(r[key] for r in runs)
                     for key in ("load_s", "resident_mb", "own_mb", "mapped_files_mb", "after_queries_resident_mb")}
        for method in METHODS:
            out[side][method] = {k: statistics.median(r[method][k] for r in runs) for k in ("p50_ms", "p95_ms")}
    out["same_sentences"] = {m: all(a["selected"][m] == b["selected"][m] for a, b in zip(rows["copied"],
                                                                                         rows["mapped"]))
                             for m in METHODS}
    out["rounds"] = len(rows["copied"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=ROOT / "bench" / "stores" / "papers24")
    parser.add_argument("--collection", default="papers")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--in-process", action="store_true", help="only the in-process latency comparison")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.in_process:
        result = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
        result["in_process"] = {"questions": args.questions,
                                **in_process(args.store, args.collection, args.questions)}
        RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(result["in_process"], indent=1))
        return
    if args.child:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(measure(args.child, args.collection, args.questions)))
        return
    result = {"store": args.store.name, "collection": args.collection, "questions": args.questions,
              **run(args.store, args.collection, args.rounds, args.questions)}
    RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
