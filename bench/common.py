"""Shared helpers for the benchmarks: paths, the bench stores, machine facts, JSON output.

Layout: the tools and ``make bench`` entry points sit in ``bench/``; finished experiments in ``bench/experiments/``
(their README says what each asked and found); question sets and other committed inputs in ``bench/data/``;
indexes the benchmarks build in ``bench/stores/`` (ignored by git; ``KGCORE_BENCH_STORE`` moves the books'
store); results in ``bench/results/``.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

RESULTS = Path(os.environ.get("KGCORE_BENCH_RESULTS", ROOT / "bench" / "results"))
#: Committed inputs: question sets, labelled pairs, splits.
DATA = ROOT / "bench" / "data"
#: Indexes the benchmarks build (never committed).
STORES = ROOT / "bench" / "stores"
STORE_ROOT = Path(os.environ.get("KGCORE_BENCH_STORE", STORES / "books"))
PETER = ROOT / "assets" / "peter_rabbit.txt"
PETER_QA = ROOT / "assets" / "peter_rabbit_dev_qa.csv"
CRUSOE_QA = DATA / "robinson_crusoe_qa.csv"


def crusoe_path() -> Path:
    """Robinson Crusoe: ../shared/data when present, else the copy in assets/."""
    shared = ROOT.parent / "shared" / "data" / "robinson_crusoe.txt"
    return shared if shared.exists() else ROOT / "assets" / "robinson_crusoe.txt"


def phantom_path() -> Path:
    """The Phantom of the Opera (../shared/data; no copy in assets/: it is only benchmarked)."""
    return ROOT.parent / "shared" / "data" / "phantom_of_the_opera.txt"


def machine() -> dict:
    import psutil
    import torch

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
    }


def write_json(name: str, data: dict, one_line: str = "") -> Path:
    """Write ``data`` indented; each item of the list ``data[one_line]`` (rows carrying long per-question lists)
    on one compact line instead."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    items = data.get(one_line) if one_line else None
    if not items:
        text = json.dumps(data, indent=1)
    else:  # each item's place held by a unique string, then filled with the item on one line
        marks = [f"@@row{i}@@" for i in range(len(items))]
        text = json.dumps({**data, one_line: marks}, indent=1)
        for mark, item in zip(marks, items):
            text = text.replace(json.dumps(mark), json.dumps(item), 1)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return path


def store_roots(parser, items: list[str], roots: dict[str, Path]) -> dict[str, Path]:
    """``roots`` (collection name -> store folder) with each ``NAME=DIR`` of a ``--store`` option put in; a DIR
    without a folder NAME is a usage error naming the option.

    >>> import argparse
    >>> store_roots(argparse.ArgumentParser(), [], {"papers": Path("stores")}) == {"papers": Path("stores")}
    True
    """
    out = dict(roots)
    for item in items:
        name, _, where = item.partition("=")
        if not name or not where or not Path(where, name).is_dir():
            parser.error(f"--store {item}: expected NAME=DIR with a collection folder DIR/NAME")
        out[name] = Path(where)
    return out
