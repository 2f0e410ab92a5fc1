"""Who a question is about: its names, and how much of them each sentence and passage holds, coreference included.

A question people ask about a story names its characters ("Why does Anne visit Mrs. Lynde?").  BM25 weighs a word
by its rarity, and a novel's main characters are its commonest names -- rarer still once coreference adds "Anne"
to every sentence saying "she" -- so the sentences about the question's character get almost no credit for being
about her.  The fused ranking (:mod:`kgcore.query.fused`) therefore multiplies each node's own relevance by

    focus(i) = 1 + weight * share(i)

where ``share(i)`` is the share of the question's names the node holds among its written words and the words its
coref-resolved text adds (a passage: among its sentences').  A node about none of them keeps its relevance, and a
node with no relevance gains nothing: the factor reorders the nodes that are already about the question.

>>> question_names("Why does Anne visit Mrs. Lynde?")
['ann', 'lynd', 'mr']
>>> question_names("What is the name of the dog?")
[]
"""

from __future__ import annotations

import re

import numpy as np

from kgcore.index.store.disk import Index
from kgcore.index.views.context_types import ContextGraph
from kgcore.query import expanded_bm25
from kgcore.query.sentence_ranking import bm25_tokens

_CAPITALISED = re.compile(r"\b[A-Z][a-z]+")


def question_names(question: str) -> list[str]:
    """The question's capitalised words past its first (its characters and places; the first is its wh-word or a
    word capitalised by position), as sorted, distinct BM25 tokens.

    Its limits, as measured (the figures in :data:`kgcore.query.fused.NAME_WEIGHT` were taken with them): a word
    is capitalised when an ASCII capital opens it and lower-case letters follow, so all-capital names (BERT,
    FLARE) and accented initials (Émile) are not names, "McGregor" gives only "mc", and an honorific ("Mrs.")
    counts; the first capitalised word is dropped even when the question starts in lower case.

    >>> question_names("What did Mr. McGregor plant?"), question_names("How does FLARE retrieve?")
    (['mc', 'mr'], [])
    """
    return sorted({token for word in _CAPITALISED.findall(question)[1:] for token in bm25_tokens(word)})


def name_share(index: Index, cg: ContextGraph, question: str) -> np.ndarray | None:
    """Per contextual-graph node (sentences, then chunks), the share of :func:`question_names` it holds, written or
    added by coreference; None when the question names nothing."""
    names = question_names(question)
    if not names:
        return None
    sentences = expanded_bm25.sentence_model(index).holding(names)
    chunks = expanded_bm25.chunk_model(index, cg, True).holding(names) if len(cg.chunk_spans) else np.zeros(0)
    return np.r_[sentences, chunks] / len(names)


def focus(index: Index, cg: ContextGraph, question: str, weight: float) -> np.ndarray | None:
    """Per node, ``1 + weight * share`` (:func:`name_share`): the factor the fused ranking multiplies its own
    relevance by; None (no change) when the weight is 0 or the question names nothing."""
    share = name_share(index, cg, question) if weight else None
    return None if share is None else 1.0 + weight * share
