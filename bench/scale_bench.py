"""Cost curves: index and query generated collections of growing size, and fit how each cost grows.

    nice -n 19 python bench/scale_bench.py --sizes 100 300 1000 --kind short    # ~5-sentence documents
    nice -n 19 python bench/scale_bench.py --sizes 5 20 --kind long             # ~200-sentence documents
    nice -n 19 python bench/scale_bench.py --sizes 300 --shards 2               # and both on 2 Ray actors

Each size runs in a fresh process (so its peak RSS is its own) that writes ``N`` generated documents, indexes them
into one collection with the models already loaded, then a second fresh process loads the collection and asks
it questions.  Per size: indexing wall and CPU seconds per document and per sentence, the link time, peak RSS
while indexing, the size on disk, the resident size of the loaded collection (RSS after loading it minus RSS with
only the models loaded), the load time, and retrieval p50/p95 for the default method and for dense (with
``--shards N``, also both served by N local Ray actors, :class:`~kgcore.query.sharded.ShardedEngine`: their p50/p95,
the actors' start time, whether dense gives one process's sentences, the default method's mean overlap with
one process's sentences, and each actor's resident memory after the questions, models included, with its share
of the documents, sentences and nodes).

The documents are generated (a fixed seed): biographies of invented people who meet, work with and write about
each other, in invented places, so entities recur across documents as in a real collection and every size is
available.  Generated text is plainer than real prose: parse cost per sentence is close to real, graph shapes
are more regular.  Fits: each cost against documents and against sentences, least squares over the sizes run
(``a + b*x``), and the log-log slope (1: linear growth); the extrapolation to sizes not run is labelled so.
Writes bench/results/scale_<kind>.json (merged with the sizes already there).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import RESULTS, ROOT, machine, write_json

FIRST = ("Ada Bram Cora Dov Elin Femi Gus Hana Ivo Jun Kala Lior Mina Nils Oona Pavel Quin Rosa Soren Tala Uri Vera "
         "Wen Xavi Yara Zeno").split()
SYLLABLES = "ka lo mer ten vi sha dor bel rin to gar an wes pol ul fen".split()
PLACES = ("Arden Belmont Corvo Dunmore Elsby Farrow Glenhaven Harwick Islay Jessop Kestrel Lindow Marrow Northby "
          "Orrin Pellam Quarry Rowan Selby Tarn").split()
THINGS = "map violin ledger telescope compass lantern manuscript clock seed bank bridge theorem".split()
EVENTS = "flood election harvest festival war strike eclipse fire".split()
WORKS = "canal survey atlas dictionary railway observatory museum archive".split()
TEMPLATES = (
    "{a} was born in {p} in {y}.",
    "{a} met {b} at the {w} in {p2}.",
    "{b} gave {a} a {t} before the {e}.",
    "{a} later worked with {c} on the {w} of {p}.",
    "In {y2}, {a} moved to {p2}, where {a} wrote about the {t}.",
    "{c} said that {a} had lost the {t} during the {e}.",
    "After the {e}, {a} and {b} built a {w} near {p}.",
    "{a} taught {c} how to read the {t}.",
)
QUESTIONS = ("Who gave {a} a {t}?", "Where was {a} born?", "Who worked with {a} on the {w}?",
             "What did {a} write about in {p}?", "What did {a} lose during the {e}?")


def person(rng: random.Random, people: int) -> str:
    """One of ``people`` invented names (the same index is always the same name)."""
    i = rng.randrange(people)
    mixed = (i * 2654435761) % 2 ** 32  # Knuth's multiplicative hash: neighbouring people get unlike names
    last = "".join(SYLLABLES[(mixed >> (4 * k)) % 16] for k in range(3)).capitalize()
    return f"{FIRST[i % len(FIRST)]} {last}"


def slots(rng: random.Random, people: int) -> dict[str, str]:
    return {"a": person(rng, people), "b": person(rng, people), "c": person(rng, people),
            "p": rng.choice(PLACES), "p2": rng.choice(PLACES), "t": rng.choice(THINGS), "e": rng.choice(EVENTS),
            "w": rng.choice(WORKS), "y": str(rng.randrange(1800, 1950)), "y2": str(rng.randrange(1850, 1990))}


def document(rng: random.Random, sentences: int, people: int) -> str:
    """A biography of one person in ``sentences`` sentences, paragraphs of five."""
    main = slots(rng, people)
    lines = []
    for i in range(sentences):
        fill = {**slots(rng, people), "a": main["a"]} if i % 5 else main
        lines.append(TEMPLATES[i % len(TEMPLATES)].format(**fill))
    return "\n\n".join(" ".join(lines[i:i + 5]) for i in range(0, len(lines), 5)) + "\n"


def collection(size: int, kind: str, seed: int = 7) -> list[str]:
    """``size`` documents: ``short`` ~5 sentences (a HotpotQA paragraph), ``long`` ~200 (a long chapter)."""
    rng = random.Random(seed)
    people = max(50, size * 2)  # people recur across documents at every size
    length = (lambda: rng.randint(4, 6)) if kind == "short" else (lambda: rng.randint(180, 220))
    return [document(rng, length(), people) for _ in range(size)]


def questions(count: int, seed: int = 11, people: int = 100) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(QUESTIONS).format(**slots(rng, people)) for _ in range(count)]


def rss_mb(mapped: bool = False) -> float:
    """This process's resident MB (``mapped``: only its pages of mapped files and shared memory)."""
    import psutil

    info = psutil.Process().memory_info()
    return (info.shared if mapped else info.rss) / 2 ** 20


