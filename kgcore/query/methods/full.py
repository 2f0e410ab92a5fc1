"""``full``: the whole collection (every retrievable sentence in scope, in reading order), up to the budget.

The ceiling of every retrieval comparison: what an answerer could do with all the text.  It refuses collections
whose text would exceed ``KGCORE_MAX_FULL_WORDS`` (``settings.max_full_words``).
"""

from __future__ import annotations

import numpy as np

from kgcore.core.errors import InputError
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import QueryResult
from kgcore.index.store.in_memory import Index
from kgcore.query.methods.base import BUDGET, Method, Models
from kgcore.query.sentence_ranking import retrieve_ranked


def ranking(index: Index, question: str, sims: np.ndarray, scope: np.ndarray | None) -> tuple[list[int], list[float]]:
    """Every sentence in reading order, each scored 0."""
    return list(range(len(index.sentences))), [0.0] * len(index.sentences)


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    check_size(index, options, models.settings.max_full_words)
    return retrieve_ranked(index, question, options, models.embedder, ranking, cut_at_k=False)


def check_size(index: Index, options: RetrievalOptions, limit: int) -> None:
    """``full`` sends every word to the answerer: refuse collections over ``limit`` words."""
    scope = index.sentence_scope(options.documents, options.front_matter)
    words = sum(len(s.original.split()) for i, s in enumerate(index.sentences) if scope is None or scope[i])
    sent = min(words, options.budget_words) if options.budget_words else words
    if sent > limit:
        raise InputError("method", f"full would send {sent:,} words of {index.collection!r} to the answerer; the "
                                   f"limit is {limit:,} (KGCORE_MAX_FULL_WORDS): give a word budget, choose "
                                   "documents, or use another method")


METHOD = Method("full", "Full document", "every sentence, in reading order, up to the budget", retrieve, reads=BUDGET)
