"""Indexing the RAG papers locally (worker processes) against a local Ray (Ray workers), and a projection for
10,000 papers on a real cluster.

    python bench/ray_bench.py              # the 24 papers each way (15-25 min each on 2 cores)
    python bench/ray_bench.py --limit 4    # 4 papers spread over the word counts (shortest to longest), each way

Each way indexes the same papers into a new collection in a fresh process (models loaded inside the timing, as
a user's ``python -m kgcore index ... [--ray]`` does): ``local`` with ``--workers`` spawned processes, ``ray``
with a Ray started on this machine with as many CPUs, one Ray worker per CPU.  Both collections must come out
with the same counts.  Writes bench/results/ray.json.

The projection: a Ray worker's measured seconds per word (its busy seconds over the words it built, models
already loaded) times the 24 papers' mean words is one paper's cost on one CPU; 10,000 of them over W workers,
plus the serial part measured on the driver (receiving and writing each shard; linking the collection, which
runs once, on the driver, and is extrapolated linearly from this run: a lower bound).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from common import ROOT, machine, write_json

PAPERS = ROOT.parent / "shared" / "data" / "papers"
TARGET = 10_000
CLUSTER_WORKERS = (2, 16, 64, 256)


def pick(limit: int) -> list[Path]:
    """``limit`` papers evenly spread over the word counts (all of them without a limit)."""
    inventory = sorted(json.loads((PAPERS / "inventory.json").read_text()), key=lambda r: r["words"])
    if limit and limit < len(inventory):
        step = (len(inventory) - 1) / max(limit - 1, 1)
        inventory = [inventory[round(i * step)] for i in range(limit)]
    return [PAPERS / row["file"] for row in inventory]


def child(mode: str, store_root: Path, files: list[Path], workers: int) -> dict:
    """Index ``files`` one way; the timings, the collection's counts, and (Ray) what each worker did."""
    from kgcore.api import Job, RayRunner, Store, index_files

    stores: dict[str, list[float]] = {}  # when each shard's "store" stage (Ray: written by the driver) began, ended

    def progress(doc: str, stage: str, done: int, total: int) -> None:
        if stage == "store":
            stores.setdefault(doc, []).append(time.perf_counter())

    jobs, store = [Job(p.name, p) for p in files], Store(store_root)
    started, extra = time.perf_counter(), {}
    if mode == "local":
        (outcome,) = index_files(jobs, store, "papers", workers=workers, progress=progress)
    else:
        with RayRunner(workers=workers) as runner:
            runner.start()
            extra["ray_start_s"] = round(time.perf_counter() - started, 2)
            (outcome,) = index_files(jobs, store, "papers", workers=workers, progress=progress, runner=runner)
            extra["workers"] = [asdict(w) for w in runner.workers_info()]
    wall = time.perf_counter() - started
    c = outcome.collection.counts
    shards = sum(p.stat().st_size for p in (store.doc_path("papers") / "documents").rglob("*") if p.is_file())
    return {"mode": mode, "workers": workers, "documents": c.documents, "failed": [list(f) for f in outcome.failed],
            "words": c.words, "sentences": c.sentences, "nodes": c.nodes, "edges": c.edges, "wall_s": round(wall, 1),
            "link_s": outcome.collection.link_seconds, "driver_store_s": round(sum(t[-1] - t[0] for t in stores.values()
                                                                                   if len(t) > 1), 2),
            "document_s": {m.doc_id: m.seconds for m in outcome.added}, "shard_mb": round(shards / 2**20, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), **extra}


def run_mode(mode: str, files: list[Path], workers: int) -> dict:
    """One way in a fresh process, with the machine's load average before and after (others' work inflates it)."""
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix=f"ray-bench-{mode}-") as folder:
        out = subprocess.run([sys.executable, __file__, "--child", mode, "--store", folder, "--workers", str(workers),
                              *map(str, files)], capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{mode} run failed:\n{out.stderr[-3000:]}")
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["load_average_1min"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    print(json.dumps({k: v for k, v in row.items() if k not in ("document_s", "workers")}), flush=True)
    return row


def projection(ray: dict) -> dict:
    """10,000 papers of the 24 papers' mean length on W Ray workers of one CPU each (see the module docstring)."""
    words = [r["words"] for r in json.loads((PAPERS / "inventory.json").read_text())]
    mean_words = sum(words) / len(words)
    busy = sum(w["busy_s"] for w in ray["workers"])
    s_per_paper = busy / ray["words"] * mean_words
    serial_per_paper = (ray["driver_store_s"] + ray["link_s"]) / ray["documents"]
    rows = []
    for w in CLUSTER_WORKERS:
        parallel = TARGET * s_per_paper / w
        load = max(x["load_s"] for x in ray["workers"])
        total = load + parallel + TARGET * serial_per_paper
        rows.append({"workers": w, "build_s": round(parallel), "serial_s": round(TARGET * serial_per_paper),
                     "total_h": round(total / 3600, 2), "papers_per_hour": round(TARGET / total * 3600)})
    return {"papers": TARGET, "mean_words_per_paper": round(mean_words), "measured_words": ray["words"],
            "worker_s_per_paper": round(s_per_paper, 2), "worker_papers_per_hour": round(3600 / s_per_paper, 1),
            "driver_serial_s_per_paper": round(serial_per_paper, 3), "by_workers": rows,
            "note": "serial part (shard receive/write and linking on the driver) extrapolated linearly from this "
                    "run: a lower bound for linking, whose cost grows with the collection"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="index this many papers (default: all 24)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes / Ray CPUs (default: 2)")
    parser.add_argument("--child", choices=("local", "ray"), help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, Path(args.store), [Path(f) for f in args.files], args.workers)))
        return
    files = pick(args.limit)
    local, ray = run_mode("local", files, args.workers), run_mode("ray", files, args.workers)
    same = all(local[k] == ray[k] for k in ("documents", "words", "sentences", "nodes", "edges"))
    result = {"machine": machine(), "papers": [f.name for f in files], "local": local, "ray": ray,
              "same_collection_counts": same, "ray_over_local": round(ray["wall_s"] / local["wall_s"], 3),
              "projection": projection(ray),
              "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    write_json("ray.json", result)
    print(json.dumps(result["projection"], indent=1))


if __name__ == "__main__":
    main()