def cpu_s() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def index_size(size: int, kind: str, store_dir: Path, workers: int = 1) -> dict:
    """In this process: write the documents, load the models, index them in ``workers`` processes (CPU counts
    theirs too); the indexing figures."""
    from kgcore.api import Job, Settings, Store, get_embedder, index_files, load_spacy

    texts = collection(size, kind)
    folder = store_dir.parent / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    jobs = []
    for i, text in enumerate(texts):
        (folder / f"doc-{i:06d}.txt").write_text(text, encoding="utf-8")
        jobs.append(Job(f"doc-{i:06d}.txt", folder / f"doc-{i:06d}.txt"))
    load_spacy()
    get_embedder()
    settings = dataclasses.replace(Settings.from_env(), max_batch=max(size, 1), max_documents=max(size, 1))
    store, before_cpu, start = Store(store_dir), cpu_s(), time.perf_counter()
    (outcome,) = index_files(jobs, store, "scale", settings=settings, workers=workers)
    wall, cpu = time.perf_counter() - start, cpu_s() - before_cpu
    if outcome.failed:
        raise SystemExit(f"size {size}: {outcome.failed[:3]}")
    again = time.perf_counter()
    index_files(jobs, store, "scale", settings=settings, workers=1)  # unchanged: every file reused
    readd = time.perf_counter() - again
    counts = outcome.collection.counts
    disk = sum(p.stat().st_size for p in store.doc_path("scale").rglob("*") if p.is_file())
    return {"documents": counts.documents, "workers": workers, "sentences": counts.sentences,
            "measured_on": f"{time.strftime('%Y-%m-%d')} {platform.platform()}",  # rows span machines
            "words": sum(len(t.split()) for t in texts),
            "nodes": counts.nodes, "edges": counts.edges, "index_wall_s": round(wall, 2), "index_cpu_s": round(cpu, 2),
            "link_s": round(outcome.collection.link_seconds, 2), "readd_unchanged_s": round(readd, 3),
            "index_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "disk_mb": round(disk / 2 ** 20, 2)}


def latency(ask, count: int) -> tuple[dict, list]:
    """p50/p95 (ms) of ``ask(question)`` over ``count`` questions, and the results."""
    times, results = [], []
    for q in questions(count):
        t = time.perf_counter()
        results.append(ask(q))
        times.append((time.perf_counter() - t) * 1000)
    return {"p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(sorted(times)[int(round(0.95 * (len(times) - 1)))], 1)}, results


def sharded_latency(store_dir: Path, count: int, shards: int, one: dict[str, list]) -> dict:
    """Dense and the default method on ``shards`` local Ray actors: p50/p95 of each, the start time, whether dense
    gives one process's sentences, and the default method's mean overlap with one process's."""
    from kgcore.api import RetrievalOptions, ShardedEngine, Store

    started, row = time.perf_counter(), {}
    with ShardedEngine(Store(store_dir), "scale", shards=shards, address="local") as sharded:
        row["start_s"] = round(time.perf_counter() - started, 1)
        row["crossing_nodes"] = sharded.crossing_nodes  # grounded in several shards' documents
        row["boundary_nodes"] = sum(len(g) for g in sharded.ghosts or [])  # heard across shards, per shard summed
        for method in ("groundedkg", "dense"):
            options = RetrievalOptions(method=method, budget_words=1000)
            sharded.retrieve("Who is Ada?", options)  # warm-up: each shard's views built on first use
            row[method], results = latency(lambda q, o=options: sharded.retrieve(q, o), count)
            pairs = list(zip(results, one[method]))
            row[method]["same_sentences_as_one_process"] = sum(
                [s.id for s in a.sentences] == [s.id for s in b.sentences] for a, b in pairs)
            if method != "dense":
                row[method]["overlap_with_one_process"] = round(statistics.mean(
                    len({s.id for s in a.sentences} & {s.id for s in b.sentences}) / max(len(b.sentences), 1)
                    for a, b in pairs), 3)
        row["actors"] = sharded.memory()  # each actor's resident MB (models included) and its share
    return row


def query_size(store_dir: Path, count: int, shards: int = 0) -> dict:
    """In this process: load the models, then the collection; its resident size, load time and latencies."""
    import gc

    from kgcore.api import QueryEngine, RetrievalOptions, Store, get_embedder, load_spacy

    load_spacy()
    get_embedder().encode(["warm up the encoder"])
    gc.collect()
    engine, models_rss, models_mapped = QueryEngine(Store(store_dir)), rss_mb(), rss_mb(mapped=True)
    start = time.perf_counter()
    index = engine.index("scale")
    load_s = time.perf_counter() - start
    index.node_vectors.sum(), index.sentence_vectors.sum()  # every mapped page touched, as questions touch them
    gc.collect()
    row = {"load_s": round(load_s, 3), "models_rss_mb": round(models_rss, 1), "asked_at": _head(),
           "loaded_collection_rss_mb": round(rss_mb() - models_rss, 1),
           "loaded_collection_mapped_mb": round(rss_mb(mapped=True) - models_mapped, 1)}
    results: dict[str, list] = {}
    for method in ("groundedkg", "dense"):
        options = RetrievalOptions(method=method, budget_words=1000)
        engine.retrieve("scale", "Who is Ada?", options)  # warm-up: the views built on first use
        row[method], results[method] = latency(lambda q, o=options: engine.retrieve("scale", q, o), count)
    row["after_queries_rss_mb"] = round(rss_mb() - models_rss, 1)
    row["after_queries_mapped_mb"] = round(rss_mb(mapped=True) - models_mapped, 1)  # vectors, sentence table
    if shards:  # the one process's collection let go first: a large one and its shards need not fit together
        del engine, index
        gc.collect()
        row[f"on_{shards}_ray_actors"] = sharded_latency(store_dir, count, shards, results)
    return row


def _head() -> str:
    """The commit the collection is loaded and asked with (a kept index may be older than its latest asking)."""
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT,
                          check=False)
    changed = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "kgcore"], cwd=ROOT, check=False).returncode
    return (done.stdout.strip() or "unknown") + ("+changes" if changed else "")


