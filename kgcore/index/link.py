"""Linking a collection: its documents' graphs merged into one grounded graph, with one vector per node.

A node grounded in one document keeps the basic embedding its shard
stored; a node grounded in several (a proper name two novels share, "RAG"
in twenty papers) is embedded again from its label and the union of its
texts, exactly as if one document had held them all.  The ``neighbor`` and
``attention`` variants then mix every node with its neighbours in the
*linked* graph.  So a collection of one gives the very vectors a single
document always had, and linking never runs a parser: its model work is
the shared nodes only.

>>> from kgcore.core.types import Node
>>> class Toy:  # a 2-d fake embedder
...     name, dim = "toy", 2
...     def encode(self, texts, max_tokens=None):
...         return np.array([[1.0, 0.0] if "Peter" in t else [0.0, 1.0] for t in texts], dtype=np.float32)
>>> a = GroundedGraph({"peter": Node("peter", "Peter", ["Peter"], "entity", ["a/text_0-0"])}, [])
>>> b = GroundedGraph({"b/pie": Node("b/pie", "pie", ["pie"], "entity", ["b/text_0-0"])}, [])
>>> linked = link([(a, ["peter"], np.array([[1.0, 0.0]])), (b, ["b/pie"], np.array([[0.0, 1.0]]))], Toy())
>>> linked.node_ids, linked.shared
(['peter', 'b/pie'], 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgcore.core.settings import IndexOptions
from kgcore.index.embed import Embedder, contextualize, embed_texts_of
from kgcore.index.graph import GroundedGraph, merge_graphs

#: (a document's graph, its node ids, their basic embeddings), one per document in collection order.
ShardGraph = tuple[GroundedGraph, Sequence[str], np.ndarray]


@dataclass(frozen=True)
class Linked:
    """The linked graph of a collection, its node order and final node vectors."""

    graph: GroundedGraph
    node_ids: list[str]
    node_vectors: np.ndarray
    #: Nodes grounded in more than one document.
    shared: int


def link(shards: Sequence[ShardGraph], embedder: Embedder, options: IndexOptions = IndexOptions()) -> Linked:
    """Merge the documents' graphs and give every node its vector (see the module docstring)."""
    graph = merge_graphs(g for g, _, _ in shards)
    node_ids = list(graph.nodes)
    row = {node_id: i for i, node_id in enumerate(node_ids)}
    dim = next((v.shape[1] for _, _, v in shards if len(v)), embedder.dim)
    base = np.zeros((len(node_ids), dim), dtype=np.float32)
    seen = np.zeros(len(node_ids), dtype=np.int32)
    for _, ids, vectors in shards:
        rows = np.fromiter((row[i] for i in ids), dtype=np.int64, count=len(ids))
        base[rows] = vectors
        seen[rows] += 1
    shared = [node_ids[r] for r in np.flatnonzero(seen > 1)]
    if shared:
        items = [(graph.nodes[i].label, graph.nodes[i].texts) for i in shared]
        base[[row[i] for i in shared]] = embed_texts_of(items, embedder, options.alpha)
    neighbours = [[row[n] for n in graph.neighbors(node_id)] for node_id in node_ids]
    vectors = contextualize(base, lambda i: neighbours[i], options.embedding, options.beta)
    return Linked(graph, node_ids, np.asarray(vectors, dtype=np.float32), len(shared))
