"""Methods that rank the collection's sentences themselves (``dense``, ``bm25``, ``hybrid``, ``full``, ``none``):
the steps they share, and the BM25 tokens every lexical signal reads.

Each such method (one module in :mod:`kgcore.query.methods`) gives a :data:`Ranking` (rows of the index, best
first, with their scores); :func:`retrieve_ranked` embeds the question, ranks, cuts to the budget
(:func:`~kgcore.query.context.budget_positions`, so comparisons at equal budgets are fair) or, without one, to the
top ``k``, and returns the :class:`~kgcore.core.types.QueryResult` every method returns.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.settings import RetrievalOptions
from kgcore.core.stemming import stemmer
from kgcore.core.timing import Timer
from kgcore.core.types import QueryResult, SelectedSentence
from kgcore.index.store.disk import CacheKey, Index
from kgcore.query.context import (
    budget_positions,
    in_scope,
    question_vector,
    selected_sentence,
    sentence_words,
)
from kgcore.query.sparse_bm25 import SparseBM25

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
    return stemmer().stemWords([t for t in _TOKEN_RE.findall(text.lower()) if t not in STOPWORDS])


@dataclass(frozen=True)
class SentenceTokens:
    """Every sentence's :func:`bm25_tokens` of its written (normalised) text, and the tokens its coref-resolved
    text adds (sorted; one shared empty tuple for a sentence coreference added nothing to).  Tokenised once per
    index for every BM25 model built from them (the baseline's, the expanded sentence and chunk models of
    :mod:`kgcore.query.propagation`): on ObliQA's 29,889 sentences each tokenisation takes about a second.  Each
    distinct token is one string (interned): on 5,000 short sentences the view took 4.3 MB as a list of tokens
    and a set of resolved tokens per sentence."""

    written: list[list[str]]
    added: list[tuple[str, ...]]


SENTENCE_TOKENS: CacheKey[SentenceTokens] = CacheKey("sentence-tokens")
_NOTHING_ADDED: tuple[str, ...] = ()


def sentence_tokens(index: Index) -> SentenceTokens:
    """The index's :class:`SentenceTokens`, built on first use."""
    def build() -> SentenceTokens:
        written = [[sys.intern(t) for t in bm25_tokens(s.normalized)] for s in index.sentences]
        added = [_added(own, s.resolved or "") if (s.resolved or "") != s.normalized else _NOTHING_ADDED
                 for s, own in zip(index.sentences, written)]
        return SentenceTokens(written, added)

    return index.cache.get(SENTENCE_TOKENS, build)


def _added(own: list[str], resolved: str) -> tuple[str, ...]:
    """The tokens of ``resolved`` not among ``own``, sorted and interned (the shared empty tuple when none)."""
    extra = sorted(set(bm25_tokens(resolved)).difference(own))
    return tuple(sys.intern(t) for t in extra) if extra else _NOTHING_ADDED


def _bm25(index: Index) -> SparseBM25:
    """The index's BM25 model over its stemmed sentences, built on first use."""
    return index.cache.get(BM25, lambda: SparseBM25([t or ["_"] for t in sentence_tokens(index).written]))


#: A method's ranking: (rows, scores) of the index's sentences, best first, from the question, its cosine to every
#: sentence and the scope (a boolean row mask, or None for every sentence); rows outside the scope are dropped after.
Ranking = Callable[[Index, str, np.ndarray, "np.ndarray | None"], tuple[list[int], list[float]]]


def retrieve_ranked(index: Index, question: str, options: RetrievalOptions, embedder: Embedder,
                    ranking: Ranking | None, cut_at_k: bool = True, notes: Sequence[str] = ()) -> QueryResult:
    """Run a ranked method on ``index`` (within the options' documents, front matter left out): ``ranking`` None
    retrieves nothing (and embeds nothing); ``cut_at_k`` keeps the top ``options.k`` when no budget is given."""
    timer = Timer()
    with timer.step("embed"):
        _, sims = question_vector(index, embedder, question) if ranking else (None, np.zeros(len(index.sentences)))
    with timer.step("match"):
        scope = index.sentence_scope(options.documents, options.front_matter)
        rows, scores = ranked_rows(index, ranking, question, sims, scope) if ranking else ([], [])
    with timer.step("select"):
        ranked = _selected(index, rows, scores, sims, options, cut_at_k)
    return _finish(index, question, options.method, options, ranked, timer, len(rows), notes)


def ranked_rows(index: Index, ranking: Ranking, question: str, sims: np.ndarray,
                scope: np.ndarray | None) -> tuple[list[int], list[float]]:
    """(rows, scores) of ``ranking``, best first, inside ``scope``."""
    rows, scores = ranking(index, question, sims, scope)
    score_of = dict(zip(rows, scores))
    kept = in_scope(rows, scope)
    return kept, [score_of[r] for r in kept]


def by_score(scores: np.ndarray) -> tuple[list[int], list[float]]:
    """Every row, highest score first (ties in row order), with its score.

    >>> by_score(np.array([0.1, 0.5, 0.1]))
    ([1, 0, 2], [0.5, 0.1, 0.1])
    """
    order = np.argsort(-scores, kind="stable")
    return order.tolist(), scores[order].tolist()


def _selected(index: Index, rows: list[int], scores: list[float], sims: np.ndarray,
              options: RetrievalOptions, cut_at_k: bool) -> list[SelectedSentence]:
    """The ranked sentences the budget (or, without one, ``k``) keeps, ranked by their place in ``rows``.

    Only the kept ones are built: a collection of 30,000 sentences ranks them all.
    """
    if not options.budget_sentences and not options.budget_words and cut_at_k:
        rows = rows[: options.k]
    places = budget_positions(sentence_words(index)[rows], options.budget_sentences, options.budget_words)
    return [selected_sentence(index, rows[p], similarity=round(float(sims[rows[p]]), 4),
                              score=round(float(scores[p]), 4), rank=p + 1) for p in places]


def _finish(index, question, method, options, ranked, timer: Timer, candidates, notes=()) -> QueryResult:
    with timer.step("select"):
        kept = sorted(ranked, key=lambda s: s.position)  # already cut to k or the budget by _selected
    timer.ms.setdefault("parse", 0.0)
    timer.ms.setdefault("match", 0.0)
    timer.ms["retrieval"] = timer.total("parse", "embed", "match", "select")
    return QueryResult(question, method, index.collection, None, [], kept, options.to_dict(), timer.ms, list(notes),
                       candidates)


def sentence_bm25(index: Index, tokens: list[str]) -> np.ndarray:
    """BM25 of every sentence of ``index`` for the (already tokenised) query."""
    return _bm25(index).get_scores(tokens)
