"""The query's vectorised paths against their plain definitions, on the real Peter Rabbit index: the alignment
cut to graph rows with evidence (coverage and structure), and the context agreement read from the query's
cosine matrix, must equal the plain per-row computations exactly."""

from __future__ import annotations

import numpy as np

from kgcore.query import align as al
from kgcore.query.distinct_vectors import DISTINCT
from kgcore.query.match import context_agreement, node_cosines


def _queries(index, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = index.node_vectors[rng.integers(0, len(index.node_ids), n)] + 0.1 * rng.standard_normal((n, 384))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def _plain_alignment(index, cosines, masks, edges):
    inc = al.incidence(index)
    cos = cosines.copy()
    for row, mask in enumerate(masks):
        if mask is not None:
            cos[row, ~mask] = -1.0
    ev = al.node_evidence(cos, inc.specificity)
    coverage = np.zeros((len(cos), len(index.sentences)))
    for (start, sentence), end in zip(zip(inc.segment_starts, inc.segment_sentences),
                                      list(inc.segment_starts[1:]) + [len(inc.node_rows)]):
        coverage[:, sentence] = ev[:, inc.node_rows[start:end]].max(axis=1)
    structure = np.zeros(len(index.sentences))
    for a, b in set(edges):
        best: dict[int, float] = {}
        for sentence, s, t in inc.edges:
            linked = max(min(ev[a, s], ev[b, t]), min(ev[b, s], ev[a, t]))
            best[sentence] = max(best.get(sentence, 0.0), linked)
        for sentence, value in best.items():
            structure[sentence] += value
    return coverage, structure


def test_alignment_cut_to_rows_with_evidence_equals_the_plain_one(peter_index):
    graph_edges = al.incidence(peter_index).edges[::97][:3]  # query nodes near the two ends of real graph edges
    ends = peter_index.node_vectors[graph_edges[:, 1:].ravel()] + 0.02
    vectors = np.vstack([ends / np.linalg.norm(ends, axis=1, keepdims=True), _queries(peter_index, 2, 3)])
    vectors = vectors.astype(np.float32)
    action, entity = peter_index.type_rows.get("action"), peter_index.type_rows.get("entity")
    masks = [None, None, action, None, entity, None, None, None]
    edges = [(0, 1), (2, 3), (4, 5), (6, 7), (1, 6)]
    # both from the same cosines: the product's float summation order depends on the CPU's BLAS kernel (an AVX2
    # EPYC's differs from an AVX-512 Xeon's in the last bit), and what is tested here is the cut to rows
    cosines = node_cosines(peter_index, vectors)
    fast = al.align(peter_index, vectors, masks, edges, 1.0, cosines)
    coverage, structure = _plain_alignment(peter_index, cosines, masks, edges)
    assert np.array_equal(fast.coverage, coverage)
    assert np.allclose(fast.structure, structure, rtol=0, atol=1e-12) and structure.any() and coverage.any()


def test_context_agreement_from_the_cosine_matrix_equals_the_plain_one(peter_index):
    neighbours = _queries(peter_index, 3, 5)
    cosines = neighbours @ peter_index.node_vectors.T
    rows = np.arange(0, len(peter_index.node_ids), 3)
    fast = context_agreement(peter_index, rows, cosines)
    plain = np.zeros(len(rows), dtype=np.float32)
    for i, row in enumerate(rows):
        node_id = peter_index.node_ids[row]
        around = sorted(peter_index.node_row[n] for n in peter_index.graph.neighbors(node_id))
        if len(around):
            plain[i] = float(np.clip((neighbours @ peter_index.node_vectors[around].T).max(axis=1), 0, None).mean())
    assert np.allclose(fast, plain, rtol=0, atol=1e-6) and (fast > 0).any() and (fast == 0).any()


def test_neighbour_runs_are_every_nodes_graph_neighbours(peter_index):
    starts, flat = peter_index.neighbour_runs
    assert len(starts) == len(peter_index.node_ids) + 1 and starts[-1] == len(flat)
    for row, node_id in enumerate(peter_index.node_ids):
        expected = sorted(peter_index.node_row[n] for n in peter_index.graph.neighbors(node_id))
        assert flat[starts[row]:starts[row + 1]].tolist() == expected, node_id


def test_cosines_through_distinct_vectors_equal_the_plain_product(peter_index):
    vectors = _queries(peter_index, 4, 11)
    fast = node_cosines(peter_index, vectors)
    distinct, inverse = peter_index.cache.get(DISTINCT, lambda: None)
    assert len(distinct) < len(peter_index.node_ids)  # equal vectors exist, so the product really is shared
    assert np.array_equal(distinct[inverse], peter_index.node_vectors)
    # equal up to float32 rounding: BLAS may sum the 384 products in another order for another matrix shape
    assert fast.flags["C_CONTIGUOUS"] and np.allclose(fast, vectors @ peter_index.node_vectors.T, rtol=0, atol=1e-6)



def test_the_distinct_vectors_are_written_once_and_mapped_by_every_later_load(peter_store, peter_index):
    """The distinct rows are a file of the collection's linked folder, named by its stamp, and a later load maps
    them (pages of the file, not the process's heap) instead of computing them again; a damaged file is
    computed and written again."""
    from kgcore.index.store.integrity import mapped_file
    from kgcore.index.store.recovery import linked_folder
    from kgcore.query.distinct_vectors import distinct_node_vectors, distinct_rows, file_stem

    node_cosines(peter_index, _queries(peter_index, 1, 3))
    manifest = peter_index.manifest
    base = peter_index.path / linked_folder(manifest.generation) / file_stem(manifest.stamp, manifest.linked_files)
    assert base.with_suffix(".npy").exists() and base.with_suffix(".npz").exists()
    again = peter_store.load(peter_index.collection)  # a new process's view: nothing cached
    distinct, inverse = distinct_node_vectors(again)
    assert mapped_file(distinct) == str(base.with_suffix(".npy")) and not distinct.flags.writeable
    expected = distinct_rows(again.node_vectors)
    assert np.array_equal(distinct, expected[0]) and np.array_equal(inverse, expected[1])
    for suffix, damage in ((".npz", b"not a zip"), (".npy", b"not an array")):
        base.with_suffix(suffix).write_bytes(damage)
        damaged = peter_store.load(peter_index.collection)
        distinct, inverse = distinct_node_vectors(damaged)
        assert np.array_equal(distinct, expected[0]) and np.array_equal(inverse, expected[1]), suffix
        assert np.array_equal(np.load(base.with_suffix(".npz"))["inverse"], expected[1])  # written again
        assert np.array_equal(np.load(base.with_suffix(".npy")), expected[0])
