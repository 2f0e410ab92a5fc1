"""``dense``: the sentences whose vectors are closest to the question's (cosine over the stored sentence vectors).

The baseline every graph method is compared with at equal words (:mod:`kgcore.query.sentence_ranking`).
"""

from __future__ import annotations

import numpy as np

from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import QueryResult
from kgcore.index.store.in_memory import Index
from kgcore.query.methods.base import RANKED, Method, Models
from kgcore.query.sentence_ranking import by_score, retrieve_ranked


def ranking(index: Index, question: str, sims: np.ndarray, scope: np.ndarray | None) -> tuple[list[int], list[float]]:
    """Every sentence by its cosine to the question."""
    return by_score(sims)


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    return retrieve_ranked(index, question, options, models.embedder, ranking)


METHOD = Method("dense", "Dense (sentence vectors)", "the sentences closest to the question in embedding space",
                retrieve, reads=RANKED)
