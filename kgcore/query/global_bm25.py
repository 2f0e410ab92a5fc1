"""Okapi BM25 over a whole collection, scored part by part (the shards of :mod:`kgcore.query.sharded`).

Every shard counts its words (:meth:`Shard.bm25_counts`),
the driver adds the counts up (:func:`collection_bm25`) and sends each question's words with their collection-wide
idf, so a sentence scores what it scores in one process:

>>> counts = [bm25_counts([["peter", "rabbit"], ["peter", "garden", "garden"]]), bm25_counts([["cat"]])]
>>> stats = collection_bm25(counts)
>>> weights = stats.query(["garden", "peter"])
>>> [round(float(x), 4) for x in GlobalBM25([["peter", "rabbit"], ["peter", "garden", "garden"]]).scores(weights)]
[0.0639, 0.6808]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from kgcore.query.sparse_bm25 import documents_holding, term_counts

#: BM25's constants, as :class:`~kgcore.query.sparse_bm25.SparseBM25` (and ``rank_bm25``) has them.
K1, B, EPSILON = 1.5, 0.75, 0.25


@dataclass(frozen=True)
class BM25Counts:
    """What a shard tells the driver once for BM25: its sentences, their total tokens, each word's sentences."""

    sentences: int
    tokens: int
    df: Counter[str]


def bm25_counts(corpus: Sequence[Sequence[str]]) -> BM25Counts:
    """The :class:`BM25Counts` of a tokenised corpus."""
    return BM25Counts(len(corpus), sum(len(d) for d in corpus), Counter(w for d in corpus for w in set(d)))


@dataclass(frozen=True)
class CollectionBM25:
    """The collection's BM25 statistics, added up from every shard's :class:`BM25Counts`."""

    sentences: int
    mean_length: float
    df: dict[str, int]
    floor: float

    def query(self, tokens: Sequence[str]) -> tuple[dict[str, tuple[int, float]], float]:
        """The question's words that occur, each with its count in the question and collection-wide idf; and the
        mean sentence length (what a shard needs to score its sentences as one process would)."""
        wanted = Counter(w for w in tokens if w in self.df)
        return {w: (n, self.idf(w)) for w, n in wanted.items()}, self.mean_length

    def idf(self, word: str) -> float:
        df = self.df[word]
        value = float(np.log(self.sentences - df + 0.5) - np.log(df + 0.5))
        return self.floor if value < 0 else value


def collection_bm25(counts: Sequence[BM25Counts]) -> CollectionBM25:
    """Every shard's counts added up; the idf floor (``EPSILON`` times the mean idf over the whole vocabulary)
    as :class:`~kgcore.query.sparse_bm25.SparseBM25` computes it over one process's vocabulary."""
    n = sum(c.sentences for c in counts)
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.df)
    values = np.array(list(df.values()), dtype=np.float64)
    idf = np.log(n - values + 0.5) - np.log(values + 0.5)
    floor = EPSILON * float(idf.mean()) if len(idf) else 0.0
    return CollectionBM25(n, sum(c.tokens for c in counts) / max(n, 1), dict(df), floor)


class GlobalBM25:
    """A shard's term counts, scored with the collection's idf and mean length (see the module docstring)."""

    def __init__(self, corpus: Sequence[Sequence[str]]) -> None:
        self.vocabulary, rows, cols, counts = term_counts(corpus)
        self.lengths = np.array([len(d) for d in corpus], dtype=np.float64)
        self.tf = sparse.csc_matrix((counts, (rows, cols)), shape=(len(corpus), len(self.vocabulary)))

    def holding(self, terms: Sequence[str]) -> np.ndarray:
        """Per sentence, how many of the distinct ``terms`` it holds, as
        :meth:`~kgcore.query.sparse_bm25.SparseBM25.holding` counts them.

        >>> GlobalBM25([["anne", "walk"], ["gilbert"], ["anne", "gilbert"]]).holding(["anne", "gilbert", "x"]).tolist()
        [1, 1, 2]
        """
        return documents_holding(self.tf, self.vocabulary, terms)

    def scores(self, weights: tuple[dict[str, tuple[int, float]], float]) -> np.ndarray:
        """Every sentence's BM25 for the question's words ``(word -> (count, idf), mean length)``."""
        words, mean_length = weights
        norm = K1 * (1 - B + B * self.lengths / mean_length)
        out = np.zeros(len(self.lengths))
        for word, (count, idf) in words.items():
            col = self.vocabulary.get(word)
            if col is None:
                continue
            lo, hi = self.tf.indptr[col], self.tf.indptr[col + 1]
            rows, tf = self.tf.indices[lo:hi], self.tf.data[lo:hi]
            out[rows] += count * (idf * tf * (K1 + 1) / (tf + norm[rows]))
        return out
