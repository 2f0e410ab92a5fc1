"""``bm25``: Okapi BM25 over the sentences' stemmed, stop-word-free tokens (:mod:`kgcore.query.sparse_bm25`).

>>> from kgcore.query.sentence_ranking import bm25_tokens
>>> bm25_tokens("Where did Peter lose his shoes?")
['peter', 'lose', 'shoe']
"""

from __future__ import annotations

import numpy as np

from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import QueryResult
from kgcore.index.store.in_memory import Index
from kgcore.query.methods.base import RANKED, Method, Models
from kgcore.query.sentence_ranking import bm25_tokens, by_score, retrieve_ranked, sentence_bm25


def ranking(index: Index, question: str, sims: np.ndarray, scope: np.ndarray | None) -> tuple[list[int], list[float]]:
    """Every sentence by its BM25 score for the question's tokens."""
    return by_score(sentence_bm25(index, bm25_tokens(question)))


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    return retrieve_ranked(index, question, options, models.embedder, ranking)


METHOD = Method("bm25", "BM25 (keywords)", "the sentences sharing the question's rarer words (Okapi BM25)",
                retrieve, reads=RANKED)
