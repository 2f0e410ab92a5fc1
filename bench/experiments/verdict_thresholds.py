"""Which band on the strength should the verdict use?  The support verdict's balanced accuracy on the design
questions over a grid of thresholds (``REFUSED_BELOW`` / ``SUPPORTED_FROM`` of
:mod:`kgcore.query.answer.verdict`), from the rows ``bench/verdict_bench.py --part design --rows`` kept.

    python bench/experiments/verdict_thresholds.py                  # the grid, per set and its mean
    python bench/experiments/verdict_thresholds.py --low 2.0 --high 2.7

A row's strength does not depend on the thresholds, so each pair is decided again from the rows alone: a claim
refused for holding no span of the asked kind, or for words its sentence lacks, stays refused (its reason says
so); every other one is *supported* from the upper threshold, *not supported* below the lower, *unsure* between.
The grid's figures go to ``bench/results/verdict_thresholds.json``.  Only design rows exist (held-out rows are
never written), so nothing here reads the held-out sets.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
from common import write_json  # noqa: E402
from verdict_bench import ROWS, SETS, balanced_accuracy  # noqa: E402

#: Reasons of a refusal the band cannot change (no span of the asked kind; a claim its sentence does not hold).
FORCED = (", which the question asks for", "is not in the sentence it cites")
WIDTHS = (0.0, 0.1, 0.2, 0.3)
#: The reason of a claim whose sentence does not hold the answer in the asked role: at best unsure, whatever the
#: band (:mod:`kgcore.query.answer.roles`).
ROLE_CAP = "stands where the question asks"


def load(rows_dir: Path, set_name: str, answerer: str = "extractive") -> np.ndarray:
    """Per judged question (yes/no left out): right, strength, refused whatever the band, at best unsure whatever
    the band (the roles do not line up)."""
    rows = json.loads((rows_dir / f"{set_name}_{answerer}.json").read_text(encoding="utf-8"))
    return np.array([[r["right"], r["probability"] or 0.0,
                      r["state"] == "not supported" and any(f in (r["reason"] or "") for f in FORCED),
                      ROLE_CAP in (r["reason"] or "")]
                     for r in rows if r["kind"] != "yes/no"], dtype=float)


def judged(data: np.ndarray, refused_below: float, supported_from: float) -> tuple[float, float]:
    """Balanced accuracy and unsure share of the rows under one band."""
    strength, forced, capped = data[:, 1], data[:, 2] == 1, data[:, 3] == 1
    supported = ~forced & ~capped & (strength >= supported_from)
    decided = forced | supported | (strength < refused_below)
    pairs = np.column_stack([data[:, 0], supported, decided])
    return balanced_accuracy(pairs), float(np.mean(~decided))


def grid(sets: dict[str, np.ndarray], lows: np.ndarray) -> list[dict]:
    out = []
    for low in lows:
        for width in WIDTHS:
            cells = {name: judged(data, low, low + width) for name, data in sets.items()}
            out.append({"refused_below": round(float(low), 2), "supported_from": round(float(low + width), 2),
                        "balanced_accuracy": {n: round(c[0], 3) for n, c in cells.items()},
                        "mean": round(float(np.mean([c[0] for c in cells.values()])), 3),
                        "worst": round(min(c[0] for c in cells.values()), 3),
                        "max_unsure": round(max(c[1] for c in cells.values()), 3)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, default=ROWS)
    parser.add_argument("--low", type=float, default=2.0, help="the lowest lower threshold of the grid")
    parser.add_argument("--high", type=float, default=2.7, help="the highest lower threshold of the grid")
    args = parser.parse_args()
    sets = {name: load(args.rows, name) for name in SETS}
    cells = grid(sets, np.round(np.arange(args.low, args.high + 1e-9, 0.05), 2))
    print("lower / upper | " + " / ".join(SETS) + " | mean | worst | max unsure")
    for c in cells:
        print(f"{c['refused_below']:.2f} / {c['supported_from']:.2f} | "
              + " / ".join(f"{c['balanced_accuracy'][n]:.2f}" for n in SETS)
              + f" | {c['mean']:.3f} | {c['worst']:.2f} | {c['max_unsure']:.2f}")
    write_json("verdict_thresholds.json", {"questions": {n: len(d) for n, d in sets.items()}, "grid": cells})


if __name__ == "__main__":
    main()
