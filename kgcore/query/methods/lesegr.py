"""``lesegr``: LeSeGR (lexical-semantic graph retrieval): BM25 and dense relevance of every sentence in scope,
propagated over the collection's contextual graph (:mod:`kgcore.index.views.contextual`), in the parameter-free
form of :mod:`kgcore.query.propagation`, ranked by :func:`kgcore.query.fused.rank` and budgeted.

GroundedKG's fused ranking (:mod:`kgcore.query.fused`) is the same propagation with GroundedKG's alignment evidence
as a third signal.
"""

from __future__ import annotations

from dataclasses import replace

from kgcore.core.embed import Embedder
from kgcore.core.settings import RetrievalOptions
from kgcore.core.timing import Timer
from kgcore.core.types import QueryResult
from kgcore.index.store.in_memory import Index
from kgcore.index.views.contextual import context_graph
from kgcore.query import propagation
from kgcore.query.context import question_vector
from kgcore.query.fused import rank
from kgcore.query.methods.base import RANKED, Method, Models


def retrieve_lesegr(index: Index, question: str, options: RetrievalOptions, embedder: Embedder) -> QueryResult:
    """The ``lesegr`` method: BM25 and dense relevance propagated over the contextual graph, budgeted."""
    timer = Timer({"parse": 0.0})
    with timer.step("embed"):
        vector, sims = question_vector(index, embedder, question)
    with timer.step("match"):
        cg = context_graph(index)
        scope = index.sentence_scope(options.documents, options.front_matter)
        sig = propagation.signals(index, cg, question, vector, sims, scope)
    with timer.step("select"):
        budgeted = options.budget_words or options.budget_sentences
        kept = rank(index, cg, sig, options if budgeted else replace(options, budget_sentences=options.k))
    timer.ms["retrieval"] = timer.total("parse", "embed", "match", "select")
    return QueryResult(question, "lesegr", index.collection, None, [], kept, options.to_dict(), timer.ms, [],
                       candidates=int(sig.scope[: cg.n_sentences].sum()))


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    return retrieve_lesegr(index, question, options, models.embedder)


METHOD = Method("lesegr", "LeSeGR (BM25 + dense over the contextual graph)",
                "BM25 and dense relevance propagated over the contextual graph of sentences and chunks",
                retrieve, reads=RANKED)
