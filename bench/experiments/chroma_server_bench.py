"""Retrieval latency with Chroma embedded vs Chroma as a server, ``use_chroma=True``.

The Robinson Crusoe collection of the bench store (Peter Rabbit, indexed here, when it is missing) is copied
three times into a temporary store: one copy keeps the embedded Chroma, the other uses a real ``chroma run`` on
loopback (its Chroma copy is built there first, timed); a third copy, embedded again, shows how far two
embedded builds agree (HNSW search is approximate and its graph differs from build to build).  The same
questions are then asked of each, alternating, with GroundedKG's default options; per question it is counted
whether the matches and the sentences equal the embedded copy's.
Reported: p50/p95 of the whole retrieval (with the per-question check that the Chroma copy is current) and
of its ``match`` step (the Chroma node query).  The bench store is never changed.
Writes bench/results/chroma_server.json.
"""

from __future__ import annotations

import csv
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import CRUSOE_QA, PETER, PETER_QA, ROOT, STORE_ROOT, machine, write_json

sys.path.insert(0, str(ROOT / "tests"))
from chromakit import start_chroma  # noqa: E402 - the tests' helper: chroma run on a free loopback port
from query_bench import EXTRA_QUESTIONS, percentile  # noqa: E402

from kgcore.core.settings import RetrievalOptions
from kgcore.index.pipeline import index_file  # noqa: E402
from kgcore.index.store.chroma import ChromaServer  # noqa: E402
from kgcore.index.store.disk import Store  # noqa: E402
from kgcore.index.store.writer import ensure_chroma  # noqa: E402
from kgcore.query.engine import QueryEngine  # noqa: E402

CRUSOE = "robinson-crusoe"
ROUNDS = 2


def _stores(tmp: Path, server: ChromaServer) -> tuple[str, list[str], dict[str, Store]]:
    """(collection, questions, stores): copies of the bench collection (else Peter) with embedded Chroma, on the
    server, and a second embedded copy (how much two embedded builds agree, for comparison)."""
    stores = {"embedded": Store(tmp / "embedded", chroma="embedded"), "server": Store(tmp / "server", chroma=server),
              "embedded-2": Store(tmp / "embedded-2", chroma="embedded")}
    source = STORE_ROOT / CRUSOE
    if (source / "collection.json").is_file():
        questions = [r["question"] for r in csv.DictReader(CRUSOE_QA.open(encoding="utf-8"))] + EXTRA_QUESTIONS
        for store in stores.values():
            shutil.copytree(source, store.root / CRUSOE, ignore=shutil.ignore_patterns("chroma", "*.tmp"))
        return CRUSOE, questions, stores
    for store in stores.values():
        index_file(PETER, store, name="peter-rabbit")
    return "peter-rabbit", [r["question"] for r in csv.DictReader(PETER_QA.open(encoding="utf-8"))], stores


def _summary(values: list[float]) -> dict:
    return {"p50_ms": round(statistics.median(values), 2), "p95_ms": round(percentile(values, 0.95), 2),
            "max_ms": round(max(values), 2)}


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="kgcore-chroma-bench-") as folder:
        tmp = Path(folder)
        running = start_chroma(tmp / "chroma-db")
        try:
            name, questions, stores = _stores(tmp, ChromaServer(running.url))
            engines = {kind: QueryEngine(store) for kind, store in stores.items()}
            build = {}
            for kind, engine in engines.items():
                start = time.perf_counter()
                ensure_chroma(engine.store, name, engine.embedder)
                build[kind] = round(time.perf_counter() - start, 1)
                engine.retrieve(name, questions[0], RetrievalOptions(), use_chroma=True)  # warm-up
            rows, agreement = _measure(engines, name, questions)
            index = engines["embedded"].index(name)
        finally:
            running.stop()
    print(f"{name}: {len(questions)} questions x {ROUNDS}; identical answers: {agreement}")
    for kind, row in rows.items():
        print(f"{kind:<9} retrieve {row['retrieve']}  match step (the Chroma node query) {row['match']}")
    write_json("chroma_server.json", {
        "machine": machine(), "collection": name, "nodes": len(index.node_ids), "sentences": len(index.sentences),
        "questions": len(questions), "rounds": ROUNDS, "options": "RetrievalOptions() (groundedkg), use_chroma=True",
        "chroma_copy_build_s": build, "identical_of_questions": agreement, "results": rows,
        "server": "chroma run --path DIR --host 127.0.0.1 --port N (same machine, loopback)"})


def _measure(engines: dict[str, QueryEngine], name: str, questions: list[str]) -> tuple[dict, dict]:
    """Latencies of the embedded and server copies (alternating, so both see the same machine load) and, per
    question, whether the server's (and a second embedded build's) matches and sentences equal the embedded."""
    timed = ("embedded", "server")
    times: dict[str, dict[str, list[float]]] = {k: {"retrieve": [], "match": []} for k in timed}
    same = {"server": [0, 0], "embedded-2": [0, 0]}
    for _ in range(ROUNDS):
        for question in questions:
            seen = {}
            for kind, engine in engines.items():
                start = time.perf_counter()
                result = engine.retrieve(name, question, RetrievalOptions(), use_chroma=True)
                if kind in timed:
                    times[kind]["retrieve"].append((time.perf_counter() - start) * 1000)
                    times[kind]["match"].append(result.timings_ms.get("match", 0.0))
                seen[kind] = ([(m.query_node, m.node_id, m.score) for m in result.matches],
                              [s.id for s in result.sentences])
            for kind, counts in same.items():
                counts[0] += seen[kind][0] == seen["embedded"][0]
                counts[1] += seen[kind][1] == seen["embedded"][1]
    total = ROUNDS * len(questions)
    agreement = {f"{kind} vs embedded": {"matches": f"{m}/{total}", "sentences": f"{s}/{total}"}
                 for kind, (m, s) in same.items()}
    return {k: {step: _summary(v) for step, v in t.items()} for k, t in times.items()}, agreement


if __name__ == "__main__":
    main()
