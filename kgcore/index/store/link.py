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
>>> c = GroundedGraph({"peter": Node("peter", "Peter", ["Peter"], "entity", ["c/text_0-0"])}, [])
>>> shards = [(a, ["peter"], np.array([[1.0, 0.0]])), (c, ["peter"], np.array([[1.0, 0.0]]))]
>>> first = link(shards, Toy())
>>> again = link(shards, Toy(), known=first.shared_vectors)
>>> first.shared, first.embedded, again.embedded
(1, 1, 0)
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from kgcore.core.embed import Embedder, contextualize, embed_texts_of
from kgcore.core.graph import GroundedGraph, merge_graphs
from kgcore.core.settings import IndexOptions

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
    #: The basic vector of every shared node by :func:`shared_key`, for the next link to reuse.
    shared_vectors: dict[str, np.ndarray] = field(default_factory=dict)
    #: How many shared nodes were embedded again (the rest were reused).
    embedded: int = 0
    #: The ids of the shared nodes.
    shared_ids: tuple[str, ...] = ()


def shared_key(label: str, texts: Sequence[str]) -> str:
    """What a shared node's basic vector depends on: its label and texts.

    >>> shared_key("Peter", ["Peter", "Peter Rabbit"]) == shared_key("Peter", ["Peter", "Peter Rabbit"])
    True
    """
    return hashlib.sha1("\x1f".join([label, *texts]).encode("utf-8")).hexdigest()


def link(shards: Sequence[ShardGraph], embedder: Embedder, options: IndexOptions = IndexOptions(),
         known: Mapping[str, np.ndarray] | None = None) -> Linked:
    """Merge the documents' graphs and give every node its vector (see the module docstring).

    ``known`` holds the shared nodes' vectors of the previous link (:attr:`Linked.shared_vectors`): a shared
    node whose label and texts did not change is not embedded again, so adding a document to a collection
    embeds only the shared nodes it touches.
    """
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
    vectors_of, embedded = shared_vectors(graph, shared, embedder, options.alpha, known or {})
    for node_id in shared:
        base[row[node_id]] = vectors_of[shared_key(graph.nodes[node_id].label, graph.nodes[node_id].texts)]
    neighbours = [[row[n] for n in graph.neighbors(node_id)] for node_id in node_ids]
    vectors = contextualize(base, lambda i: neighbours[i], options.embedding, options.beta)
    return Linked(graph, node_ids, np.asarray(vectors, dtype=np.float32), len(shared), vectors_of, embedded,
                  tuple(shared))


def shared_vectors(graph: GroundedGraph, shared: Sequence[str], embedder: Embedder, alpha: float,
                   known: Mapping[str, np.ndarray]) -> tuple[dict[str, np.ndarray], int]:
    """The basic vectors of the nodes ``shared`` by :func:`shared_key`: reused from ``known``, the others
    embedded in one batch; and how many were embedded."""
    keys = {shared_key(graph.nodes[i].label, graph.nodes[i].texts): i for i in shared}
    out = {key: np.asarray(known[key], dtype=np.float32) for key in keys if key in known}
    todo = [key for key in keys if key not in out]
    if todo:
        items = [(graph.nodes[keys[k]].label, graph.nodes[keys[k]].texts) for k in todo]
        out.update(zip(todo, embed_texts_of(items, embedder, alpha)))
    return out, len(todo)