def run_size(size: int, kind: str, count: int, shards: int = 0, keep: Path | None = None, workers: int = 1) -> dict:
    """One size, each half in its own process.  With ``keep``, the store is kept in ``keep/<kind>-<size>`` and a
    kept index (``index.json`` beside it) is reused: a long run whose query half failed is asked again without
    indexing again."""
    with tempfile.TemporaryDirectory(prefix=f"scale-{kind}-{size}-") as tmp:
        work = keep / f"{kind}-{size}" if keep else Path(tmp)
        store, saved = work / "store", work / "index.json"
        if saved.exists():
            row = json.loads(saved.read_text())
        else:
            shutil.rmtree(store, ignore_errors=True)  # a kept store whose indexing never finished is not reused
            row = _child(["--index", str(size), "--kind", kind, "--store", str(store), "--workers", str(workers)])
            if keep:
                saved.write_text(json.dumps(row))
        row.update(_child(["--query", str(count), "--store", str(store), "--shards", str(shards)]))
    print(json.dumps(row), flush=True)
    return row


def _child(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode:
        raise SystemExit(f"{args}: exit {done.returncode}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


#: The costs fitted, each against documents and sentences.
FITTED = ("index_wall_s", "index_cpu_s", "link_s", "readd_unchanged_s", "index_peak_rss_mb", "disk_mb",
          "loaded_collection_rss_mb", "after_queries_rss_mb", "load_s")


def fit(rows: list[dict], targets: tuple[int, ...] = (1_000, 6_000, 30_000, 100_000)) -> dict:
    """Per cost: ``a + b*x`` against documents and sentences, the log-log slope, and the extrapolated values."""
    if len({r["documents"] for r in rows}) < 2:
        return {}
    docs = np.array([r["documents"] for r in rows], float)
    sents_per_doc = float(sum(r["sentences"] for r in rows) / docs.sum())
    out: dict = {"sentences_per_document": round(sents_per_doc, 2), "extrapolated_to_documents": list(targets)}
    for key in FITTED:
        y = np.array([r[key] for r in rows], float)
        per_doc, base = np.polyfit(docs, y, 1)
        per_sent = np.polyfit(np.array([r["sentences"] for r in rows], float), y, 1)[0]
        slope = np.polyfit(np.log(docs), np.log(np.maximum(y, 1e-6)), 1)[0]
        out[key] = {"per_document": float(f"{per_doc:.4g}"), "per_sentence": float(f"{per_sent:.4g}"),
                    "intercept": float(f"{base:.4g}"), "loglog_slope": round(float(slope), 2),
                    "extrapolated": [round(float(base + per_doc * n), 1) for n in targets]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 300, 1000], help="documents per collection")
    parser.add_argument("--kind", choices=("short", "long"), default="short")
    parser.add_argument("--questions", type=int, default=30, help="questions per method")
    parser.add_argument("--shards", type=int, default=0,
                        help="also time dense and the default method on this many local Ray actors")
    parser.add_argument("--keep", type=Path,
                        help="keep each size's store in this folder and reuse a kept index on a rerun")
    parser.add_argument("--workers", type=int, default=1,
                        help="index in this many processes (wall time falls, CPU per document stays; a row says)")
    parser.add_argument("--index", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--query", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.index:
        print(json.dumps(index_size(args.index, args.kind, args.store, args.workers)))
        return
    if args.query:
        print(json.dumps(query_size(args.store, args.query, args.shards)))
        return
    name = f"scale_{args.kind}.json"
    old = json.loads((RESULTS / name).read_text()) if (RESULTS / name).exists() else {}
    rows = {r["documents"]: r for r in old.get("rows", [])}
    for size in args.sizes:  # written after every size: a long run stopped early keeps what it measured
        reused = bool(args.keep and (args.keep / f"{args.kind}-{size}" / "index.json").exists())
        row = run_size(size, args.kind, args.questions, args.shards, args.keep, args.workers)
        # a kept index asked again (another --shards) adds its figures to the size's row; a new index replaces it
        rows[size] = {**rows.get(size, {}), **row} if reused else row
        ordered = [rows[k] for k in sorted(rows)]
        write_json(name, {"machine": machine(), "kind": args.kind, "nice": os.nice(0), "rows": ordered,
                          "fit": fit(ordered)}, one_line="rows")
    print(json.dumps(fit(ordered), indent=1))


if __name__ == "__main__":
    main()
