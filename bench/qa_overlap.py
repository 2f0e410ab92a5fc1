"""Before committing a new QA set: which of its questions overlap questions of other sets.  Counts only.

A question overlaps when its evidence shares a run of :data:`RUN_WORDS` words with another set's evidence (the
same passage) or its cosine to another set's question reaches :data:`MAX_COSINE` (nearly the same question).  A
new dev set must not overlap the held-out sets (tuning on it would tune on them), nor is a held-out set new when
it repeats the dev sets.  Only the counts are printed, so held-out questions are compared without being read;
``--drop`` rewrites the new set without its overlapping rows (it dropped 64 of 100 new dev questions once).

    python bench/qa_overlap.py bench/new_dev.csv bench/robinson_crusoe_qa_test*.csv [--drop]
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import common  # noqa: F401  (puts the repository on sys.path; offline model settings)

from kgcore.api import Settings, query_embedder

RUN_WORDS = 6
MAX_COSINE = 0.85
FIELDS = ["question", "answer1", "answer2", "evidence"]


def runs(text: str, n: int = RUN_WORDS) -> set[tuple[str, ...]]:
    """The runs of ``n`` consecutive lower-cased words of ``text``.

    >>> sorted(runs("A b c", 2))
    [('a', 'b'), ('b', 'c')]
    """
    words = text.lower().split()
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def overlapping(new: list[dict], others: list[dict], embedder) -> list[int]:
    """Indices of the ``new`` rows that overlap some row of ``others``."""
    if not new or not others:
        return []
    sims = embedder.encode([r["question"] for r in new]) @ embedder.encode([r["question"] for r in others]).T
    passages = [runs(r.get("evidence", "")) for r in others]
    return [i for i, row in enumerate(new)
            if sims[i].max() >= MAX_COSINE or any(runs(row.get("evidence", "")) & p for p in passages)]


def read_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("new", type=Path)
    parser.add_argument("others", type=Path, nargs="+")
    parser.add_argument("--drop", action="store_true", help="rewrite NEW without its overlapping rows")
    args = parser.parse_args()
    new = read_rows(args.new)
    others = [row for path in args.others if path.resolve() != args.new.resolve() for row in read_rows(path)]
    found = overlapping(new, others, query_embedder(Settings.from_env()))
    print(f"{args.new}: {len(found)} of {len(new)} questions overlap {len(others)} questions of the other sets")
    if args.drop and found:
        kept = [row for i, row in enumerate(new) if i not in set(found)]
        with args.new.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=FIELDS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(kept)
        print(f"dropped {len(found)}, kept {len(kept)}")


if __name__ == "__main__":
    main()
