"""LeSeGR (lexical-semantic graph retrieval): lexical and semantic relevance propagated over the contextual graph, in a
parameter-free form.

Every node of the contextual graph (:mod:`kgcore.index.views.contextual`:
sentences and chunks) starts from its own relevance to the question,

    f0(i) = W_SPARSE * sparse(i) + dense(i) [+ W_GRAPH * graph(i) * dense(i)]

* ``sparse``: BM25 of the node's text (sentences and chunks each have a
  BM25 model), on the reciprocal-rank scale (:func:`rank_scaled`): the
  best node in scope 1, the r-th (K + 1) / (K + r), no match 0 (see
  :data:`SCALE`).  The text is the written one plus each word coreference
  adds, once (:func:`~kgcore.query.expanded_bm25.expanded_tokens`): "I was born in the year 1632" is
  also a sentence about Robinson Crusoe, "he kissed her" one about Raoul
  and Christine (see :data:`EXPANDED`);
* ``dense``: cosine of question and node vector, on the same scale;
* ``graph`` (the **fused GroundedKG ranking** only): GroundedKG's alignment
  evidence (:mod:`kgcore.query.align`: the query graph's nodes and edges
  recurring among the sentence's own nodes), divided by the best; chunks
  take the best of their sentences.  It counts in proportion to the node's
  dense relevance (:data:`GRAPH_GATE`): structure without meaning is no
  evidence.

Then L layers of message passing.  The message from neighbour j to node i
is gated, as in LeSeGR, by the *query-neighbour sparse relevance*
``gate(j)`` (its BM25 divided by the best in scope) and the
*node-neighbour dense relevance* ``affinity(i, j)`` (cosine of the two
nodes, precomputed per edge) times the edge weight:

    w(i, j) = weight(i, j) * affinity(i, j) * gate(j)
    mean:  f_{l+1}(i) = (f_l(i) + sum_j w(i, j) f_l(j)) / (1 + sum_j w(i, j))
    add:   f_{l+1}(i) = f_l(i) + sum_j w(i, j) f_l(j) / (1 + sum_j weight(i, j))

``mean`` is LeSeGR's AGG (a gated mean of the node's own message and its
neighbours'); ``add`` only ever adds neighbour evidence.  Without
neighbours (or with every gate closed) both give ``f0`` -- the additive
post-retrieval fusion of sparse and dense scores (LeSeGR's Proposition
4.1; see :func:`propagate`).  Each layer is two sparse matrix-vector
products, so a query costs milliseconds on a whole collection.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from kgcore.index.store.disk import Index
from kgcore.index.views.context_types import ContextGraph
from kgcore.query import expanded_bm25
from kgcore.query.sentence_ranking import bm25_tokens, sentence_bm25
from kgcore.query.sparse_bm25 import SparseBM25

#: Message-passing layers.  Chosen on dev sets (Crusoe dev, mean over 500 and 1,000 words, answer-token recall):
#: with ``mean`` the fused ranking scores 0.794 / 0.791 / 0.796 at 1 / 2 / 3 layers and ``lesegr`` 0.759 /
#: 0.737 / 0.705 (see bench/experiments/fused_quality.py --sweep), so one layer.
LAYERS = 1
#: How a node combines its own score with its neighbours' (see the module docstring): ``mean`` is LeSeGR's AGG;
#: on Crusoe dev ``add`` gave the fused ranking 0.748 against 0.791 (two layers).
AGGREGATION = "mean"
#: Weight of GroundedKG's alignment evidence beside the sparse and dense signals (each in [0, 1]).
W_GRAPH = 1.0
#: The graph evidence is divided by its best in scope, or by this when the best is lower, so that a question whose
#: query graph aligns only weakly anywhere would give its graph signal less weight (0: always by the best).  The
#: best is a median 0.37-0.40 on the crusoe, phantom and obliqa dev sets (0.52 qasper, 0.65 peter).  Dev sets, mean
#: over 200 / 500 / 1,000 / 2,000 words (as W_SPARSE's below): 0 gives 0.7643, 0.4 0.7655, 0.6 0.7658, 0.8 0.7644;
#: ObliQA rises (0.643 -> 0.657 at 1,000 words with 0.6) and Phantom falls (0.809 -> 0.784 at 500), so it stays 0.
GRAPH_FLOOR = 0.0
#: How the graph evidence enters f0: multiplied by the node's dense relevance (``dense``), or added as it is (None).
#: Entity nodes merge by lemma ("deed" the document and "deeds of loving-kindness" are one node), so the alignment gives
#: every sentence naming a question word the same evidence; divided by the best, that evidence was a plateau at 1.0 that
#: outranked every sentence but the few best of each text signal, and a second lexical signal beside BM25. On people's
#: questions (NarrativeQA design books, bench/experiments/narrativeqa_ablations.py) graph-led sentences took 60-70% of a
#: 200-1,000-word context with 17-30% fewer answer words per word than the rest; the ranking without the graph beat it
#: at 200 and 500 words (0.352 / 0.490 against 0.313 / 0.452).  Gated by the dense signal, the graph orders the
#: sentences that mean what the question asks by how much of its structure they hold: 0.347 / 0.499 / 0.591 / 0.689 at
#: 200 / 500 / 1,000 / 2,000 words (additive: 0.313 / 0.452 / 0.576 / 0.692; gated by the larger of sparse and dense:
#: 0.340 / 0.471 / 0.593 / 0.689, the lexical plateau back).  Not confirmed beyond the design books: held-out books
#: 0.284 / 0.450 / 0.578 / 0.642 -> 0.253 / 0.443 / 0.543 / 0.654 (each change within its interval), the self-written
#: held-out rounds of Peter Rabbit, Crusoe and Phantom 0.661 -> 0.636 at 200 words (a small clear loss), unchanged
#: within noise at 500 to 2,000 (bench/results/narrativeqa*.json, fused_quality.json).
GRAPH_GATE: str | None = "dense"
#: Weight of the sparse signal in f0 (the dense signal's is 1: only ratios matter).  The gate of a message stays
#: the plain sparse relevance.  Weights fitted per collection on questions generated from its own frames
#: (bench/experiments/learned_fusion.py) lost to these on every dev set, so both stay 1.  Sensitivity on the five
#: dev sets (mean answer-token or passage recall over 200 / 500 / 1,000 / 2,000 words, fused ranking / ``lesegr``):
#: 0.7 gives 0.756 / 0.749, 1 gives 0.764 / 0.758, 1.4 gives 0.763 / 0.757.
W_SPARSE = 1.0
#: Whether the graph evidence travels to neighbours too, or is added to a sentence's propagated text relevance.
GRAPH_PROPAGATES = True
#: Whether the sparse signal reads a node's written words plus the words its coref-resolved text adds (each once;
#: :mod:`kgcore.query.expanded_bm25`), or the written words alone, as the ``bm25`` baseline does.  Chosen on the
#: dev sets (answer-token recall, 200 / 500 / 1,000 / 2,000 words; peter, crusoe, phantom, qasper, obliqa dev): the mean
#: over the 20 cells rose by 0.004 for the fused ranking and 0.013 for ``lesegr`` (Crusoe ``lesegr`` 0.534 ->
#: 0.650 at 200 words; fused Crusoe 0.816 -> 0.839 at 1,000, Phantom 0.880 -> 0.913 at 2,000; losses Crusoe
#: 0.794 -> 0.777 and Phantom 0.813 -> 0.801 at 500).  Expanding sentences only gave 0.002 / 0.011; adding only
#: the capitalised words (names) 0.002 / 0.006.
EXPANDED = True
#: How the sparse and dense signals enter f0: ``rank`` puts each on the reciprocal-rank scale of the ``hybrid``
#: baseline (:func:`rank_scaled`, with :data:`RANK_K`), ``max`` divides each by its best in scope.  The message
#: gates are BM25 divided by the best either way.  Dividing by the best lets one outlier (a sentence that repeats a
#: rare question word) squash every other score of that signal, so the other signal decides alone; ranks keep both
#: signals' orders on one scale.  Chosen on the dev sets (fused ranking, mean answer-token or passage recall over
#: peter, crusoe, phantom, qasper and obliqa dev at 200 / 500 / 1,000 / 2,000 words): ``max`` 0.7626, ``rank``
#: 0.7701 (see :data:`RANK_K`).  It gains most where the margin over text retrieval was thinnest: ObliQA 0.481 ->
#: 0.505 at 200 words, QASPER 0.632 -> 0.684 at 500; it loses ObliQA 0.677 -> 0.655 at 2,000 and Phantom 0.830 ->
#: 0.817 at 500.
SCALE = "rank"
#: K of :data:`SCALE` ``rank``: the smaller, the more the best few nodes of each signal stand out.  Dev sets (as
#: above): K = 3 / 5 / 10 / 15 / 20 give 0.7698 / 0.7701 / 0.7707 / 0.7644 / 0.7612 (30 and 60, with ties ranked
#: apart: 0.7578 / 0.7529), a plateau from 3 to 10; 5 is its middle, so a collection unlike the dev sets is not put
#: on the edge where it falls off.
RANK_K = 5


@dataclass(frozen=True)
class Signals:
    """Per contextual-graph node (sentences, then chunks): each relevance signal in [0, 1], and the scope."""

    sparse: np.ndarray
    dense: np.ndarray
    graph: np.ndarray
    scope: np.ndarray
    #: The question's plain cosine to each sentence (``dense`` is it rescaled within the scope); what a selected
    #: sentence reports as its ``similarity``, as every other method does.
    cosine: np.ndarray | None = None
    #: The message gates: BM25 divided by the best in scope (None: ``sparse``, as when :data:`SCALE` is ``max``).
    gates: np.ndarray | None = None
    #: Per node, a factor f0 is multiplied by (None: 1): the fused ranking's weight of the question's names
    #: (:func:`kgcore.query.names.focus`).
    focus: np.ndarray | None = None

    @property
    def initial(self) -> np.ndarray:
        """f0: the additive fusion of the node's own signals, times its :attr:`focus` (zero outside the scope)."""
        f0 = W_SPARSE * self.sparse + self.dense + W_GRAPH * self.graph
        return np.where(self.scope, f0 if self.focus is None else f0 * self.focus, 0.0)

    @functools.cached_property
    def kept(self) -> np.ndarray:
        """The part of f0 that does not travel to neighbours: the graph evidence unless GRAPH_PROPAGATES."""
        return np.zeros_like(self.sparse) if GRAPH_PROPAGATES else np.where(self.scope, W_GRAPH * self.graph, 0.0)

    @functools.cached_property
    def gate(self) -> np.ndarray:
        """Each node's sparse relevance in scope: how strongly its messages pass (zero outside the scope)."""
        return np.where(self.scope, self.sparse if self.gates is None else self.gates, 0.0)


