"""The sparse signal's BM25 models: over each sentence's (and each chunk's) written words plus the words
coreference adds, built once per loaded collection.

"I was born in the year 1632" is also a sentence about Robinson Crusoe: its resolved text names him, so his name
counts among its tokens, once (:func:`expanded_tokens`).  :mod:`kgcore.query.propagation` scores the question's
tokens with these models, :mod:`kgcore.query.names` reads which sentences hold the question's names, and a shard
of a collection served in pieces replaces them with models scored by the collection's statistics
(:mod:`kgcore.query.shard_graph`) under the same keys.
"""

from __future__ import annotations

from kgcore.index.store.disk import CacheKey, Index
from kgcore.index.views.context_types import ContextGraph
from kgcore.query.sentence_ranking import bm25_tokens, sentence_tokens
from kgcore.query.sparse_bm25 import SparseBM25

SENTENCE_BM25: CacheKey[SparseBM25] = CacheKey("expanded-sentence-bm25")
CHUNK_BM25: CacheKey[SparseBM25] = CacheKey("chunk-bm25")
EXPANDED_CHUNK_BM25: CacheKey[SparseBM25] = CacheKey("expanded-chunk-bm25")


def expanded_tokens(written: str, resolved: str) -> list[str]:
    """BM25 tokens of ``written``, then each token of ``resolved`` (its coref-resolved text) not among them, once
    and sorted: the words coreference adds count as mentioned, not as repeated.

    >>> expanded_tokens("He kissed her.", "Raoul kissed Christine.")
    ['kiss', 'christin', 'raoul']
    >>> expanded_tokens("I was born in 1632.", "Robinson Crusoe was born in 1632. Robinson Crusoe")
    ['born', '1632', 'cruso', 'robinson']
    """
    return expand(bm25_tokens(written), frozenset(bm25_tokens(resolved)))


def expand(own: list[str], resolved: frozenset[str]) -> list[str]:
    """``own`` tokens, then those of ``resolved`` not among them, sorted (what :func:`expanded_tokens` returns)."""
    return own + sorted(resolved.difference(own))


def expanded_corpus(index: Index) -> list[list[str]]:
    """Every sentence's tokens for the sparse signal (:func:`expanded_tokens`; an empty one is ``_``)."""
    t = sentence_tokens(index)
    return [own + list(t.added[i]) or ["_"] for i, own in enumerate(t.written)]


def sentence_model(index: Index) -> SparseBM25:
    """BM25 over every sentence's :func:`expanded_tokens`, built on first use."""
    return index.cache.get(SENTENCE_BM25, lambda: SparseBM25(expanded_corpus(index)))


def chunk_corpus(index: Index, cg: ContextGraph, expanded: bool) -> list[list[str]]:
    """Every chunk's tokens: its sentences' (the same as tokenising their joined text, which no token crosses),
    plus, when ``expanded``, those their resolved texts add."""
    t = sentence_tokens(index)
    chunks = []
    for lo, hi in cg.chunk_spans:
        own = [token for i in range(lo, hi) for token in t.written[i]]
        added = frozenset().union(*t.added[lo:hi]) if expanded else frozenset()
        chunks.append(expand(own, added) or ["_"])
    return chunks


def chunk_model(index: Index, cg: ContextGraph, expanded: bool) -> SparseBM25:
    """BM25 over the chunks (:func:`chunk_corpus`), built on first use."""
    return index.cache.get(EXPANDED_CHUNK_BM25 if expanded else CHUNK_BM25,
                           lambda: SparseBM25(chunk_corpus(index, cg, expanded)))
