"""The ``qa-kg`` method (the graph of generated QA pairs, on SRL frames): the QA knowledge graph, question analysis with
fuzzy and type-level entity matching, candidate features and retrieval.  The answerer is
:mod:`kgcore.query.answer.short`; the rerankers are :mod:`kgcore.query.rerank`.
"""

from kgcore.query.qakg.graph import QAGraph, qa_answer_graph, qa_graph, qa_pairs_graph
from kgcore.query.qakg.retrieve import retrieve_qakg

__all__ = ["QAGraph", "qa_answer_graph", "qa_graph", "qa_pairs_graph", "retrieve_qakg"]