def normalised(values: np.ndarray, scope: np.ndarray, floor: float = 0.0, top: float | None = None) -> np.ndarray:
    """Values clipped at 0 and divided by the largest in scope (``top`` when given: the largest over a whole
    collection this is part of), or by ``floor`` when that is larger; zero outside it.

    >>> normalised(np.array([2.0, -1.0, 4.0, 8.0]), np.array([True, True, True, False])).tolist()
    [0.5, 0.0, 1.0, 0.0]
    >>> normalised(np.array([2.0, 4.0]), np.array([True, True]), floor=8.0).tolist()
    [0.25, 0.5]
    """
    out = np.where(scope, np.clip(values, 0.0, None), 0.0)
    top = max((out.max() if len(out) else 0.0) if top is None else top, floor)
    return out / top if top > 0 else out


@dataclass(frozen=True)
class Scales:
    """What a part of a collection (a shard) scales its signals by so they are the whole collection's: per array
    of :data:`SCALED` (and ``graph``) its best value in scope over the collection (``tops``), and per array of
    :data:`SCALED`, for each of the part's positive values in scope (in row order), how many of the collection's
    are larger (``better``: the rank :func:`rank_scaled` gives it, less one)."""

    tops: dict[str, float]
    better: dict[str, np.ndarray]


