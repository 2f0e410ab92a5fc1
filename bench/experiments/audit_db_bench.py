"""Audit database on SQLite vs PostgreSQL: label-write throughput and lost labels with 4
concurrent writer processes.

Each run starts from a new, empty audit database holding ``--records`` audit records (from ``tests/auditkit.py``)
and two registered reviewers.  ``--writers`` processes (4) start together (a barrier, after their imports and
first connection) and each writes ``--labels`` labels through the public API (``AuditDB.add_label``: checks,
reviewer registry, one write transaction per label), cycling over the records; each label's note names its
writer and number.  Measured: wall seconds from the barrier until the last writer finishes, labels stored per
second, per-label latency (median and 95th percentile over all writers), and **lost labels**: labels whose
``add_label`` returned an id but which are not in the database afterwards, plus labels that failed with an error
(both must be 0).  Every figure is the median of ``--runs`` (3) runs.

Backends (every write is one transaction, one writer at a time on both, see ``kgcore/audit/backend.py``):

* ``sqlite``: the default ``<store>/audit.sqlite`` (WAL, ``synchronous=NORMAL``: a commit is not flushed to
  disk until a checkpoint; safe against a crashed process, not against a power cut).
* ``postgresql``: a local PostgreSQL server (a throwaway cluster from ``tests/pgkit.py`` on 127.0.0.1, its
  default durable settings: ``fsync=on``, ``synchronous_commit=on``), over TCP with a password.
* ``postgresql-async-commit``: the same server, the database set to ``synchronous_commit=off`` (the same
  durability class as SQLite's ``synchronous=NORMAL``).

Writes bench/results/audit_db.json.  Needs the PostgreSQL server binaries (Debian's ``postgresql``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import ROOT, machine, write_json

sys.path.insert(0, str(ROOT / "tests"))

import pgkit  # noqa: E402
from auditkit import add_records  # noqa: E402

from kgcore.audit import AuditDB  # noqa: E402

BACKENDS = ("sqlite", "postgresql", "postgresql-async-commit")
REVIEWERS = ("Ada", "Bob")


def writer(location: str, number: int, labels: int, records: list[int], barrier, results) -> None:
    """One writer process: connect, wait for the others, write ``labels`` labels; report ids, latencies, errors."""
    db = AuditDB(location)
    db.query("SELECT 1")  # connected (PostgreSQL: a pooled connection) before the clock starts
    barrier.wait()
    ids, latencies, errors = {}, [], []
    for i in range(labels):
        note = f"writer {number} label {i}"
        started = time.perf_counter()
        try:
            ids[note] = db.add_label(records[i % len(records)], "II", note=note, author=REVIEWERS[number % 2])
        except Exception as exc:  # counted, never hidden: a failed write is a lost label
            errors.append(f"{type(exc).__name__}: {exc}")
        latencies.append(time.perf_counter() - started)
    results.put({"writer": number, "ids": ids, "latencies": latencies, "errors": errors[:5],
                 "error_count": len(errors), "done": time.perf_counter()})


def one_run(location: str, writers: int, labels: int, records: int) -> dict:
    db = AuditDB(location)
    for name in REVIEWERS:
        db.add_reviewer(name)
    record_ids = add_records(db, records)
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(writers + 1), ctx.Queue()
    procs = [ctx.Process(target=writer, args=(location, n, labels, record_ids, barrier, results))
             for n in range(writers)]
    for p in procs:
        p.start()
    barrier.wait(timeout=120)
    started = time.perf_counter()
    reports = [results.get(timeout=600) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    wall = max(r["done"] for r in reports) - started
    acknowledged = {note: i for r in reports for note, i in r["ids"].items()}
    stored = {row["note"]: row["id"] for row in db.query("SELECT id, note FROM labels")}
    lost = [note for note, i in acknowledged.items() if stored.get(note) != i]
    failed = sum(r["error_count"] for r in reports)
    latencies = sorted(x for r in reports for x in r["latencies"])
    db.close()
    return {"wall_s": round(wall, 3), "labels_stored": len(stored), "labels_per_s": round(len(stored) / wall, 1),
            "latency_ms_p50": round(1000 * statistics.median(latencies), 2),
            "latency_ms_p95": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 2),
            "lost_labels": len(lost) + failed, "acknowledged_not_stored": len(lost), "failed_writes": failed,
            "errors": [e for r in reports for e in r["errors"]][:5],
            "exit_codes": [p.exitcode for p in procs]}


def location_for(backend: str, run: int, folder: Path, cluster: pgkit.Cluster | None) -> str:
    if backend == "sqlite":
        return str(folder / f"run-{run}" / "audit.sqlite")
    assert cluster is not None
    url = cluster.create_database()
    if backend == "postgresql-async-commit":
        cluster.sql(f'ALTER DATABASE "{url.rsplit("/", 1)[1]}" SET synchronous_commit = off')
    return url


def median_row(backend: str, runs: list[dict]) -> dict:
    keys = ("wall_s", "labels_per_s", "latency_ms_p50", "latency_ms_p95")
    return {"backend": backend, **{k: round(statistics.median(r[k] for r in runs), 3) for k in keys},
            "lost_labels": sum(r["lost_labels"] for r in runs), "labels_stored_per_run": runs[0]["labels_stored"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--labels", type=int, default=500, help="labels per writer per run")
    parser.add_argument("--records", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if reason := pgkit.unavailable():
        sys.exit(f"cannot run the PostgreSQL half: {reason}")
    cluster = pgkit.start_cluster(fast=False)  # the server's own durable defaults
    load_before = os.getloadavg()
    results: dict[str, list[dict]] = {b: [] for b in BACKENDS}
    try:
        server_version = cluster.sql("SHOW server_version")[0][0]
        with tempfile.TemporaryDirectory(prefix="audit-bench-") as folder:
            for run in range(args.runs):
                for backend in BACKENDS:  # interleaved: drift on the machine hits every backend alike
                    location = location_for(backend, run, Path(folder), cluster)
                    results[backend].append(one_run(location, args.writers, args.labels, args.records))
                    print(backend, run, results[backend][-1], flush=True)
    finally:
        cluster.stop()
    write_json("audit_db.json", {
        "machine": machine(), "postgresql": server_version, "writers": args.writers,
        "labels_per_writer": args.labels, "records": args.records, "runs": args.runs,
        "load_average_1m_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        "table": [median_row(b, results[b]) for b in BACKENDS], "all_runs": results,
    })


if __name__ == "__main__":
    main()
