"""Propagation over a contextual graph split between parts, with the messages that cross parts traded layer by layer
(:mod:`kgcore.query.shard_links`, :mod:`kgcore.query.sharded_links`), gives every node the score one process gives
it over the whole graph: random graphs, random splits, both aggregations, one to three layers, two stages."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import sparse

from kgcore.index.views.context_part import boundary, own_nodes, restrict
from kgcore.index.views.context_types import ContextGraph
from kgcore.query import propagation
from kgcore.query.shard_links import Heard, ShardLinks
from kgcore.query.sharded_links import route


def _graph(rng: np.random.Generator, documents: int) -> tuple[ContextGraph, np.ndarray]:
    """A random contextual graph: documents of 2-5 sentences, one or two chunks each, random symmetric edges
    inside and across documents; and each sentence's document."""
    docs, spans, row = [], [], 0
    for d in range(documents):
        n = int(rng.integers(2, 6))
        cut = row + int(rng.integers(1, n + 1))
        spans += [(row, cut)] + ([(cut, row + n)] if cut < row + n else [])
        docs += [d] * n
        row += n
    s, c = row, len(spans)
    size = s + c
    dense = np.triu(rng.random((size, size)) < 0.15, 1) * rng.uniform(0.1, 1.0, (size, size))
    for k, (lo, hi) in enumerate(spans):
        dense[lo:hi, s + k] = 1.0  # a sentence and its chunk
    dense = dense + dense.T
    weights = sparse.csr_matrix(dense)
    affinity = sparse.csr_matrix((rng.uniform(0.0, 1.0, weights.nnz), weights.indices, weights.indptr),
                                 shape=weights.shape)
    affinity = sparse.csr_matrix((affinity + affinity.T).toarray() / 2 * (dense > 0))
    kinds = sparse.csr_matrix((dense > 0).astype(np.int64))
    chunk_of = np.zeros(s, dtype=np.int64)
    for k, (lo, hi) in enumerate(spans):
        chunk_of[lo:hi] = k
    cg = ContextGraph(s, chunk_of, np.array(spans, dtype=np.int64), rng.random((c, 4)), weights, kinds, affinity)
    return cg, np.array(docs)


def _signals(rng: np.random.Generator, size: int) -> propagation.Signals:
    sparse_ = np.where(rng.random(size) < 0.4, rng.random(size), 0.0)  # many gates closed
    return propagation.Signals(sparse_, rng.random(size), rng.random(size), rng.random(size) < 0.9,
                               gates=sparse_ / max(sparse_.max(), 1e-9))


def _cut(sig: propagation.Signals, nodes: np.ndarray) -> propagation.Signals:
    return propagation.Signals(*(getattr(sig, f.name)[nodes] if getattr(sig, f.name) is not None else None
                                 for f in dataclasses.fields(sig)))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("aggregation", ["mean", "add"])
def test_parts_trading_messages_score_as_the_whole_graph(seed, aggregation, monkeypatch):
    monkeypatch.setattr(propagation, "AGGREGATION", aggregation)
    rng = np.random.default_rng(seed)
    cg, docs = _graph(rng, 7)
    stages = [_signals(rng, cg.n_nodes)]
    stages.append(dataclasses.replace(stages[0], graph=np.zeros(cg.n_nodes)))  # a second stage: same gates
    depths = (int(rng.integers(1, 4)), 1)
    whole = propagation.gated(cg)
    expected = [propagation.propagate(whole, sig, layers=d) for sig, d in zip(stages, depths)]

    parts = int(rng.integers(2, 4))
    owner = rng.integers(0, parts, docs.max() + 1)
    links = [ShardLinks(cg, np.flatnonzero(owner[docs] == p)) for p in range(parts)]
    assert sum(len(link.boundary.ids) for link in links) > 0  # messages do cross parts
    edges = [propagation.gated(link.cg) for link in links]
    sigs = [[_cut(sig, link.nodes) for sig in stages] for link in links]
    heard = [Heard.closed(link.boundary.size) for link in links]
    for layer in range(max(depths)):
        sent = [link.export(e, s, depths, layer, heard[n] if layer else None)
                for n, (link, e, s) in enumerate(zip(links, edges, sigs))]
        route(sent, [link.boundary.ids for link in links], heard, layer)
    for link, e, s, h in zip(links, edges, sigs, heard):
        for stage, depth in enumerate(depths):
            got = propagation.propagate(e, s[stage], layers=depth, incoming=link.incoming(h, stage))
            np.testing.assert_allclose(got[-1], expected[stage][-1][link.nodes], rtol=1e-12, atol=1e-12)


def test_a_part_keeps_the_collections_chunks_and_edges():
    rng = np.random.default_rng(7)
    cg, docs = _graph(rng, 5)
    rows = np.flatnonzero(np.isin(docs, [1, 3]))
    nodes = own_nodes(cg, rows)
    part = restrict(cg, rows, nodes)
    assert part.n_sentences == len(rows) and len(part.chunk_spans) == len(nodes) - len(rows)
    assert np.array_equal(rows[part.chunk_spans[:, 0]], cg.chunk_spans[nodes[len(rows):] - cg.n_sentences, 0])
    assert np.array_equal(part.weights.toarray(), cg.weights.toarray()[np.ix_(nodes, nodes)])
    b = boundary(cg, nodes)
    assert not np.isin(b.ids, nodes).any()
    whole = cg.kinds.toarray()
    assert b.kinds.nnz + part.kinds.nnz == (whole[nodes] > 0).sum()  # every edge of an own node: inside or out
    sent = b.exported
    outside = np.setdiff1d(np.arange(cg.n_nodes), nodes)
    assert sorted(sent.tolist()) == [k for k, node in enumerate(nodes) if (whole[node, outside] > 0).any()]