#: The signal arrays scaled over the scope: sentences' and chunks' BM25 and cosine.
SCALED = ("sparse", "chunk-sparse", "dense", "chunk-dense")


def _arrays(index: Index, cg: ContextGraph, question: str, vector: np.ndarray, sims: np.ndarray,
            scope: np.ndarray | None) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """The chunks' first rows, and each array of :data:`SCALED` with its scope (sentence rows, or chunks)."""
    rows = np.ones(cg.n_sentences, dtype=bool) if scope is None else scope
    starts = cg.chunk_spans[:, 0]  # chunks are contiguous runs of rows, in order
    chunk_scope = np.logical_or.reduceat(rows, starts) if len(starts) else np.zeros(0, dtype=bool)
    tokens = bm25_tokens(question)
    chunk_sparse = _chunk_bm25(index, cg).get_scores(tokens) if len(cg.chunk_spans) else np.zeros(0)
    return starts, {"sparse": (sentence_sparse(index, tokens), rows), "chunk-sparse": (chunk_sparse, chunk_scope),
                    "dense": (np.asarray(sims), rows), "chunk-dense": (cg.chunk_vectors @ vector, chunk_scope)}


def measures(index: Index, cg: ContextGraph, question: str, vector: np.ndarray, sims: np.ndarray,
             scope: np.ndarray | None, graph: np.ndarray | None = None
             ) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """What a part of a collection tells the driver for :class:`Scales`: per array of :data:`SCALED` (and
    ``graph``) its best value in scope (clipped at 0), and per array of :data:`SCALED` its positive values in
    scope, in row order."""
    _, arrays = _arrays(index, cg, question, vector, sims, scope)
    if graph is not None:
        arrays["graph"] = (graph, arrays["sparse"][1])
    tops = {name: float(np.where(s, np.clip(v, 0.0, None), 0.0).max(initial=0.0)) for name, (v, s) in arrays.items()}
    return tops, {name: v[s & (v > 0)] for name, (v, s) in arrays.items() if name in SCALED}


