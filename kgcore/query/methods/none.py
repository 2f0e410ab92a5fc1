"""``none``: no context: the answerer works from its own knowledge (the paper's "without content" setting)."""

from __future__ import annotations

from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import QueryResult
from kgcore.index.store.in_memory import Index
from kgcore.query.methods.base import NOTHING, Method, Models
from kgcore.query.sentence_ranking import retrieve_ranked

NOTE = "No context: the answerer works from its own knowledge only."


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    return retrieve_ranked(index, question, options, models.embedder, None, cut_at_k=False, notes=[NOTE])


METHOD = Method("none", "No context", "no retrieval: the answerer answers from its own knowledge", retrieve,
                reads=NOTHING)
