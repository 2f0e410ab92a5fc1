"""Run one benchmark on an earlier commit and on the working tree, in one run, and print them side by side.

    python bench/compare.py query_bench.py                  # HEAD against the working tree
    python bench/compare.py query_bench.py --base HEAD~3    # any revision
    python bench/compare.py retrieval_quality.py --rounds 1
    python bench/compare.py query_bench.py --base 29a1ea2 --head 3536788   # two commits

The base revision is checked out with ``git worktree`` into a temporary
folder (sharing this virtualenv); each side gets its own bench store under
``bench/stores/compare/`` so index formats never mix.  Rounds alternate
base, tree, base, tree ... so that a machine getting busier or cooler
penalises neither side; every numeric figure is reported as the median over
rounds.  The table goes to stdout and, with both raw results, to
``bench/results/compare_<bench>.json``.  Timings on a shared 2-core machine
move by 5-10 % between runs: read ratios near 1 as "unchanged".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import RESULTS, ROOT, write_json

#: The JSON file each benchmark writes.
OUTPUTS = {"index_bench.py": "index.json", "query_bench.py": "query.json",
           "retrieval_quality.py": "retrieval_quality.json"}
#: Leaves that describe the machine or the run, not the code's performance.
SKIPPED = ("machine", "targets", "lines")


def flatten(data, prefix: str = "") -> dict[str, float]:
    """Numeric leaves of a JSON document by dotted path; list items are keyed by their identifying fields.

    >>> flatten({"methods": {"dense": {"p50_ms": 4.5, "ok": True}}, "rows": [{"method": "bm25", "hit": 0.5}]})
    {'methods.dense.p50_ms': 4.5, 'rows[bm25].hit': 0.5}
    """
    out: dict[str, float] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            if key not in SKIPPED:
                out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            out.update(flatten(item, f"{prefix}[{_item_key(item, i)}]"))
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        out[prefix] = float(data)
    return out


def _item_key(item, position: int) -> str:
    if isinstance(item, dict):
        names = [str(item[k]) for k in ("doc_id", "book", "split", "method", "budget_words") if k in item]
        if names:
            return "/".join(names)
    return str(position)


def checkout(revision: str, into: Path) -> Path:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(into), revision],
                   check=True, capture_output=True, text=True)
    return into


def run_side(tree: Path, bench: str, store: Path, results: Path) -> dict:
    """Run ``bench`` in ``tree`` with its own store; return the JSON it wrote."""
    env = {**os.environ, "KGCORE_BENCH_STORE": str(store), "KGCORE_BENCH_RESULTS": str(results)}
    subprocess.run([sys.executable, str(tree / "bench" / bench)], cwd=tree, env=env, check=True)
    written = results / OUTPUTS[bench]
    if not written.exists():  # an older bench/common.py ignores KGCORE_BENCH_RESULTS
        written = tree / "bench" / "results" / OUTPUTS[bench]
    return json.loads(written.read_text(encoding="utf-8"))


def table(base: list[dict], head: list[dict]) -> list[dict]:
    """Median of every numeric figure per side, and head/base."""
    b = [flatten(r) for r in base]
    h = [flatten(r) for r in head]
    rows = []
    for key in sorted(set().union(*b, *h)):
        bv = [r[key] for r in b if key in r]
        hv = [r[key] for r in h if key in r]
        base_m = statistics.median(bv) if bv else None
        head_m = statistics.median(hv) if hv else None
        ratio = round(head_m / base_m, 3) if base_m and head_m is not None else None
        rows.append({"figure": key, "base": base_m, "head": head_m, "head/base": ratio})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", choices=sorted(OUTPUTS))
    parser.add_argument("--base", default="HEAD", help="git revision to compare against (default HEAD)")
    parser.add_argument("--head", default="", help="git revision on the other side (default: the working tree)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    stores = ROOT / "bench" / "stores" / "compare"
    with tempfile.TemporaryDirectory(prefix="kg-bench-") as tmp:
        base_tree = checkout(args.base, Path(tmp) / "base")
        head_tree = checkout(args.head, Path(tmp) / "head") if args.head else ROOT
        try:
            runs: dict[str, list[dict]] = {"base": [], "head": []}
            for round_no in range(args.rounds):
                for side, tree in (("base", base_tree), ("head", head_tree)):
                    print(f"== round {round_no + 1}: {side}", flush=True)
                    out = Path(tmp) / f"{side}-{round_no}"
                    out.mkdir()
                    runs[side].append(run_side(tree, args.bench, stores / side, out))
        finally:
            for tree in {base_tree, head_tree} - {ROOT}:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                               capture_output=True)
    rows = table(runs["base"], runs["head"])
    width = max(len(r["figure"]) for r in rows)
    print(f"\n{'figure':<{width}}  {args.base:>12}  {args.head or 'working tree':>12}  head/base")
    for r in rows:
        cells = ["-" if r[k] is None else f"{r[k]:g}" for k in ("base", "head", "head/base")]
        print(f"{r['figure']:<{width}}  {cells[0]:>12}  {cells[1]:>12}  {cells[2]:>9}")
    revision = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.base], capture_output=True, text=True)
    write_json(f"compare_{Path(args.bench).stem}.json", {
        "bench": args.bench, "base": args.base, "base_commit": revision.stdout.strip(), "head": args.head or "tree",
        "rounds": args.rounds,
        "rows": rows, "runs": runs, "results_dir": str(RESULTS),
    })


if __name__ == "__main__":
    main()