def signals(index: Index, cg: ContextGraph, question: str, vector: np.ndarray, sims: np.ndarray,
            scope: np.ndarray | None, graph: np.ndarray | None = None, scales: Scales | None = None) -> Signals:
    """Every node's sparse, dense (and graph) relevance to the question in a scope.

    ``vector`` is the question's embedding and ``sims`` its cosine to every sentence
    (:func:`kgcore.query.context.question_vector` gives both).  ``scales``: the whole collection's, when
    ``index`` is a part of it (a shard), so every signal is what one process over the collection computes.
    """
    starts, arrays = _arrays(index, cg, question, vector, sims, scope)
    rows, chunk_scope = arrays["sparse"][1], arrays["chunk-sparse"][1]
    node_scope = np.r_[rows, chunk_scope]
    tops, better = (scales.tops, scales.better) if scales is not None else ({}, {})
    gates = np.r_[tuple(normalised(*arrays[name], top=tops.get(name)) for name in ("sparse", "chunk-sparse"))]
    graph_top = tops.get("graph")
    if SCALE == "max":
        dense_all = np.r_[tuple(normalised(*arrays[name], top=tops.get(name)) for name in ("dense", "chunk-dense"))]
        return Signals(gates, dense_all, graph_signal(graph, rows, starts, dense_all, graph_top), node_scope,
                       np.asarray(sims))
    sparse_all, dense_all = (np.r_[tuple(rank_scaled(*arrays[name], better=better.get(name)) for name in pair)]
                             for pair in (SCALED[:2], SCALED[2:]))
    return Signals(sparse_all, dense_all, graph_signal(graph, rows, starts, dense_all, graph_top), node_scope,
                   np.asarray(sims), gates)


def graph_signal(graph: np.ndarray | None, rows: np.ndarray, starts: np.ndarray, dense: np.ndarray,
                 top: float | None = None) -> np.ndarray:
    """Per node, the graph evidence of the sentences ``rows`` allow divided by its best (:data:`GRAPH_FLOOR`;
    ``top``: the best over the whole collection), a chunk's the best of its sentences', times the node's ``dense``
    relevance when :data:`GRAPH_GATE` is ``dense``; zeros without evidence.

    A sentence that shares the question's structure but not its meaning gets no graph credit:

    >>> dense = np.array([1.0, 0.1, 0.0, 0.5])   # three sentences, then one chunk of all three
    >>> graph_signal(np.array([0.5, 1.0, 1.0]), np.ones(3, bool), np.array([0]), dense).tolist()
    [0.5, 0.1, 0.0, 0.5]
    """
    if graph is None:
        return np.zeros(len(dense))
    g = normalised(graph, rows, GRAPH_FLOOR, top)
    out = np.r_[g, np.maximum.reduceat(g, starts) if len(starts) else np.zeros(0)]
    return out * dense if GRAPH_GATE == "dense" else out


