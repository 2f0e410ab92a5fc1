"""One shard of a sharded collection: some documents, loaded by one process (a Ray actor), answering for them.

A shard (:class:`Shard`) holds its documents' sentences and vectors (:mod:`kgcore.index.store.partial`) and keeps
its ranking of the last question under each signal, so the driver (:mod:`kgcore.query.sharded`) can page through
it.  Three kinds of answer, one per way of merging:

* **signals one process would compute the same** (``dense``: the cosine to the question; ``bm25``: Okapi BM25
  with the *collection's* statistics, :class:`~kgcore.query.global_bm25.GlobalBM25`): :meth:`Shard.rank` ranks by
  them, :meth:`Shard.page` sends the ranking page by page, and the driver merges the pages exactly;
* **the ranked graph methods scored with the collection's statistics** (``groundedkg``'s fused ranking and
  multi-hop walk, ``lesegr``; :mod:`kgcore.query.shard_graph`): the driver gathers what the ranking normalises
  by from every shard (:meth:`Shard.use_whole`, :meth:`Shard.graph_best`, :meth:`Shard.graph_measure`) and
  hands it back; :meth:`Shard.graph_rank` ranks, and the driver pages through the ranking as above;
* **any registered method run on the shard's documents alone** (``groundedkg``'s paper union and graph-score
  ranking): :meth:`Shard.run` answers the question as a collection of those documents would, and returns its
  selected sentences with their scores, for the driver to merge by score.

Okapi BM25 over the whole collection, scored shard by shard, is :mod:`kgcore.query.global_bm25`.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kgcore.core.heap import release_free_memory
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.types import Match, SelectedSentence
from kgcore.index.store.disk import Store
from kgcore.index.store.footprint import process_memory
from kgcore.index.store.partial import Whole, load_linked_part, load_part
from kgcore.index.views.pages import EntityPages
from kgcore.query import methods
from kgcore.query.context import author_sentences, in_scope, selected_sentence, sentence_words
from kgcore.query.engine import QueryEngine
from kgcore.query.fused import DEDUPE_TEXTS
from kgcore.query.global_bm25 import BM25Counts, CollectionBM25, GlobalBM25, bm25_counts, collection_bm25
from kgcore.query.match import Pool
from kgcore.query.propagation import Scales
from kgcore.query.sentence_ranking import by_score, sentence_tokens
from kgcore.query.shard_graph import GraphScorer
from kgcore.query.shard_links import Exported, Heard, ShardLinks
from kgcore.query.spelling import Vocabulary, collection_vocabulary

__all__ = ["BM25Counts", "CollectionBM25", "GlobalBM25", "Item", "Shard", "bm25_counts", "collection_bm25"]

#: (score, row in the collection, words, the shard's position of it in its ranking, the id of its text where the
#: ranking leaves out repeated texts (:func:`~kgcore.query.shard_graph.text_keys`), else 0)
Item = tuple[float, int, int, int, int]


class Shard:
    """One shard's documents and its rankings of the last question (a Ray actor, or a plain object in tests).

    ``graph``: also link the documents' graphs and load the models, for :meth:`run` (the graph methods)."""

    def __init__(self, store_root: str, name: str, doc_ids: Sequence[str], graph: bool = False,
                 settings: Settings | None = None) -> None:
        self.doc_ids, self.engine, self._views = set(doc_ids), None, None
        links = None
        if graph:
            store = Store(store_root)
            self.engine = QueryEngine(store, settings or Settings.from_env())
            self._views = Path(tempfile.mkdtemp(prefix=f"kgcore-shard-{name}-"))
            try:
                part = load_linked_part(store, name, doc_ids, self._views)
                whole = store.manifest(name)
                if whole.generation == part.index.manifest.generation:
                    links = ShardLinks.load(store.doc_path(name), whole, part.rows)
            except BaseException:
                self.close()  # no private folder is left behind by a shard that could not load
                raise
        else:
            part = load_part(Store(store_root), name, doc_ids)
        self.index, self.rows = part.index, part.rows
        release_free_memory()  # what reading the part's files freed, given back: the actor keeps its part
        self.scorer = GraphScorer(self.index, self.rows, self.engine, links) if graph else None
        self._bm25: GlobalBM25 | None = None
        self._sims = np.zeros(0, dtype=np.float32)
        self._ranked: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._texts: dict[str, np.ndarray] = {}  # per ranking that leaves out repeated texts: each row's text id
        self._raised: dict[str, dict[int, str]] = {}  # per ranking, rows (in the collection) raised -> the kind

    def memory(self) -> dict[str, float]:
        """This shard's process: its resident MB, the part of it that is shared (pages of mapped files, shared
        libraries and shared memory: psutil's ``shared``), and its share of the collection (documents, sentences,
        graph nodes)."""
        resident, mapped = process_memory()
        return {"resident_mb": round(resident, 1), "mapped_mb": round(mapped, 1), "documents": len(self.doc_ids),
                "sentences": len(self.index.sentences), "nodes": len(self.index.graph.nodes)}

    def close(self) -> None:
        """Remove the private folder of derived views."""
        if self._views is not None:
            shutil.rmtree(self._views, ignore_errors=True)

    def bm25_counts(self) -> BM25Counts:
        """This shard's :class:`BM25Counts` (the tokens one process's BM25 reads: an empty sentence is ``_``)."""
        return bm25_counts(self._tokens())

    def author_lines(self, documents: Sequence[str]) -> list[SelectedSentence]:
        """This shard's author lines of ``documents`` (all of its documents when empty)."""
        return author_sentences(self.index, documents)

    def vocabulary(self) -> Vocabulary:
        """How often this shard's documents write each word (:mod:`kgcore.query.spelling`)."""
        return collection_vocabulary(self.index)

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
        texts = self._texts.get(signal)
        items = [(float(scores[p]), int(self.rows[order[p]]), int(words[p - start]), int(p),
                  int(texts[order[p]]) if texts is not None else 0) for p in places]
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

    def use_whole(self, whole: Whole | None = None) -> Whole | tuple[BM25Counts, BM25Counts]:
        """Without ``whole``, this shard's counts of it; with the collection's, weigh nodes by it and send the
        word counts of the sparse signal (:meth:`~kgcore.query.shard_graph.GraphScorer.use_whole`)."""
        return self._scorer().counts() if whole is None else self._scorer().use_whole(whole)

    def use_text_counts(self, sentences: CollectionBM25, chunks: CollectionBM25) -> None:
        self._scorer().use_text(sentences, chunks)

    def graph_best(self, question: str, options: RetrievalOptions) -> tuple[np.ndarray | None, list[Pool]]:
        """Each query node's best cosine and pool of candidates in this shard; out of ``options.documents``, no
        best and pools of context only (:meth:`~kgcore.query.shard_graph.GraphScorer.context`)."""
        mine = self._mine(options)
        return (None, self._scorer().context(question, options)) if mine is None else self._scorer().best(question,
                                                                                                         mine)

    def graph_pages(self) -> tuple[EntityPages, dict[int, str]]:
        return self._scorer().pages()

    def graph_page(self, doc: str) -> tuple[list[int], list[float]]:
        return self._scorer().page(doc)

    def graph_sentences(self, rows: Sequence[int]) -> list[tuple[str, str, list[str], int]]:
        return self._scorer().sentences(rows)

    def graph_measure(self, question: str, options: RetrievalOptions, best: np.ndarray | None,
                      matches: list[Match] | None = None) -> tuple[dict[str, float], dict[str, np.ndarray]]:
        """The signals' best and positive values in scope (:func:`~kgcore.query.propagation.measures`);
        ``matches``: this shard's share of the collection's top-K."""
        mine = self._mine(options)
        if mine is None:
            self._scorer().asked = None  # nothing of an earlier question is ranked or sent for this one
            return {}, {}
        return self._scorer().measure(question, mine, best, matches)

    def graph_link_ends(self) -> tuple[str | None, np.ndarray, np.ndarray, list[str]]:
        """The collection's contextual-graph nodes this shard hears (its ghosts), those it sends and their names
        (:meth:`~kgcore.query.shard_graph.GraphScorer.link_ends`)."""
        return self._scorer().link_ends()

    def graph_name_ghosts(self, names: Sequence[str]) -> None:
        self._scorer().name_ghosts(names)

    def graph_signals(self, scales: Scales, options: RetrievalOptions, names_weight: float = 0.0
                      ) -> Exported | None:
        """The measured question's signals with the collection's ``scales``, kept, and the first layer's
        messages to other shards (None: out of ``options.documents``)."""
        if self._mine(options) is None:
            return None
        self._scorer().signals(scales, names_weight)
        return self._scorer().export(0, None)

    def graph_export(self, layer: int, heard: Heard | None) -> Exported | None:
        """The messages to other shards entering ``layer``, given what this shard ``heard`` so far."""
        asked = self._scorer().asked
        return None if asked is None or asked.sig is None else self._scorer().export(layer, heard)

    def graph_rank(self, scales: Scales, options: RetrievalOptions, names_weight: float = 0.0,
                   heard: Heard | None = None) -> tuple[int, bool]:
        """Rank the measured question with the collection's ``scales``: kept as the ``fused`` ranking (and,
        over 1,000 words, the ``text`` ranking without the graph signal), for :meth:`page` and :meth:`better`;
        the candidates, and whether any sentence has graph evidence; ``names_weight``: the weight of the
        question's names (:func:`kgcore.query.fused.name_weight_for`); ``heard``: every layer's messages from
        the other shards' nodes (after :meth:`graph_signals`)."""
        empty = (np.zeros(0, np.int64), np.zeros(0))
        self._ranked, self._texts, out = {"fused": empty, "text": empty}, {}, (0, False)
        self._raised = {}
        if self._mine(options) is not None:
            order, keys, candidates, graph, second = self._scorer().rank(scales, names_weight, heard)
            self._ranked = {"fused": (order, keys)} | ({"text": second} if second is not None else {})
            out = (candidates, graph)
        if DEDUPE_TEXTS:
            self._texts = {signal: self._scorer().text_keys() for signal in self._ranked}
        return out

    def graph_keys(self, signal: str, rows: Sequence[int]) -> list[float | None]:
        """The ``signal`` ranking's key of each of ``rows`` (in the collection; None: not in the ranking)."""
        order, keys = self._ranked.get(signal, (np.zeros(0, np.int64), np.zeros(0)))
        at = {int(self.rows[row]): float(key) for row, key in zip(order, keys)}
        return [at.get(int(row)) for row in rows]

    def graph_holds(self, rows: Sequence[int]) -> list[bool]:
        """Whether each of ``rows`` (in the collection) holds an answer of the question's asked kind
        (:meth:`~kgcore.query.shard_graph.GraphScorer.holds`)."""
        return self._scorer().holds(rows)

    def graph_raise(self, signal: str, rows: Sequence[int], factor: float, kind: str) -> None:
        """The ``signal`` ranking with the keys of ``rows`` (in the collection) times ``factor`` and reordered by
        key (ties: the earlier row first): the collection's first candidates that hold the asked ``kind``, raised as
        :meth:`kgcore.query.asked_kind.AskedKind.raised` raises them in one process (and their ``signals["asked"]``
        says so)."""
        self._raised.setdefault(signal, {}).update(dict.fromkeys((int(row) for row in rows), kind))
        order, keys = self._ranked[signal]
        keys = np.where(np.isin(self.rows[order], np.asarray(rows, dtype=np.int64)), keys * factor, keys)
        at = np.lexsort((self.rows[order], -keys))
        self._ranked[signal] = (order[at], keys[at])

    def graph_selected(self, rows: Sequence[int], text: Sequence[int] = (), two_stages: bool = False
                       ) -> list[SelectedSentence]:
        """The sentences at ``rows`` (in the collection) of the last ranking, explained, placed in the collection
        (:meth:`~kgcore.query.shard_graph.GraphScorer.selected`)."""
        out = self._scorer().selected(rows, text, two_stages)
        for s in out:  # raised by the stage that placed it
            kind = self._raised.get("text" if s.signals.get("stage") == "text" else "fused", {}).get(s.position)
            if kind:
                s.signals["asked"] = kind
        return out

    def _scorer(self) -> GraphScorer:
        if self.scorer is None:
            raise RuntimeError("this shard was loaded without its graph")
        return self.scorer

    def _mine(self, options: RetrievalOptions) -> RetrievalOptions | None:
        """``options`` cut to this shard's documents; None when it has none of them."""
        mine = tuple(d for d in options.documents if d in self.doc_ids)
        return None if options.documents and not mine else dataclasses.replace(options, documents=mine)

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
