"""A part of a collection's contextual graph: the nodes one shard holds, their edges, and the edges that leave it.

A sharded engine (:mod:`kgcore.query.sharded`) splits a collection by document.  The contextual graph
(:mod:`kgcore.index.views.contextual`) links sentences of different documents (a rare entity they share, a
citation, a cross-reference, two chunks that say the same), so a shard that built the graph of its own documents
alone would lose those links, and score their sentences differently from one process.  Instead every shard takes
the collection's graph, built once per generation and stored in its linked folder, and keeps:

* its **own nodes** (its sentence rows, then its chunks, in the collection's order) with every edge between them:
  the collection's graph restricted to them (:func:`restrict`), so a shard's chunks, weights, kinds and
  affinities are the collection's;
* its **boundary** (:class:`Boundary`): each edge from an own node to a node another shard holds (a *ghost*),
  with its weight times affinity (the query-independent part of a message) and its kinds.  Per question the
  driver hands each shard its ghosts' gates and scores, layer by layer
  (:mod:`kgcore.query.sharded_links`), so a message crossing shards arrives as it would in one process.

A collection of two documents in two shards whose sentences 1 and 2 share a rare name (rows 0-1 and 2-3, one chunk
each: nodes 4 and 5):

>>> from scipy import sparse
>>> edges = [(0, 1), (2, 3), (0, 4), (1, 4), (2, 5), (3, 5), (1, 2)]
>>> w = sparse.coo_matrix((np.ones(14), ([a for a, b in edges] + [b for a, b in edges],
...                                     [b for a, b in edges] + [a for a, b in edges])), shape=(6, 6)).tocsr()
>>> cg = ContextGraph(4, np.array([0, 0, 1, 1]), np.array([[0, 2], [2, 4]]), np.eye(2), w, w, w)
>>> mine = own_nodes(cg, np.array([2, 3]))
>>> mine.tolist()
[2, 3, 5]
>>> part = restrict(cg, np.array([2, 3]), mine)
>>> part.n_sentences, part.chunk_spans.tolist(), part.weights.nnz
(2, [[0, 2]], 6)
>>> b = boundary(cg, mine)
>>> b.ids.tolist(), b.edges.toarray().tolist(), b.exported.tolist()
([1], [[1.0], [0.0], [0.0]], [0])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from kgcore.index.views import contextual
from kgcore.index.views.context_types import ContextGraph


@dataclass
class Boundary:
    """The edges from a part's own nodes (rows) to the nodes other parts hold (columns, its *ghosts*)."""

    #: Each ghost's node in the collection's contextual graph (ascending).
    ids: np.ndarray
    #: weight times affinity of each edge (own nodes x ghosts): the query-independent part of a message.
    edges: sparse.csr_matrix
    #: The edge kinds' bits (:data:`~kgcore.index.views.context_types.BIT`), own nodes x ghosts.
    kinds: sparse.csr_matrix
    #: Each own node's node in the collection (to order messages as one process orders them).
    own: np.ndarray
    #: Each ghost's name as a reader sees it (a sentence id, or ``chunk:<first sentence id>``), once the shards
    #: holding them have said (:mod:`kgcore.query.sharded_links`).
    names: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def exported(self) -> np.ndarray:
        """The own nodes (their places) with an edge to a ghost: the other parts' ghosts, whose gates and scores
        this part sends them."""
        return np.flatnonzero(np.diff(self.kinds.indptr) > 0).astype(np.int64)


def own_nodes(cg: ContextGraph, rows: np.ndarray) -> np.ndarray:
    """The collection's nodes a part holding sentence ``rows`` (ascending, whole documents) owns: its rows, then
    the chunks that start at one of them (a chunk never crosses documents)."""
    starts = cg.chunk_spans[:, 0]
    chunks = np.flatnonzero(np.isin(starts, rows))
    return np.r_[np.asarray(rows, dtype=np.int64), cg.n_sentences + chunks].astype(np.int64)


def own_rows(cg: ContextGraph, nodes: np.ndarray) -> tuple[sparse.csr_matrix, ...]:
    """The rows of ``nodes`` (a part's own) of the graph's weights, kinds and affinity: what :func:`restrict` and
    :func:`boundary` read, so a part's memory follows its share (cut once, handed to both)."""
    return tuple(getattr(cg, name)[nodes] for name in ("weights", "kinds", "affinity"))


def restrict(cg: ContextGraph, rows: np.ndarray, nodes: np.ndarray,
             cut: tuple[sparse.csr_matrix, ...] | None = None) -> ContextGraph:
    """The collection's graph ``cg`` cut to a part's own ``nodes`` (:func:`own_nodes` of its ``rows``), numbered
    as the part numbers them: its sentences ``0 .. len(rows) - 1``, then its chunks (``cut``: :func:`own_rows`)."""
    n = len(rows)
    chunks = nodes[n:] - cg.n_sentences
    spans = cg.chunk_spans[chunks]
    local_spans = np.c_[np.searchsorted(rows, spans[:, 0]), np.searchsorted(rows, spans[:, 1] - 1) + 1]
    local_spans = local_spans.astype(np.int64).reshape(-1, 2)
    chunk_of = contextual.chunk_numbers(local_spans, n)
    matrices = [m[:, nodes].tocsr() for m in (cut or own_rows(cg, nodes))]
    return ContextGraph(n, chunk_of, local_spans, cg.chunk_vectors[chunks], *matrices)


def boundary(cg: ContextGraph, nodes: np.ndarray, cut: tuple[sparse.csr_matrix, ...] | None = None) -> Boundary:
    """The edges from ``nodes`` (a part's own) to every node outside them (``cut``: :func:`own_rows`)."""
    weights, kinds, affinity = cut or own_rows(cg, nodes)
    gated = weights.multiply(affinity).tocsr()
    outside = np.ones(cg.n_nodes, dtype=bool)
    outside[nodes] = False
    ghosts = np.unique(kinds.indices[outside[kinds.indices]]).astype(np.int64)
    return Boundary(ghosts, gated[:, ghosts].tocsr(), kinds[:, ghosts].tocsr(), np.asarray(nodes, dtype=np.int64))
