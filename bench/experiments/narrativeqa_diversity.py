"""Does a diverse context hold more of people's answers?  Maximal marginal relevance over the fused order on the
NarrativeQA design books.

    python bench/experiments/narrativeqa_diversity.py                 # lambda 0 (the default), 0.1, 0.25, 0.5
    python bench/experiments/narrativeqa_diversity.py --lambdas 0,0.3

The fused ranking's first :data:`CANDIDATES` sentences are taken again greedily by their score (relative to the
best) minus ``lambda`` times their largest cosine to a sentence already taken (MiniLM sentence vectors), the rest
of the order after them; both stages of the ranking are reordered.  Measured as the NarrativeQA bench measures
(answer-token recall of the context, 200 / 500 / 1,000 / 2,000 words, default method), paired against lambda 0.
Design books only; writes ``bench/results/narrativeqa_diversity.json``.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools
import narrativeqa  # noqa: E402
from common import write_json  # noqa: E402
from protocol import paired_sweep, setting  # noqa: E402

from kgcore.api import QueryEngine  # noqa: E402
from kgcore.query import fused  # noqa: E402

CANDIDATES = 200
ORIGINAL = fused._ranked


def diverse(lam: float):
    """``fused._ranked`` with its first :data:`CANDIDATES` rows reordered by maximal marginal relevance."""
    def ranked(index, final, options):
        order = ORIGINAL(index, final, options)
        if lam <= 0 or len(order) < 2:
            return order
        head = order[:CANDIDATES]
        relevance = final[head] / final[head[0]]
        vectors = np.asarray(index.sentence_vectors[head], dtype=np.float32)
        similar = vectors @ vectors.T
        free, nearest, taken = np.ones(len(head), bool), np.zeros(len(head), np.float32), []
        for _ in range(len(head)):
            k = int(np.argmax(np.where(free, relevance - lam * nearest, -np.inf)))
            taken.append(k)
            free[k] = False
            nearest = np.maximum(nearest, similar[k])
        return np.r_[head[taken], order[CANDIDATES:]]
    return ranked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lambdas", default="0,0.1,0.25,0.5")
    args = parser.parse_args()
    books = narrativeqa.split()["design"]
    engine = QueryEngine(narrativeqa.book_store(books))
    lambdas = {0.0, *(float(x) for x in args.lambdas.split(","))}
    rows = paired_sweep(engine, books, narrativeqa.questions,
                        {lam: partial(setting, fused, "_ranked", diverse(lam)) for lam in lambdas}, "lambda")
    write_json("narrativeqa_diversity.json", {"books": books, "rows": rows})


if __name__ == "__main__":
    main()
