"""``qa-kg``: the question matched against the question-answer pairs generated from the collection's frames.

The graph of generated QA pairs (:mod:`kgcore.query.qakg`): pairs whose questions and entities match the
question's are reranked (:mod:`kgcore.query.rerank`) and their sentences returned; the ``qa-kg`` answerer
(:mod:`kgcore.query.answer.short`) answers from the same pairs.
"""

from __future__ import annotations

from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import QueryResult
from kgcore.index.store.in_memory import Index
from kgcore.query.methods.base import RANKED, Method, Models
from kgcore.query.qakg import retrieve_qakg


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    return retrieve_qakg(index, question, options, models.embedder, models.nlp, models.reranker)


METHOD = Method("qa-kg", "QA pairs (generated questions)",
                "the generated question-answer pairs closest to the question; their sentences", retrieve, reads=RANKED)
