"""Does a context that covers more of the question's words hold more of people's answers?  Greedy question-word
coverage over the fused order on the NarrativeQA design books.

    python bench/experiments/narrativeqa_coverage.py                  # lambda 0 (the default), 0.25, 0.5, 1
    python bench/experiments/narrativeqa_coverage.py --lambdas 0,0.5 --candidates 50

At 200 words the fused context spans 7 passages where text retrieval spans 16-19, and on the questions BM25 wins
its context holds 89% of the question's content words against the default's 68%
(``bench/results/narrativeqa_small_budget.json``).  Here the fused ranking's first ``--candidates`` sentences
(before repeats are left out and the asked kind raises its candidates) are taken again greedily by their score
(relative to the best) times ``1 + lambda * (share of the question's content words the sentence adds to those
already taken)``, written or coref-resolved text, Porter stems; the rest of the order after them.  Measured as the
NarrativeQA bench measures (answer-token recall of the context, 200 / 500 / 1,000 / 2,000 words, default
method), paired against lambda 0.  Design books only; writes ``bench/results/narrativeqa_coverage.json``.
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
from kgcore.query.answer.words import content_words, stem  # noqa: E402

ORIGINAL = fused._ranked
#: The question being retrieved for (set around each retrieval: ``_ranked`` is not told it).
ASKED: list[str] = [""]


def stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def covering(lam: float, candidates: int):
    """``fused._ranked`` with its first ``candidates`` rows taken again greedily for question-word coverage."""
    def ranked(index, final, options):
        order = ORIGINAL(index, final, options)
        wanted = stems(ASKED[0])
        if lam <= 0 or len(order) < 2 or not wanted:
            return order
        head = order[:candidates]
        relevance = final[head] / final[head[0]]
        words = [stems(f"{index.sentences[r].original} {index.sentences[r].resolved or ''}") & wanted
                 for r in head]
        free, covered, taken = np.ones(len(head), bool), set(), []
        for _ in range(len(head)):
            gain = np.array([len(w - covered) / len(wanted) for w in words])
            k = int(np.argmax(np.where(free, relevance * (1 + lam * gain), -np.inf)))
            taken.append(k)
            free[k] = False
            covered |= words[k]
        return np.r_[head[taken], order[candidates:]]
    return ranked


class Asking(QueryEngine):
    """The engine, telling :data:`ASKED` the question before each retrieval."""

    def retrieve(self, collection, question, *args, **kwargs):
        ASKED[0] = question
        return super().retrieve(collection, question, *args, **kwargs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lambdas", default="0,0.25,0.5,1")
    parser.add_argument("--candidates", type=int, default=50)
    args = parser.parse_args()
    books = narrativeqa.split()["design"]
    engine = Asking(narrativeqa.book_store(books))
    lambdas = {0.0, *(float(x) for x in args.lambdas.split(","))}
    rows = paired_sweep(engine, books, narrativeqa.questions, {
        lam: partial(setting, fused, "_ranked", covering(lam, args.candidates)) for lam in lambdas}, "lambda")
    write_json("narrativeqa_coverage.json", {"books": books, "candidates": args.candidates, "rows": rows})


if __name__ == "__main__":
    main()
