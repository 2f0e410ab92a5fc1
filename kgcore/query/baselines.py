"""Baseline retrieval methods with the same result type as GroundedKG.

``dense`` (cosine over the sentence vectors), ``bm25`` (Okapi BM25 over
stemmed sentence tokens, :mod:`kgcore.query.bm25`), ``hybrid`` (reciprocal-rank fusion of both),
``full`` (the whole document) and ``none`` (no context).  Every method is
capped by the same budget rule (:func:`~kgcore.query.context.budget_positions`), so
comparisons at equal budgets are fair.  Without a budget, ranked baselines
return their top ``k`` sentences.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass

import numpy as np
import Stemmer

from kgcore.core.embed import Embedder
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import QueryResult, SelectedSentence
from kgcore.index.store.disk import CacheKey, Index
from kgcore.query.bm25 import SparseBM25
from kgcore.query.context import (
    budget_positions,
    elapsed_ms,
    in_scope,
    question_vector,
    selected_sentence,
    sentence_words,
)

#: Reciprocal-rank-fusion constant (Cormack et al. 2009).
RRF_K = 60
BM25: CacheKey[SparseBM25] = CacheKey("bm25")
_TOKEN_RE = re.compile(r"[a-z0-9]+(?:'(?!s\b)[a-z]+)?")
STOPWORDS = frozenset(
    "a an the and or but if of to in on at by for with from into onto about as is are was were be been being "
    "do does did done have has had having it its this that these those there here what which who whom whose "
    "when where why how i me my we our you your he him his she her they them their not no so than then too "
    "very can could would should will shall may might must up out over under again once all any both each few "
    "more most other some such only own same just s t".split()
)


def bm25_tokens(text: str) -> list[str]:
    """Lower-cased, stop-word-free, Porter-stemmed tokens; a possessive "'s" is dropped, so "Christine's" matches
    "Christine" (it gave the token "christine'", which only another possessive matched), other apostrophes kept.

    >>> bm25_tokens("Peter was running to the gates!")
    ['peter', 'run', 'gate']
    >>> bm25_tokens("Christine's father didn't see O'Brien's boat")
    ['christin', 'father', "didn't", 'see', "o'brien", 'boat']
    """
    return _stemmer().stemWords([t for t in _TOKEN_RE.findall(text.lower()) if t not in STOPWORDS])


_LOCAL = threading.local()


def _stemmer():
    """This thread's Porter stemmer (PyStemmer's Snowball ``porter``, C: a stemmer object is not thread-safe,
    and Streamlit answers each session on its own thread).  Chosen over nltk's PorterStemmer, which it
    replaced: the same algorithm (99 % of the word groups of two novels and ten rulebooks identical, the rest
    nltk's own extensions such as "-ly" -> "-li"), imported in 1 ms instead of nltk's 1.1 s (nltk pulls in
    scipy.stats and scikit-learn), which was the largest step before an app's first answer."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = Stemmer.Stemmer("porter")
    return stemmer


@dataclass(frozen=True)
class SentenceTokens:
    """Every sentence's :func:`bm25_tokens`: of its written (normalised) text, and, as a set, of its coref-resolved
    text (the same set object when coreference changed no token).  Tokenised once per index for every BM25 model
    built from them (the baseline's, the expanded sentence and chunk models of :mod:`kgcore.query.lesegr`): on
    ObliQA's 29,889 sentences each tokenisation takes about a second."""

    written: list[list[str]]
    resolved: list[frozenset[str]]


SENTENCE_TOKENS: CacheKey[SentenceTokens] = CacheKey("sentence-tokens")


def sentence_tokens(index: Index) -> SentenceTokens:
    """The index's :class:`SentenceTokens`, built on first use."""
    def build() -> SentenceTokens:
        written = [bm25_tokens(s.normalized) for s in index.sentences]
        resolved = [frozenset(own) if (s.resolved or "") == s.normalized else frozenset(bm25_tokens(s.resolved or ""))
                    for s, own in zip(index.sentences, written)]
        return SentenceTokens(written, resolved)

    return index.cache.get(SENTENCE_TOKENS, build)


def _bm25(index: Index) -> SparseBM25:
    """The index's BM25 model over its stemmed sentences, built on first use."""
    return index.cache.get(BM25, lambda: SparseBM25([t or ["_"] for t in sentence_tokens(index).written]))


def _selected(index: Index, rows: list[int], scores: list[float], sims: np.ndarray,
              options: RetrievalOptions) -> list[SelectedSentence]:
    """The ranked sentences the budget (or, without one, ``k``) keeps, ranked by their place in ``rows``.

    Only the kept ones are built: a collection of 30,000 sentences ranks them all.
    """
    if not options.budget_sentences and not options.budget_words and options.method not in ("full", "none"):
        rows = rows[: options.k]
    places = budget_positions(sentence_words(index)[rows], options.budget_sentences, options.budget_words)
    return [selected_sentence(index, rows[p], similarity=round(float(sims[rows[p]]), 4),
                              score=round(float(scores[p]), 4), rank=p + 1) for p in places]


def _finish(index, question, method, options, ranked, timings, candidates, notes=()) -> QueryResult:
    start = time.perf_counter()
    kept = sorted(ranked, key=lambda s: s.position)  # already cut to k or the budget by _selected
    timings["select"] = round(timings.get("select", 0.0) + elapsed_ms(start), 3)
    timings.setdefault("parse", 0.0)
    timings.setdefault("match", 0.0)
    timings["retrieval"] = round(sum(timings[k] for k in ("parse", "embed", "match", "select")), 3)
    return QueryResult(question, method, index.doc_id, None, [], kept, options.to_dict(), timings, list(notes),
                       candidates)


def _dense_ranking(index: Index, sims: np.ndarray) -> tuple[list[int], list[float]]:
    order = np.argsort(-sims, kind="stable")
    return order.tolist(), sims[order].tolist()


def sentence_bm25(index: Index, tokens: list[str]) -> np.ndarray:
    """BM25 of every sentence of ``index`` for the (already tokenised) query."""
    return _bm25(index).get_scores(tokens)


def _bm25_ranking(index: Index, question: str) -> tuple[list[int], list[float]]:
    scores = sentence_bm25(index, bm25_tokens(question))
    order = np.argsort(-scores, kind="stable")
    return order.tolist(), scores[order].tolist()


def retrieve_baseline(index: Index, question: str, options: RetrievalOptions, embedder: Embedder) -> QueryResult:
    """Run the baseline ``options.method`` on ``index`` (within the options' documents, front matter left out)."""
    method = options.method
    start = time.perf_counter()
    _, sims = question_vector(index, embedder, question) if method != "none" else (None, np.zeros(len(index.sentences)))
    timings = {"embed": elapsed_ms(start)}
    start = time.perf_counter()
    rows, scores = _ranking(index, method, question, sims, index.sentence_scope(options.documents,
                                                                                options.front_matter))
    timings["match"] = elapsed_ms(start)
    start = time.perf_counter()
    ranked = _selected(index, rows, scores, sims, options)
    timings["select"] = elapsed_ms(start)
    notes = ["No context: the answerer works from its own knowledge only."] if method == "none" else []
    return _finish(index, question, method, options, ranked, timings, len(rows), notes)


def _ranking(index: Index, method: str, question: str, sims: np.ndarray,
             scope: np.ndarray | None) -> tuple[list[int], list[float]]:
    """(rows, scores) of one baseline, best first, inside ``scope``."""
    if method == "dense":
        rows, scores = _dense_ranking(index, sims)
    elif method == "bm25":
        rows, scores = _bm25_ranking(index, question)
    elif method == "hybrid":
        rows, scores = _rrf([in_scope(_dense_ranking(index, sims)[0], scope),
                             in_scope(_bm25_ranking(index, question)[0], scope)])
    elif method == "full":
        rows, scores = list(range(len(index.sentences))), [0.0] * len(index.sentences)
    else:
        return [], []
    score_of = dict(zip(rows, scores))
    kept = in_scope(rows, scope)
    return kept, [score_of[r] for r in kept]


def _rrf(rankings: list[list[int]]) -> tuple[list[int], list[float]]:
    """Reciprocal-rank fusion of several rankings of row numbers.

    >>> _rrf([[0, 1, 2], [2, 0, 1]])[0]
    [0, 2, 1]
    """
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, row in enumerate(ranking):
            fused[row] = fused.get(row, 0.0) + 1.0 / (RRF_K + rank + 1)
    rows = sorted(fused, key=lambda r: (-fused[r], r))
    return rows, [fused[r] for r in rows]
