"""The ranked graph methods on one shard, scored as one process over the whole collection scores them.

GroundedKG's fused ranking (:mod:`kgcore.query.fused`) and ``lesegr`` scale every signal by the collection: BM25
reads the collection's idf, a signal's rank is its rank among every sentence in scope, the message gates and the
graph evidence are divided by the best anywhere, a node's specificity is an idf over the collection's sentences
and its alignment evidence is measured against the query node's best match anywhere.  A shard holds some
documents only, so the driver (:mod:`kgcore.query.sharded_graph`) gathers those statistics from every shard and
hands them back, as it does for ``bm25`` (:class:`~kgcore.query.shard.CollectionBM25`):

* once, when the engine starts: the sentences and action labels of the whole
  (:class:`~kgcore.index.store.partial.Whole`), then the word counts of the sparse signal's sentences and chunks
  (:meth:`GraphScorer.use_whole`, :meth:`GraphScorer.use_text`);
* per question: each query node's best cosine (:meth:`GraphScorer.best`, ``groundedkg`` only), then each
  signal's best value and positive values in scope (:meth:`GraphScorer.measure`), which the driver turns into
  :class:`~kgcore.query.propagation.Scales`; with them the shard ranks (:meth:`GraphScorer.rank`) and the driver
  pages through the rankings as it does for ``dense``.

A shard propagates over its part of the collection's contextual graph (:mod:`kgcore.query.shard_links`); the
messages of links that cross shards are traded by the driver layer by layer (:meth:`GraphScorer.signals`,
:meth:`GraphScorer.export`, then :meth:`GraphScorer.rank` with what the shard heard), so the merged ranking is one
process's (``tests/models/test_sharded_models.py``).  The multi-hop walk
(:mod:`kgcore.query.multihop`) runs in the driver over every shard's pages (:mod:`kgcore.query.sharded_walk`),
reading each shard's pages and sentences (:meth:`GraphScorer.pages`, :meth:`GraphScorer.page`,
:meth:`GraphScorer.sentences`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from kgcore.core.repeats import text_key
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import Match, SelectedSentence
from kgcore.index.store.disk import Index
from kgcore.index.store.partial import Whole, part_counts, use_whole
from kgcore.index.views.contextual import CONTEXT_GRAPH, context_graph
from kgcore.index.views.pages import EntityPages, part_pages
from kgcore.query import expanded_bm25, fused, multihop, names, propagation
from kgcore.query.align import GraphMatch, aligned_nodes
from kgcore.query.asked_kind import resolved_pair
from kgcore.query.context import question_vector, sentence_words
from kgcore.query.fused import Ranking, explained, node_name, ranking, stage_layers, text_order
from kgcore.query.global_bm25 import BM25Counts, CollectionBM25, GlobalBM25, bm25_counts
from kgcore.query.match import Pool
from kgcore.query.methods.groundedkg import asked_kind, match_question, realigned
from kgcore.query.shard_links import Exported, Heard, ShardLinks


class CollectionScored:
    """A shard's sentences (or chunks) scored by BM25 with the collection's statistics, read as
    :class:`~kgcore.query.sparse_bm25.SparseBM25` is read (``get_scores``, ``holding``)."""

    def __init__(self, corpus: Sequence[Sequence[str]], stats: CollectionBM25) -> None:
        self.model, self.stats = GlobalBM25(corpus), stats

    def get_scores(self, tokens: Sequence[str]) -> np.ndarray:
        return self.model.scores(self.stats.query(tokens))

    def holding(self, terms: Sequence[str]) -> np.ndarray:
        """How many of the question's names each sentence (or chunk) holds (what the names weight reads)."""
        return self.model.holding(terms)


def _scored(corpus: Sequence[Sequence[str]], stats: CollectionBM25) -> Any:
    """A :class:`CollectionScored`, kept where a SparseBM25 is kept (both are read by ``get_scores``)."""
    return CollectionScored(corpus, stats)


def text_keys(texts: Sequence[str]) -> np.ndarray:
    """An id of each text, whitespace and case aside, the same in every process (the driver leaves out a text that
    repeats a better-ranked one of another shard, as :func:`~kgcore.query.fused.first_of_each_text` does in one).

    >>> a, b, c = text_keys(["Conflicts of interest.", "conflicts  of Interest. ", "Yes."]).tolist()
    >>> a == b != c
    True
    """
    keys = [hashlib.blake2b(text_key(t).encode(), digest_size=8).digest() for t in texts]
    return np.array([int.from_bytes(k, "big", signed=True) for k in keys], dtype=np.int64)


