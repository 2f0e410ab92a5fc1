"""The contextual graph's data: sentence and chunk nodes with weighted edges, each edge carrying its kinds as bits.

Built by :mod:`kgcore.index.views.contextual` (what each kind means), stored by
:mod:`kgcore.index.views.context_store`, cut into a shard's part by :mod:`kgcore.index.views.context_part`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

#: The edge kinds, in the order of their bits (:data:`BIT`).
KINDS = ("adjacent", "chunk", "shared-node", "graph-edge", "cross-reference", "citation", "related")
BIT = {kind: 1 << i for i, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class ContextGraph:
    """Sentence and chunk nodes with weighted, typed edges (see the module docstring)."""

    n_sentences: int
    #: The chunk of every sentence row (chunk k is node ``n_sentences + k``).
    chunk_of: np.ndarray
    #: Per chunk: its first and one-past-last sentence rows (chunks are contiguous).
    chunk_spans: np.ndarray
    chunk_vectors: np.ndarray
    weights: sparse.csr_matrix
    kinds: sparse.csr_matrix
    affinity: sparse.csr_matrix

    @property
    def n_nodes(self) -> int:
        return self.n_sentences + len(self.chunk_spans)

    def kind_names(self, bits: int) -> list[str]:
        """The edge kinds in a bit set (:meth:`row_kinds` gives a node's).

        >>> kinds = sparse.csr_matrix(np.array([[0, 3], [3, 0]]))
        >>> cg = ContextGraph(2, np.zeros(2), np.zeros((0, 2)), np.zeros((0, 1)), kinds, kinds, kinds)
        >>> cg.kind_names(BIT["adjacent"] | BIT["citation"]), cg.row_kinds(0)
        (['adjacent', 'citation'], {1: 3})
        """
        return [kind for kind in KINDS if bits & BIT[kind]]

    def row_kinds(self, node: int) -> dict[int, int]:
        """Each neighbour's edge-kind bits, read from ``node``'s row of :attr:`kinds` (not a ~50 us lookup each)."""
        lo, hi = self.kinds.indptr[node], self.kinds.indptr[node + 1]
        return dict(zip(self.kinds.indices[lo:hi].tolist(), self.kinds.data[lo:hi].tolist()))
