"""The fused ranking's optional learned part, in its smallest form: fusion weights fitted per collection on questions
generated from the collection's own frames, evaluated on the dev set's real questions.

    python bench/experiments/learned_fusion.py --sets crusoe-dev,obliqa-dev      # dev sets only

For each set, ``--pairs`` question–answer pairs generated from the collection's frames (:mod:`kgcore.index.qa`,
seeded sample; pairs whose sentence is out of the default scope are skipped) are asked as questions; the sentence a
pair was generated from is the one to find. The fused ranking's final score is linear in the starting score's
weights (the gates are the sparse relevance, whatever the weights), so each question's three propagated components
-- sparse, dense, graph -- are kept and every (``W_SPARSE``, ``W_GRAPH``) of a grid, with the dense weight 1, is
scored by the generated questions' mean reciprocal rank of their sentence. The best pair is then compared with the
default weights (1, 1) on the set's real dev questions at 200 / 500 / 1,000 / 2,000 words. No gold answer or
held-out question is read. Writes bench/results/learned_fusion.json.
"""

from __future__ import annotations

import argparse
import random
import sys
from contextlib import ExitStack, contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import machine, write_json
from fused_quality import BUDGETS, load, measure, primary, setting

from kgcore.core.settings import RetrievalOptions
from kgcore.query import fused, propagation
from kgcore.query.engine import QueryEngine
from kgcore.query.qakg.graph import qa_pairs_graph

GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


@contextmanager
def capturing(store: dict):
    """While active, every fused ranking leaves its propagated (sparse, dense, graph) components in ``store``."""
    original = fused.rank

    def rank(index, cg, sig, options, gm=None):
        edges = index.cache.get(fused.GATED, lambda: propagation.gated(cg))

        def final(w_sparse: float, w_graph: float) -> np.ndarray:
            with setting(propagation, "W_SPARSE", w_sparse), setting(propagation, "W_GRAPH", w_graph):
                return propagation.propagate(edges, sig)[-1][: cg.n_sentences]

        # propagation is linear in the starting score (the graph evidence propagates, as by default), so each
        # signal's part is a difference of two propagations
        dense = final(0.0, 0.0)
        parts = [final(1.0, 0.0) - dense, dense, final(0.0, 1.0) - dense]
        store["parts"], store["scope"] = np.stack(parts).astype(np.float32), sig.scope[: cg.n_sentences]
        return original(index, cg, sig, options, gm)

    fused.rank = rank
    try:
        yield
    finally:
        fused.rank = original


def generated_questions(engine: QueryEngine, name: str, count: int) -> tuple[list[np.ndarray], list[int]]:
    """The components of ``count`` generated questions and the row of the sentence each was generated from."""
    index = engine.index(name)
    pairs = qa_pairs_graph(index).pairs
    parts, rows, found = [], [], {}
    with capturing(found):
        for pair in random.Random(0).sample(pairs, min(len(pairs), 2 * count)):
            if len(parts) == count:
                break
            engine.retrieve(name, pair.question, RetrievalOptions(method="groundedkg", ranking="fused",
                                                                  budget_words=200))
            row = index.sentence_row(pair.sentence_id)
            if found["scope"][row]:
                parts.append(found["parts"])
                rows.append(row)
    return parts, rows


def mrr(parts: list[np.ndarray], rows: list[int], w_sparse: float, w_graph: float) -> float:
    """Mean reciprocal rank of each generated question's own sentence under the weights (ties count against).

    >>> p = [np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])]
    >>> mrr(p, [0], 1.0, 0.0), mrr(p, [0], 0.0, 0.0)
    (1.0, 0.5)
    """
    ranks = []
    for p, row in zip(parts, rows):
        score = w_sparse * p[0] + p[1] + w_graph * p[2]
        ranks.append(1 + int((score > score[row]).sum()))
    return float(np.mean(1.0 / np.asarray(ranks)))


def run(set_name: str, count: int) -> dict:
    store, name, questions = load(set_name, 200)
    engine = QueryEngine(store)
    parts, rows = generated_questions(engine, name, count)
    grid = {(s, g): mrr(parts, rows, s, g) for s in GRID for g in GRID}
    best = max(grid, key=lambda k: (grid[k], k == (1.0, 1.0)))  # the default wins ties
    out = {"set": set_name, "generated_questions": len(rows), "fitted": {"w_sparse": best[0], "w_graph": best[1]},
           "generated_mrr": {"default": round(grid[(1.0, 1.0)], 4), "fitted": round(grid[best], 4)}, "dev": []}
    for label, (w_sparse, w_graph) in (("default", (1.0, 1.0)), ("fitted", best)):
        with ExitStack() as stack:
            stack.enter_context(setting(propagation, "W_SPARSE", w_sparse))
            stack.enter_context(setting(propagation, "W_GRAPH", w_graph))
            for budget in BUDGETS:
                row = measure(engine, name, questions, "groundedkg", budget)
                out["dev"].append({"weights": label, "budget_words": budget, "primary": primary(row)})
                print(set_name, label, budget, primary(row), flush=True)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="crusoe-dev,qasper-dev,obliqa-dev")
    parser.add_argument("--pairs", type=int, default=300, help="generated questions per set")
    args = parser.parse_args(argv)
    sets = args.sets.split(",")
    if any(not s.endswith("-dev") for s in sets):
        raise SystemExit("learned weights are fitted and judged on dev sets only")
    write_json("learned_fusion.json", {"sets": [run(s, args.pairs) for s in sets], "machine": machine()})


if __name__ == "__main__":
    main()
