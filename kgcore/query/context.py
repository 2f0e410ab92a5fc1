"""What every retrieval method shares: the budget rule and the question's vector (step timings:
:class:`kgcore.core.timing.Timer`).

Every method (GroundedKG and the baselines) caps its ranked sentences with
:func:`apply_budget`, so comparisons at equal words are fair.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.roles import AUTHORS, FRONT_MATTER
from kgcore.core.types import QueryResult, SelectedSentence
from kgcore.index.store.disk import CacheKey, Index
from kgcore.query.answer.authorship import NOTE, author_rows

WORDS: CacheKey[np.ndarray] = CacheKey("sentence-words")


def apply_budget(ranked: list[SelectedSentence], budget_sentences: int = 0,
                 budget_words: int = 0) -> list[SelectedSentence]:
    """Take sentences in rank order while they fit; the same rule for every method.

    A sentence that would overflow the word budget is skipped and shorter
    lower-ranked ones may still fit.  Zero means no limit.

    >>> s = [SelectedSentence(str(i), i, "w " * n, "") for i, n in enumerate([3, 5, 2])]
    >>> [x.id for x in apply_budget(s, budget_words=6)]
    ['0', '2']
    """
    return [ranked[i] for i in budget_positions([len(s.text.split()) for s in ranked], budget_sentences,
                                                 budget_words)]


def sentence_words(index: Index) -> np.ndarray:
    """Words of every sentence's text, as a budget counts them (cached with the index)."""
    return index.cache.get(WORDS, lambda: np.array([len(s.original.split()) for s in index.sentences]))


def budget_positions(words: Sequence[int] | np.ndarray, budget_sentences: int = 0,
                     budget_words: int = 0) -> list[int]:
    """:func:`apply_budget` on word counts in rank order: the positions it keeps.

    Sentences that do not fit are skipped and later, shorter ones still taken.  Once one does not fit, the
    next that does is found by a vectorised search, so a ranking of every sentence of a collection (30,000 on
    ObliQA) is not walked in Python to fill the last few words.

    >>> budget_positions([3, 5, 2], budget_words=6), budget_positions([3, 5, 2], budget_sentences=2)
    ([0, 2], [0, 1])
    >>> budget_positions([4, 9, 9, 9, 1, 2], budget_words=6)
    [0, 4]
    """
    counts = np.asarray(words, dtype=np.int64)
    kept: list[int] = []
    total, i = 0, 0
    while i < len(counts) and not (budget_sentences and len(kept) >= budget_sentences):
        if budget_words and total + counts[i] > budget_words:
            fitting = np.flatnonzero(counts[i + 1:] <= budget_words - total)
            if not len(fitting):
                break
            i += 1 + int(fitting[0])
        kept.append(i)
        total += int(counts[i])
        i += 1
    return kept


def selected_sentence(index: Index, row: int, **fields: Any) -> SelectedSentence:
    """The context sentence at ``row`` with its provenance (document, source file, page, section)."""
    s = index.sentences[row]
    entry = index.document(s.doc_id) if s.doc_id else None
    return SelectedSentence(s.id, s.position, s.original, s.resolved, **fields, document=s.doc_id,
                            source_file=entry.manifest.source_file if entry else "", page=s.page, section=s.section,
                            role=s.role, citations=list(s.citations))


def number_ranks(ranked: list[SelectedSentence]) -> list[SelectedSentence]:
    """Set each sentence's ``rank`` (1 = best) from its place in ``ranked``; returns ``ranked``."""
    for rank, sentence in enumerate(ranked, start=1):
        sentence.rank = rank
    return ranked


def in_scope(rows: list[int], scope: np.ndarray | None) -> list[int]:
    """The rows a scope (from :meth:`~kgcore.index.store.in_memory.Index.sentence_scope`) allows, in order."""
    return rows if scope is None else [r for r in rows if scope[r]]


def question_vector(index: Index, embedder: Embedder, question: str) -> tuple[np.ndarray, np.ndarray]:
    """The question's embedding and its cosine to every sentence of the index."""
    q = embedder.encode([question])[0]
    return q, index.sentence_vectors @ q


def author_sentences(index: Index, documents: Sequence[str] = ()) -> list[SelectedSentence]:
    """The author lines of ``documents`` (every document of the index when empty) as context sentences
    (:func:`~kgcore.query.answer.authorship.author_rows`), in document order."""
    rows = index.role_rows(frozenset({AUTHORS, FRONT_MATTER})).nonzero()[0]
    sentences = [index.sentences[int(r)] for r in rows]
    lines = author_rows([s.role for s in sentences], [s.original for s in sentences], [s.doc_id for s in sentences],
                        documents)
    return [selected_sentence(index, int(rows[i])) for i in lines]


def with_author_lines(result: QueryResult, lines: Sequence[SelectedSentence]) -> QueryResult:
    """``result`` with author ``lines`` first in its context, for a question asking who wrote the documents
    (:func:`~kgcore.query.answer.authorship.asks_authors`, which the caller checks before finding the lines);
    title pages are otherwise left out of retrieval.  The budget yields to them: they are a few short lines, and
    the question cannot be answered without them."""
    have = {s.id for s in result.sentences}
    added = [s for s in lines if s.id not in have]
    if added:
        result.sentences = added + result.sentences
        result.notes.append(NOTE)
    return result
