"""One shard of a sharded collection: some documents, loaded by one process (a Ray actor), answering for them.

A shard (:class:`Shard`) holds its documents' sentences and vectors (:mod:`kgcore.index.store.partial`) and keeps
its ranking of the last question under each signal, so the driver (:mod:`kgcore.query.sharded`) can page through
it.  Three kinds of answer, one per way of merging:

* **signals one process would compute the same** (``dense``: the cosine to the question; ``bm25``: Okapi BM25
  with the *collection's* statistics, :class:`GlobalBM25`): :meth:`Shard.rank` ranks by them, :meth:`Shard.page`
  sends the ranking page by page, and the driver merges the pages exactly;
* **any registered method run on the shard's documents alone** (the graph methods: ``groundedkg``, its fused
  ranking and multi-hop walk, ``lesegr``): :meth:`Shard.run` answers the question as a collection of those
  documents would, and returns its selected sentences with their scores, for the driver to merge by score.

Okapi BM25 over a whole collection, scored shard by shard: every shard counts its words (:meth:`Shard.bm25_counts`),
the driver adds the counts up (:func:`collection_bm25`) and sends each question's words with their collection-wide
idf, so a sentence scores what it scores in one process:

>>> counts = [bm25_counts([["peter", "rabbit"], ["peter", "garden", "garden"]]), bm25_counts([["cat"]])]
>>> stats = collection_bm25(counts)
>>> weights = stats.query(["garden", "peter"])
>>> [round(float(x), 4) for x in GlobalBM25([["peter", "rabbit"], ["peter", "garden", "garden"]]).scores(weights)]
[0.0639, 0.6808]
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.types import SelectedSentence
from kgcore.index.store.disk import Store
from kgcore.index.store.partial import load_linked_part, load_part
from kgcore.query import methods
from kgcore.query.context import in_scope, selected_sentence, sentence_words
from kgcore.query.engine import QueryEngine
from kgcore.query.sentence_ranking import by_score, sentence_tokens
from kgcore.query.sparse_bm25 import term_counts

#: (score, row in the collection, words, the shard's position of it in its ranking)
Item = tuple[float, int, int, int]
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


class Shard:
    """One shard's documents and its rankings of the last question (a Ray actor, or a plain object in tests).

    ``graph``: also link the documents' graphs and load the models, for :meth:`run` (the graph methods)."""

    def __init__(self, store_root: str, name: str, doc_ids: Sequence[str], graph: bool = False,
                 settings: Settings | None = None) -> None:
        self.doc_ids, self.engine, self._views = set(doc_ids), None, None
        if graph:
            self.engine = QueryEngine(Store(store_root), settings or Settings.from_env())
            self._views = Path(tempfile.mkdtemp(prefix=f"kgcore-shard-{name}-"))
            part = load_linked_part(Store(store_root), name, doc_ids, self.engine.embedder, self._views)
        else:
            part = load_part(Store(store_root), name, doc_ids)
        self.index, self.rows = part.index, part.rows
        self._bm25: GlobalBM25 | None = None
        self._sims = np.zeros(0, dtype=np.float32)
        self._ranked: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def close(self) -> None:
        """Remove the private folder of derived views."""
        if self._views is not None:
            shutil.rmtree(self._views, ignore_errors=True)

    def bm25_counts(self) -> BM25Counts:
        """This shard's :class:`BM25Counts` (the tokens one process's BM25 reads: an empty sentence is ``_``)."""
        return bm25_counts(self._tokens())

    def _tokens(self) -> list[list[str]]:
        return [t or ["_"] for t in sentence_tokens(self.index).written]

    def rank(self, vector: np.ndarray, weights: Any, documents: Sequence[str], front_matter: bool) -> tuple[int, int]:
        """Rank this shard's sentences (within ``documents`` when given) by the cosine to ``vector`` (``dense``)
        and, with ``weights`` (:meth:`CollectionBM25.query`), by BM25 (``bm25``); how many are in scope, and the
        words of the shortest (0 when none)."""
        mine = [d for d in documents if d in self.doc_ids]
        self._sims = self.index.sentence_vectors @ vector
        signals = {"dense": self._sims}
        if weights is not None:
            if self._bm25 is None:
                self._bm25 = GlobalBM25(self._tokens())
            signals["bm25"] = self._bm25.scores(weights)
        self._ranked = {}
        for signal, values in signals.items():
            kept: list[int] = []
            if not documents or mine:
                kept = in_scope(by_score(values)[0], self.index.sentence_scope(mine, front_matter))
            order = np.asarray(kept, dtype=np.int64)
            self._ranked[signal] = (order, np.asarray(values, dtype=np.float64)[order])
        order = self._ranked["dense"][0]
        return len(order), int(sentence_words(self.index)[order].min()) if len(order) else 0

    def page(self, signal: str, start: int, count: int, max_words: int | None) -> tuple[list[Item], int]:
        """The next ``count`` sentences of the ``signal`` ranking from place ``start`` with at most ``max_words``
        words, and the place after the last one sent (the end when none is left)."""
        order, scores = self._ranked[signal]
        words = sentence_words(self.index)[order[start:]]
        places = np.arange(len(words)) if max_words is None else np.flatnonzero(words <= max_words)
        places = places[:count] + start
        items = [(float(scores[p]), int(self.rows[order[p]]), int(words[p - start]), int(p)) for p in places]
        return items, int(places[-1]) + 1 if len(places) else len(order)

    def better(self, signal: str, keys: Sequence[tuple[float, int]]) -> list[int]:
        """For each (score, row), how many of this shard's sentences rank before it under ``signal``."""
        order, scores = self._ranked[signal]
        rows, descending = self.rows[order], -scores  # scores fall along the ranking: a binary search finds each
        out = []
        for s, r in keys:
            lo, hi = np.searchsorted(descending, -s, side="left"), np.searchsorted(descending, -s, side="right")
            out.append(int(lo + np.count_nonzero(rows[lo:hi] < r)))
        return out

    def scores_of(self, signal: str, places: Sequence[int], other: str) -> list[float]:
        """The ``other`` signal's score of the sentences at ``places`` of the ``signal`` ranking (a sentence out
        of scope has none there either: both rankings hold the same sentences)."""
        order = self._ranked[signal][0]
        other_order, other_scores = self._ranked[other]
        at = {int(r): i for i, r in enumerate(other_order)}
        return [float(other_scores[at[int(order[p])]]) for p in places]

    def selected(self, signal: str, places: Sequence[int]) -> list[SelectedSentence]:
        """The sentences at ``places`` of the ``signal`` ranking, as context sentences placed in the collection."""
        order, scores = self._ranked[signal]
        out = []
        for p in places:
            row = int(order[p])
            chosen = selected_sentence(self.index, row, similarity=round(float(self._sims[row]), 4),
                                       score=round(float(scores[p]), 4))
            out.append(dataclasses.replace(chosen, position=int(self.rows[row])))
        return out

    def run(self, question: str, options: RetrievalOptions) -> tuple[list[SelectedSentence], int]:
        """``options.method`` on this shard's documents alone (a shard made with ``graph``): its selected
        sentences placed in the collection, best first, and its candidates.  Out of ``options.documents``
        entirely, nothing (the method would read the empty selection as every document)."""
        if self.engine is None:
            raise RuntimeError("this shard was loaded without its graph")
        mine = tuple(d for d in options.documents if d in self.doc_ids)
        if options.documents and not mine:
            return [], 0
        result = methods.get(options.method).retrieve(self.index, question, dataclasses.replace(
            options, documents=mine), self.engine.models())
        placed = [dataclasses.replace(s, position=int(self.rows[s.position])) for s in result.sentences]
        return sorted(placed, key=lambda s: (s.rank or len(placed) + 1, -s.score)), result.candidates