@dataclass
class Asked:
    """What a shard keeps of the question it is ranking between the driver's calls."""

    question: str
    options: RetrievalOptions
    vector: np.ndarray
    sims: np.ndarray
    scope: np.ndarray | None
    gm: GraphMatch | None = None
    ranking: Ranking | None = None
    #: The first stage's signals, once :meth:`GraphScorer.signals` made them (with the collection's scales).
    sig: propagation.Signals | None = None


class GraphScorer:
    """The ranked graph methods over one shard's ``index`` (``rows``: each row's row in the collection),
    ``engine`` giving the models (a :class:`~kgcore.query.engine.QueryEngine`); ``links``: the shard's part of
    the collection's contextual graph (None: the graph of its own documents, links to other shards cut)."""

    def __init__(self, index: Index, rows: np.ndarray, engine: Any, links: ShardLinks | None = None) -> None:
        self.index, self.rows, self.engine, self.links = index, rows, engine, links
        self._install()
        self.local = {int(row): n for n, row in enumerate(rows)}  # a row in the collection -> this shard's
        self.asked: Asked | None = None
        self._text_keys: np.ndarray | None = None
        self._tokens: tuple[list[list[str]], list[list[str]]] | None = None
        self._matched: tuple[str, RetrievalOptions, GraphMatch] | None = None

    def counts(self) -> Whole:
        return part_counts(self.index)

    def use_whole(self, whole: Whole) -> tuple[BM25Counts, BM25Counts]:
        """Weigh nodes by ``whole``; this shard's word counts of the sparse signal's sentences and chunks."""
        use_whole(self.index, whole)
        self._install()
        sentences, chunks = self._corpora()
        return bm25_counts(sentences), bm25_counts(chunks)

    def _corpora(self) -> tuple[list[list[str]], list[list[str]]]:
        """The sparse signal's sentence and chunk tokens, made once: counted by :meth:`use_whole`, scored by
        :meth:`use_text` (which lets them go)."""
        if self._tokens is None:
            cg = context_graph(self.index)
            self._tokens = (expanded_bm25.expanded_corpus(self.index),
                            expanded_bm25.chunk_corpus(self.index, cg, propagation.EXPANDED))
        return self._tokens

    def use_text(self, sentences: CollectionBM25, chunks: CollectionBM25) -> None:
        """Score the sparse signal with the collection's statistics (the models the signal reads, replaced)."""
        sentence_corpus, chunk_corpus = self._corpora()
        self._tokens = None  # the models keep their own counts
        for key, corpus, stats in ((expanded_bm25.SENTENCE_BM25, sentence_corpus, sentences),
                                   (expanded_bm25.EXPANDED_CHUNK_BM25, chunk_corpus, chunks)):
            self.index.cache.drop(key)
            self.index.cache.get(key, partial(_scored, corpus, stats))

    def _install(self) -> None:
        """The shard's part of the collection's contextual graph, as the one its methods read."""
        if self.links is not None:
            self.index.cache.get(CONTEXT_GRAPH, lambda: self.links.cg)  # type: ignore[union-attr]

    def link_ends(self) -> tuple[str | None, np.ndarray, np.ndarray, list[str]]:
        """The stamp of the collection's graph this shard took its part of (None: it has none, its links are
        cut), the collection's nodes it hears (its ghosts), and those it sends with their names."""
        if self.links is None:
            return None, np.zeros(0, np.int64), np.zeros(0, np.int64), []
        cg, sent = context_graph(self.index), self.links.exported
        return (self.links.stamp, self.links.boundary.ids, self.links.nodes[sent],
                [node_name(self.index, cg, int(p)) for p in sent])

    def name_ghosts(self, names: Sequence[str]) -> None:
        """Each ghost's name, as the shard holding it gave it (to explain its messages)."""
        if self.links is not None:
            self.links.boundary.names = list(names)

    def best(self, question: str, options: RetrievalOptions) -> tuple[np.ndarray, list[Pool]]:
        """Each query node's best cosine in this shard, and its pool of candidates here (``groundedkg``)."""
        gm = self._match(question, options, None, pools=True)
        self._matched = (question, options, gm)  # measure() aligns it again with the collection's best
        best = gm.alignment.best if gm.alignment.best is not None else np.zeros(0)
        return best, gm.pools or []

    def context(self, question: str, options: RetrievalOptions) -> list[Pool]:
        """For a question out of this shard's documents: per query node, no candidates, only the context maxima
        of the nodes other shards hold too (:func:`~kgcore.query.match.crossing_context`), which rank such a
        node by all its neighbours, these documents' too, as one process does."""
        self.asked, self._matched = None, None  # nothing of an earlier question is ranked or sent for this one
        gm = self._match(question, dataclasses.replace(options, documents=()), None, pools=True)
        return [dataclasses.replace(p, finite=0, candidates=[]) for p in gm.pools or []]

    def text_keys(self) -> np.ndarray:
        """Each sentence's text id (:func:`text_keys`), made once."""
        if self._text_keys is None:
            self._text_keys = text_keys([s.original for s in self.index.sentences])
        return self._text_keys

    def pages(self) -> tuple[EntityPages, dict[int, str]]:
        """This shard's entity pages, placed in the collection (:func:`~kgcore.index.views.pages.part_pages`)."""
        return part_pages(self.index, self.rows)

    def measure(self, question: str, options: RetrievalOptions, best: np.ndarray | None,
                matches: list[Match] | None = None) -> tuple[dict[str, float], dict[str, np.ndarray]]:
        """This shard's :func:`~kgcore.query.propagation.measures` of the question (``best``: the query nodes'
        best cosines over the collection, ``matches`` this shard's share of its top-K, for ``groundedkg``)."""
        if options.method == "groundedkg":
            gm = self._aligned(question, options, best)
            gm.matches = list(matches) if matches is not None else gm.matches
            self.asked = Asked(question, options, gm.vector, gm.sims, gm.scope, gm)
        else:
            vector, sims = question_vector(self.index, self.engine.embedder, question)
            scope = self.index.sentence_scope(options.documents, options.front_matter)
            self.asked = Asked(question, options, vector, sims, scope)
        a = self.asked
        graph = a.gm.alignment.graph if a.gm is not None else None
        return propagation.measures(self.index, context_graph(self.index), question, a.vector, a.sims, a.scope,
                                    graph)

    def signals(self, scales: propagation.Scales, names_weight: float = 0.0) -> propagation.Signals:
        """The measured question's first-stage signals with the collection's ``scales``, kept for :meth:`rank`;
        ``names_weight``: the weight of the question's names the driver decided
        (:func:`kgcore.query.fused.name_weight_for`, none under a walk)."""
        a, cg = self._asked(), context_graph(self.index)
        graph = a.gm.alignment.graph if a.gm is not None else None
        sig = propagation.signals(self.index, cg, a.question, a.vector, a.sims, a.scope, graph, scales)
        a.sig = dataclasses.replace(sig, focus=names.focus(self.index, cg, a.question, names_weight))
        return a.sig

    def export(self, layer: int, heard: Heard | None = None) -> Exported:
        """Each stage's scores entering ``layer`` at the nodes other shards hear (:class:`ShardLinks`)."""
        a = self._asked()
        if self.links is None or a.sig is None:  # nothing this shard sends (the driver trades only with links)
            return Exported(np.zeros(0, np.int64), np.zeros(0), [])
        depths = stage_layers(a.options, a.gm is not None)
        stages = [a.sig, fused.without_graph(a.sig)][: len(depths)]
        edges = fused.gated_edges(self.index, context_graph(self.index))
        return self.links.export(edges, stages, depths, layer, heard)

    def rank(self, scales: propagation.Scales, names_weight: float = 0.0, heard: Heard | None = None
             ) -> tuple[np.ndarray, np.ndarray, int, bool, tuple | None]:
        """Rank the question :meth:`measure` measured with the collection's ``scales``: the order (rows), each
        place's key (its final score), the candidates (sentences in scope), whether any sentence has graph
        evidence, and over :data:`~kgcore.query.fused.GRAPH_HEAD_WORDS` words the order without the graph signal
        and its keys (the second stage; the driver decides whether the collection takes it).  The multi-hop walk
        is the driver's, over every shard (:mod:`kgcore.query.sharded_walk`); ``heard``: the messages of the
        other shards' nodes, every layer's (the signals :meth:`signals` made are used); ``names_weight`` as
        :meth:`signals` takes it."""
        a, cg = self._asked(), context_graph(self.index)
        sig = a.sig if heard is not None and a.sig is not None else self.signals(scales, names_weight)
        stages = range(len(stage_layers(a.options, a.gm is not None)))
        incoming = tuple(self.links.incoming(heard, s) for s in stages) if self.links is not None else ()
        a.ranking = r = ranking(self.index, cg, sig, a.options, a.gm, incoming=incoming,
                                boundary=self.links.boundary if self.links is not None else None)
        second = None
        if a.gm is not None and a.options.budget_words > fused.GRAPH_HEAD_WORDS:
            order = text_order(self.index, cg, r, a.options)
            second = (order, r.stages[1][1][-1][order].astype(np.float64))
        return (r.order, r.finals().astype(np.float64), int(sig.scope[: cg.n_sentences].sum()),
                bool(sig.graph.any()), second)

    def holds(self, rows: Sequence[int]) -> list[bool]:
        """Whether each of ``rows`` (in the collection) holds an answer of the kind the ranked question asks for
        (:mod:`kgcore.query.asked_kind`; none for a kind that raises nothing)."""
        a = self._asked()
        kind = asked_kind(a.question, self.engine.models().nlp) if a.gm is not None else None
        if kind is None:
            return [False] * len(rows)
        sentences = [self.index.sentences[self.local[int(row)]] for row in rows]
        return kind.holds([resolved_pair(s) for s in sentences]).tolist()

    def page(self, doc: str) -> tuple[list[int], list[float]]:
        """A page's sentences retrieval may use (rows in the collection, reading order) and their fused scores."""
        r = self._ranking()
        allowed = self._asked().scope
        rows = np.flatnonzero(self.index.sentence_documents == doc)
        rows = rows[allowed[rows]] if allowed is not None else rows
        final = r.stages[0][1][-1]
        return [int(self.rows[row]) for row in rows], [float(final[row]) for row in rows]

    def sentences(self, rows: Sequence[int]) -> list[tuple[str, str, list[str], int]]:
        """Each sentence's (rows in the collection) document, text, proper-name entity labels and words."""
        local = [self.local[row] for row in rows]
        words = sentence_words(self.index)
        return [(*multihop.sentence_names(self.index, row), int(words[row])) for row in local]

    def selected(self, rows: Sequence[int], text: Sequence[int] = (), two_stages: bool = False
                 ) -> list[SelectedSentence]:
        """The sentences at ``rows`` (in the collection) explained as one process explains them in the last
        ranking, placed in the collection; ``text``: rows the second stage ranked (``two_stages``: the
        collection ranked in two stages, so each says which)."""
        a, r = self._asked(), self._ranking()
        stages = r.stages if two_stages else r.stages[:1]
        out: dict[int, SelectedSentence] = {}
        second = set(text)
        for wanted, head in (([x for x in rows if x not in second], True), (list(text), False)):
            local = np.asarray([self.local[row] for row in wanted], dtype=np.int64)
            part = dataclasses.replace(r, order=local, head=len(local) if head else 0, stages=stages)
            for row, s in zip(wanted, explained(self.index, context_graph(self.index), part, range(len(local)),
                                                a.gm)):
                if a.gm is not None:
                    s.aligned = aligned_nodes(self.index, a.gm.alignment, self.local[row], a.gm.query_keys,
                                              a.gm.query_edges)
                out[row] = dataclasses.replace(s, position=row)
        return [out[row] for row in rows]

    def _ranking(self) -> Ranking:
        r = self._asked().ranking
        if r is None:
            raise RuntimeError("the question is not ranked yet")
        return r

    def _asked(self) -> Asked:
        if self.asked is None:
            raise RuntimeError("rank needs the question measured first")
        return self.asked

    def _aligned(self, question: str, options: RetrievalOptions, best: np.ndarray | None) -> GraphMatch:
        """The question matched and aligned with the collection's ``best`` cosines: the match :meth:`best` made of
        the same question aligned again (the question is not parsed, embedded or matched twice), else a new one."""
        kept, self._matched = self._matched, None
        if kept is not None and best is not None and kept[:2] == (question, options):
            return realigned(self.index, kept[2], best)
        return self._match(question, options, best)

    def _match(self, question: str, options: RetrievalOptions, best: np.ndarray | None,
               pools: bool = False) -> GraphMatch:
        parser = self.engine.models().parser(self.index.manifest.options.parser)
        return match_question(self.index, question, options, parser, self.engine.embedder,
                              best=None if best is None else np.asarray(best), pools=pools)
