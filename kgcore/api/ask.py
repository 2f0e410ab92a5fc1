"""Asking: the query engine, the retrieval methods and answerers by name, and what the Ask page shows.

``QueryEngine(store).ask(collection, question, RetrievalOptions(...))`` retrieves with any registered method
(:data:`METHODS`) and answers with any registered answerer (:data:`ANSWERERS`).
"""

from __future__ import annotations

from kgcore.index.store.partial import check_documents
from kgcore.query import multihop
from kgcore.query.answer import ANSWERERS, check_answerer, default_answerer
from kgcore.query.answer.base import ParseCache, shared_cache
from kgcore.query.answer.citations import strip_markers
from kgcore.query.answer.short import MAX_ANSWERS, MIN_CONFIDENCE, NO_ANSWER, confidence, grouped
from kgcore.query.answer.words import content_words, stem
from kgcore.query.answer.written import found_words
from kgcore.query.asked_kind import CANDIDATES as ASKED_CANDIDATES
from kgcore.query.asked_kind import WEIGHT as ASKED_WEIGHT
from kgcore.query.engine import QueryEngine, result_to_json, validate_question
from kgcore.query.fused import GRAPH_HEAD_WORDS, node_name
from kgcore.query.methods import METHODS, RANKING_LABELS
from kgcore.query.propagation import GRAPH_GATE
from kgcore.query.propagation import SCALE as SIGNAL_SCALE
from kgcore.query.qakg.graph import QAGraph, grounding_pairs_graph, sentence_pairs
from kgcore.query.sentence_ranking import bm25_tokens
from kgcore.query.sharded import PER_SHARD as SHARDED_GRAPH
from kgcore.query.sharded import ShardedEngine, ShardError, check_served_answerer, check_served_method

__all__ = ["ANSWERERS", "ASKED_CANDIDATES", "ASKED_WEIGHT", "bm25_tokens", "check_answerer", "check_documents",
    "check_served_answerer", "check_served_method", "confidence", "content_words", "default_answerer",
    "found_words", "GRAPH_GATE", "GRAPH_HEAD_WORDS", "grounding_pairs_graph", "grouped", "MAX_ANSWERS", "METHODS",
    "MIN_CONFIDENCE", "multihop", "NO_ANSWER", "node_name", "ParseCache", "QAGraph", "QueryEngine", "RANKING_LABELS",
    "result_to_json", "sentence_pairs", "shared_cache", "SHARDED_GRAPH", "ShardedEngine", "ShardError", "SIGNAL_SCALE",
    "stem", "strip_markers", "validate_question"]
