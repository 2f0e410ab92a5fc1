"""The indexing pool's own cost: what handing out and watching N documents costs the parent process.

    python bench/experiments/pool_overhead.py                      # 1,000 / 5,000 / 20,000 jobs on 2 workers
    python bench/experiments/pool_overhead.py --jobs 100000

Each job is a document whose build does nothing (it reports one stage and returns), so the figures are the pool's
alone (:mod:`kgcore.index.document_pool`): the parent's CPU seconds and the wall time, per job.  The parent should
cost the same per job at every size; it once went over every pending job at each look at the workers, which at
100,000 real documents took 44 of the run's 150 CPU-minutes.  Writes bench/results/pool_overhead.json.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
from common import machine, write_json  # noqa: E402

from kgcore.core.settings import IndexOptions, Settings  # noqa: E402 - the pool itself, not the public API
from kgcore.index.document_pool import build_in_pool  # noqa: E402


def build(job, options, settings, staging, report) -> Path:
    """A document built in no time: one stage reported, a folder named."""
    report("parse", 1, 1)
    return Path(staging) / str(job)


def parent_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(jobs: int, workers: int) -> dict:
    with tempfile.TemporaryDirectory() as staging:
        start, cpu = time.perf_counter(), parent_cpu_s()
        out = build_in_pool(list(range(jobs)), IndexOptions(), Settings.from_env(), Path(staging), workers, None,
                            build)
        wall, cpu = time.perf_counter() - start, parent_cpu_s() - cpu
    failed = [o for o in out if not isinstance(o, Path)]
    if failed:
        raise SystemExit(f"{len(failed)} of {jobs} jobs failed: {failed[0]!r}")
    return {"jobs": jobs, "workers": workers, "wall_s": round(wall, 2), "parent_cpu_s": round(cpu, 2),
            "parent_cpu_ms_per_job": round(cpu / jobs * 1000, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="*", default=[1_000, 5_000, 20_000])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = []
    for jobs in args.jobs:
        rows.append(measure(jobs, args.workers))
        print(rows[-1], flush=True)
    write_json("pool_overhead.json", {"machine": machine(), "rows": rows}, one_line="rows")


if __name__ == "__main__":
    main()
