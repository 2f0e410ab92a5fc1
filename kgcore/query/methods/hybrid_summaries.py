"""``hybrid-summaries``: ``hybrid`` sentences and community summaries together, interleaved in a fixed ratio.

The community summaries retrieved with text: the top sentences of the dense+BM25 ``hybrid`` ranking and the
best community summaries (as their sentences), 20 : 5 at 2,000 words and scaled with the budget; both parts and
their scaling live in :mod:`kgcore.query.methods.community`.
"""

from __future__ import annotations

from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import QueryResult
from kgcore.index.store.in_memory import Index
from kgcore.query.methods.base import BUDGET, Method, Models
from kgcore.query.methods.community import retrieve_community


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    return retrieve_community(index, question, options, models.embedder, models.settings, models.use_chroma)


METHOD = Method("hybrid-summaries", "Hybrid + community summaries",
                "hybrid sentences and community summaries interleaved, 20 : 5 at 2,000 words", retrieve, reads=BUDGET)