def rank_scaled(values: np.ndarray, scope: np.ndarray, k: int | None = None, better: np.ndarray | None = None
                ) -> np.ndarray:
    """Each positive value in scope on the reciprocal-rank scale: the best 1, the r-th best (k + 1) / (k + r)
    (``k`` default :data:`RANK_K`); ties in value share the better rank; zero, negative or outside the scope: 0.
    ``better``: for each positive value in scope (row order), how many values rank above it in the whole
    collection this is part of (see :class:`Scales`).

    >>> rank_scaled(np.array([0.2, 0.9, 0.0, 0.5, 0.5, 3.0]), np.array([1, 1, 1, 1, 1, 0], bool), k=1).tolist()
    [0.4, 1.0, 0.0, 0.6666666666666666, 0.6666666666666666, 0.0]
    >>> rank_scaled(np.array([0.2, 0.9]), np.array([1, 1], bool), k=1, better=np.array([3, 0])).tolist()
    [0.4, 1.0]
    """
    k = RANK_K if k is None else k
    out = np.zeros(len(values))
    rows = np.flatnonzero(scope & (values > 0))
    if better is not None:
        out[rows] = (k + 1) / (k + 1 + np.asarray(better, dtype=np.float64))
        return out
    if not len(rows):
        return out
    found = values[rows]
    order = np.argsort(-found)  # not stable: equal values get the same rank below, whatever their order
    ordered = found[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]  # where each run of equal values starts
    better = np.maximum.accumulate(np.where(first, np.arange(len(ordered)), 0))  # values strictly better
    out[rows[order]] = (k + 1) / (k + 1 + better)
    return out


def gated(cg: ContextGraph) -> sparse.csr_matrix:
    """weight(i, j) * affinity(i, j) per edge: the query-independent part of every message."""
    return cg.weights.multiply(cg.affinity).tocsr()


def propagate(edges: sparse.csr_matrix, sig: Signals, layers: int | None = None, aggregation: str | None = None,
              norm: np.ndarray | None = None, incoming: Incoming | None = None) -> list[np.ndarray]:
    """Scores after 0 .. ``layers`` layers (see the module docstring; defaults :data:`LAYERS`,
    :data:`AGGREGATION`); ``edges`` from :func:`gated`; ``norm``: :func:`message_norm` when the caller has it
    (it depends only on the gates, so signals with the same sparse relevance share it); ``incoming``: the
    messages of nodes another part of the collection holds (a shard's, :class:`Incoming`).

    Without edges the result is the additive fusion at every layer:

    >>> sig = Signals(np.array([1.0, 0.2]), np.array([0.5, 0.9]), np.zeros(2), np.ones(2, bool))
    >>> [s.tolist() for s in propagate(sparse.csr_matrix((2, 2)), sig, layers=1)]
    [[1.5, 1.1], [1.5, 1.1]]

    A relevant neighbour lifts a node (``add``), or pulls it toward itself (``mean``):

    >>> linked = sparse.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> [round(x, 3) for x in propagate(linked, sig, layers=1, aggregation="add")[-1].tolist()]
    [1.61, 1.85]
    >>> [round(x, 3) for x in propagate(linked, sig, layers=1, aggregation="mean")[-1].tolist()]
    [1.433, 1.3]

    The same two nodes held by two parts, node 1 a ghost of node 0's part, its gate and score handed over:

    >>> first = Signals(np.array([1.0]), np.array([0.5]), np.zeros(1), np.ones(1, bool))
    >>> ghost = Incoming(sparse.csr_matrix(np.array([[1.0]])), np.array([0.2]), [np.array([1.1])])
    >>> [round(x, 3) for x in propagate(sparse.csr_matrix((1, 1)), first, layers=1, incoming=ghost)[-1].tolist()]
    [1.433]
    """
    layers = LAYERS if layers is None else layers
    gate = sig.gate
    scores = [sig.initial - sig.kept]
    norm = _norm(edges, gate, aggregation, incoming) if norm is None else norm
    for layer in range(layers):
        f = scores[-1]
        heard = edges @ (gate * f)
        if incoming is not None:
            heard = heard + incoming.messages(layer)
        nxt = (f + heard) / norm if (aggregation or AGGREGATION) == "mean" else f + heard / norm
        scores.append(np.where(sig.scope, nxt, 0.0))
    return [s + sig.kept for s in scores]


