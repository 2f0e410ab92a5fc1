"""Indexing benchmark: Peter Rabbit and Robinson Crusoe, per-stage wall seconds and peak RSS.

Targets (2-core machine): Robinson Crusoe <= 180 s wall and peak RSS <= 2.5 GB;
Peter Rabbit <= 10 s once models are loaded.  Each book is indexed in a fresh
subprocess so peak RSS is that book's alone.  Writes bench/results/index.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from common import PETER, STORE_ROOT, crusoe_path, machine, write_json

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from kgcore.core.embed import get_embedder
from kgcore.core.nlp import load_spacy
from kgcore.index.pipeline import index_file
from kgcore.index.store.disk import Store
t0 = time.perf_counter()
load_spacy(); get_embedder()
models_s = time.perf_counter() - t0
t1 = time.perf_counter()
m = index_file(sys.argv[2], Store(sys.argv[3]), name=sys.argv[4], force=True).manifest.to_dict()
wall = time.perf_counter() - t1
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"doc_id": m["doc_id"], "counts": m["counts"], "stages_s": m["timings_s"],
                  "wall_s": round(wall, 2), "model_load_s": round(models_s, 2), "peak_rss_mb": round(rss, 1)}))
"""


def bench_one(path, doc_id: str) -> dict:
    from common import ROOT

    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(path), str(STORE_ROOT), doc_id],
                         capture_output=True, text=True, check=True)
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["process_wall_s"] = round(time.perf_counter() - start, 2)
    return row


def main() -> None:
    rows = [bench_one(PETER, "peter-rabbit"), bench_one(crusoe_path(), "robinson-crusoe")]
    targets = {"robinson-crusoe": {"wall_s": 180, "peak_rss_mb": 2560}, "peter-rabbit": {"wall_s": 10}}
    for r in rows:
        t = targets[r["doc_id"]]
        r["meets_targets"] = r["wall_s"] <= t["wall_s"] and r["peak_rss_mb"] <= t.get("peak_rss_mb", 1e9)
        c = r["counts"]
        print(f"{r['doc_id']:<16} sentences={c['sentences']:>5} nodes={c['nodes']:>6} edges={c['edges']:>6} "
              f"wall={r['wall_s']:>6.1f}s rss={r['peak_rss_mb']:>7.0f}MB stages={r['stages_s']}")
    write_json("index.json", {"machine": machine(), "targets": targets, "books": rows})


if __name__ == "__main__":
    main()
