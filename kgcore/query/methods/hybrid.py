"""``hybrid``: the ``dense`` and ``bm25`` rankings fused by reciprocal rank (Cormack et al. 2009)."""

from __future__ import annotations

import numpy as np

from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import QueryResult
from kgcore.index.store.in_memory import Index
from kgcore.query.context import in_scope
from kgcore.query.methods import bm25, dense
from kgcore.query.methods.base import RANKED, Method, Models
from kgcore.query.sentence_ranking import retrieve_ranked

#: Reciprocal-rank-fusion constant (Cormack et al. 2009).
RRF_K = 60


def ranking(index: Index, question: str, sims: np.ndarray, scope: np.ndarray | None) -> tuple[list[int], list[float]]:
    """The sentences in scope by the reciprocal-rank fusion of their dense and BM25 ranks."""
    return rrf([in_scope(dense.ranking(index, question, sims, scope)[0], scope),
                in_scope(bm25.ranking(index, question, sims, scope)[0], scope)])


def rrf(rankings: list[list[int]]) -> tuple[list[int], list[float]]:
    """Reciprocal-rank fusion of several rankings of row numbers.

    >>> rrf([[0, 1, 2], [2, 0, 1]])[0]
    [0, 2, 1]
    """
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, row in enumerate(ranking):
            fused[row] = fused.get(row, 0.0) + 1.0 / (RRF_K + rank + 1)
    rows = sorted(fused, key=lambda r: (-fused[r], r))
    return rows, [fused[r] for r in rows]


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    return retrieve_ranked(index, question, options, models.embedder, ranking)


METHOD = Method("hybrid", "Hybrid (dense + BM25)", "dense and BM25 rankings fused by reciprocal rank",
                retrieve, reads=RANKED)