def message_norm(edges: sparse.csr_matrix, sig: Signals, aggregation: str | None = None,
                 incoming: Incoming | None = None) -> np.ndarray:
    """Per node, what its incoming messages are divided by (the same row by row as for the whole graph)."""
    return _norm(edges, sig.gate, aggregation, incoming)


def _norm(edges: sparse.csr_matrix, gate: np.ndarray, aggregation: str | None,
          incoming: Incoming | None = None) -> np.ndarray:
    """Per node, what its incoming messages are divided by (see the module docstring)."""
    mean = (aggregation or AGGREGATION) == "mean"
    out = 1.0 + (edges @ gate if mean else np.asarray(edges.sum(axis=1)).ravel())
    return out if incoming is None else out + incoming.norm(mean)


@dataclass(frozen=True)
class Incoming:
    """Messages to a part of a collection's nodes from the nodes other parts hold (a shard's *ghosts*,
    :mod:`kgcore.index.views.context_part`): the edges (the part's nodes x the ghosts, weight times affinity),
    each ghost's gate, and per layer each ghost's score (what it sends, before the part's own layer)."""

    edges: sparse.csr_matrix
    gate: np.ndarray
    values: Sequence[np.ndarray]

    def messages(self, layer: int) -> np.ndarray:
        """Per node of the part, the sum of its ghosts' messages in ``layer``."""
        return self.edges @ (self.gate * self.values[layer])

    def norm(self, mean: bool) -> np.ndarray:
        """Per node of the part, what its ghosts add to its messages' divisor."""
        return self.edges @ self.gate if mean else np.asarray(self.edges.sum(axis=1)).ravel()

    def senders(self, row: int, layer: int, divisor: float) -> list[tuple[int, float]]:
        """The ghosts (their places) that sent node ``row`` a message in ``layer``, with the amount."""
        lo, hi = self.edges.indptr[row], self.edges.indptr[row + 1]
        cols = self.edges.indices[lo:hi]
        amounts = self.edges.data[lo:hi] * self.gate[cols] * np.asarray(self.values[layer])[cols] / divisor
        return [(int(c), float(a)) for c, a in zip(cols, amounts) if a > 0]


def contributions(edges: sparse.csr_matrix, sig: Signals, before: np.ndarray, row: int,
                  aggregation: str | None = None, norm: np.ndarray | None = None) -> list[tuple[int, float]]:
    """The neighbours that sent node ``row`` a message in the last layer, strongest first: (node, amount).

    ``before``: the scores of the layer before (from :func:`propagate`); ``norm``: :func:`message_norm` of
    every node, when the caller explains several (else this row's is computed).
    """
    lo, hi = edges.indptr[row], edges.indptr[row + 1]
    cols, weights = edges.indices[lo:hi], edges.data[lo:hi]
    carried = before[cols] - sig.kept[cols]
    divisor = norm[row] if norm is not None else _norm(edges[row], sig.gate, aggregation)[0]
    amounts = weights * sig.gate[cols] * carried / divisor
    order = np.argsort(-amounts, kind="stable")
    return [(int(cols[k]), float(amounts[k])) for k in order if amounts[k] > 0]


def sentence_sparse(index: Index, tokens: list[str]) -> np.ndarray:
    """BM25 of every sentence for the (tokenised) query: over its expanded tokens
    (:func:`~kgcore.query.expanded_bm25.expanded_tokens`) when :data:`EXPANDED`, else the ``bm25`` baseline's."""
    return expanded_bm25.sentence_model(index).get_scores(tokens) if EXPANDED else sentence_bm25(index, tokens)


def _chunk_bm25(index: Index, cg: ContextGraph, expanded: bool | None = None) -> SparseBM25:
    """BM25 over the chunks, with the words their sentences' coreference adds when ``expanded`` (default
    :data:`EXPANDED`)."""
    return expanded_bm25.chunk_model(index, cg, EXPANDED if expanded is None else expanded)
