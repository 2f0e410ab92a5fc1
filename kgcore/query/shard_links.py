"""A shard's share of the collection's contextual graph, and the messages it trades with the other shards.

One process propagates every sentence's relevance over the whole contextual graph
(:func:`kgcore.query.propagation.propagate`).  A shard holds some documents; its nodes' edges to nodes other shards
hold (:class:`~kgcore.index.views.context_part.Boundary`: a rare entity, a citation, a related chunk across
shards) carry messages too.  For a question, after the shards have their signals, the driver
(:mod:`kgcore.query.sharded_links`) trades, once per layer:

1. every shard sends, for each of its nodes some other shard hears (:attr:`ShardLinks.exported`) whose gate is
   open, the gate and the score it carries into the layer (:meth:`ShardLinks.export`, an :class:`Exported`);
2. the driver hands every shard its ghosts' gates and scores so far (a :class:`Heard`), and the shard propagates
   with them (:meth:`ShardLinks.incoming`), as :func:`~kgcore.query.propagation.propagate` describes.

A node's message depends only on its own gate and its score before the layer, so after ``L`` trades every score
is one process's, up to the order of floating-point additions (a shard adds its own and its ghosts' messages
apart: scores that tie exactly in one process could be ordered apart; none did in the collections measured).
A stage (the fused ranking, and over 1,000 words the ranking without the graph signal) trades its own scores;
the gates are the same.

>>> heard = Heard.closed(2)
>>> heard.gate.tolist(), heard.values
([0.0, 0.0], [])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import sparse

from kgcore.index.store.collection import CollectionManifest
from kgcore.index.views.context_part import Boundary, boundary, own_nodes, own_rows, restrict
from kgcore.index.views.context_store import stored_whole
from kgcore.index.views.context_types import ContextGraph
from kgcore.query import propagation


@dataclass(frozen=True)
class Exported:
    """What a shard sends for one layer: its nodes (in the collection) that other shards hear, with open gates,
    each one's gate, and per stage each one's score entering the layer (an empty array: the stage has no such
    layer)."""

    ids: np.ndarray
    gate: np.ndarray
    values: list[np.ndarray]


@dataclass
class Heard:
    """What the driver hands a shard for one question: each ghost's gate (0: closed, or in no shard's scope) and,
    per stage, per layer so far, each ghost's score entering it."""

    gate: np.ndarray
    values: list[list[np.ndarray]] = field(default_factory=list)

    @classmethod
    def closed(cls, ghosts: int) -> Heard:
        """Nothing heard yet from ``ghosts`` ghosts."""
        return cls(np.zeros(ghosts))


class ShardLinks:
    """A shard's part of the collection's contextual graph ``whole``, for the shard holding sentence ``rows`` (in
    the collection, ascending): its own graph (:attr:`cg`, the collection's restricted), its edges to the other
    shards' nodes (:attr:`boundary`) and the own nodes other shards hear (:attr:`exported`, places)."""

    def __init__(self, whole: ContextGraph, rows: np.ndarray, stamp: str = "") -> None:
        #: The collection's stamp (its generation) the graph was stored for: every shard's must be the same.
        self.stamp = stamp
        nodes = own_nodes(whole, rows)
        cut = own_rows(whole, nodes)  # the shard's rows of the collection's graph, read once for both
        self.cg = restrict(whole, rows, nodes, cut)
        self.boundary: Boundary = boundary(whole, nodes, cut)
        self.exported = self.boundary.exported

    @property
    def nodes(self) -> np.ndarray:
        """Each own node's node in the collection (its sentences, then its chunks)."""
        return self.boundary.own

    @classmethod
    def load(cls, path: Path, manifest: CollectionManifest, rows: np.ndarray) -> ShardLinks | None:
        """The part of the collection at ``path`` (``manifest``: the whole's) for ``rows``, from its stored
        contextual graph; None when that is not stored for the manifest's generation."""
        whole = stored_whole(path, manifest)
        return None if whole is None else cls(whole, rows, manifest.stamp)

    def incoming(self, heard: Heard | None, stage: int) -> propagation.Incoming | None:
        """What ``stage`` hears from the ghosts (None: no ghost, or nothing heard)."""
        if heard is None or not self.boundary.size or stage >= len(heard.values):
            return None
        return propagation.Incoming(self.boundary.edges, heard.gate, heard.values[stage])

    def export(self, edges: sparse.csr_matrix, stages: Sequence[propagation.Signals], depths: Sequence[int],
               layer: int, heard: Heard | None) -> Exported:
        """Each stage's scores entering ``layer`` (of ``depths[stage]``) at the exported nodes with open gates,
        propagated over the own ``edges`` (:func:`~kgcore.query.propagation.gated`) with what was ``heard``."""
        gate = stages[0].gate[self.exported]
        open_ = gate > 0
        values = []
        for stage, sig in enumerate(stages):
            if layer >= depths[stage]:
                values.append(np.zeros(0))
                continue
            incoming = self.incoming(heard, stage) if layer else None
            norm = propagation.message_norm(edges, sig, incoming=incoming)
            f = propagation.propagate(edges, sig, layers=layer, norm=norm, incoming=incoming)[-1] - sig.kept
            values.append(f[self.exported][open_])
        return Exported(self.nodes[self.exported][open_], gate[open_], values)
