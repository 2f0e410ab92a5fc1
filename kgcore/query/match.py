"""Node matching: the top-K graph nodes for each query node.

Plain cosine top-K (paper section 3.4) has a blind spot on long books: an
action node is one occurrence (``grow_5539``) and every occurrence of a verb
has nearly the same embedding, so the K "grow" nodes kept out of hundreds of
ties are arbitrary.  Matching is therefore *context-aware*: among a pool of
the best cosine candidates, a node whose graph neighbours resemble the query
node's neighbours in the query graph (the "grow" whose ARG1 is "barley" for
"What grain grew near his dwelling?") is preferred.  The reported score stays
the plain cosine, so what the analyst sees is what the vectors say.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from kgcore.core.embed import Embedder, embed_query_nodes
from kgcore.core.embed.matmul import tall_product
from kgcore.core.types import ENTITY, LocalNode, Match, SentenceGraph
from kgcore.index.store import chroma
from kgcore.index.store.disk import Index
from kgcore.index.store.partial import WHOLE
from kgcore.query.distinct_vectors import distinct_node_vectors

#: Candidates per query node re-ranked with graph context.
POOL_SIZE = 300
#: Weight of the neighbourhood agreement when choosing among the pool.
CONTEXT_WEIGHT = 0.5
#: Every how many-th value :func:`largest_rows` samples to find its threshold.
SAMPLE_STRIDE = 32
#: Candidates asked of Chroma per query node, then scored again with the stored vectors (:func:`_chroma_top_k`).
CHROMA_POOL = 100
#: Penalty rows kept (:func:`mask_penalties`): a few node types of a few collections.
PENALTIES_KEPT = 16
_PENALTIES: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
_PENALTIES_LOCK = threading.Lock()


def node_cosines(index: Index, vectors: np.ndarray) -> np.ndarray:
    """Cosines of ``vectors`` (rows) to every graph node of ``index`` (query rows × graph rows).

    The product is the largest of a query and reads every node vector; a node's vector depends only on its label
    and texts, so many are equal (ObliQA: 77,296 distinct of 124,336), and each distinct vector is multiplied
    once and its cosines copied to the rows that share it.
    """
    distinct, inverse = distinct_node_vectors(index)  # mapped from the collection's linked folder
    # (distinct x query) is the product's fast order (:mod:`kgcore.core.embed.matmul`); the result is made C-ordered
    # before the gather, since the callers sweep it row by row
    return np.take(np.ascontiguousarray(tall_product(distinct, vectors).T), inverse, axis=1)


def query_node_vectors(index: Index, query_graph: SentenceGraph, embedder: Embedder) -> tuple[list[str], np.ndarray]:
    """(node keys, matrix) of a query graph, embedded the way ``index`` embedded its own nodes."""
    o = index.manifest.options
    return embed_query_nodes(query_graph, embedder, o.embedding, o.alpha, o.beta)


def query_adjacency(query_graph: SentenceGraph, keys: list[str]) -> list[list[int]]:
    """For each of ``keys``, the positions (in ``keys``) of its neighbours in the query graph.

    >>> from kgcore.core.types import LocalEdge
    >>> edges = (LocalEdge("a", "b", "ARG1", "action-entity"), LocalEdge("a", "x", "ARG0", "action-entity"))
    >>> g = SentenceGraph("q", (), edges)
    >>> query_adjacency(g, ["a", "b"])
    [[1], [0]]
    """
    position = {k: i for i, k in enumerate(keys)}
    adjacency: list[set[int]] = [set() for _ in keys]
    for e in query_graph.edges:
        if e.source in position and e.target in position and e.source != e.target:
            adjacency[position[e.source]].add(position[e.target])
            adjacency[position[e.target]].add(position[e.source])
    return [sorted(a) for a in adjacency]


def match_nodes(
    index: Index,
    query_vectors: np.ndarray,
    query_nodes: list[LocalNode],
    k: int,
    use_chroma: bool = False,
    typed: bool = True,
    neighbours: list[list[int]] | None = None,
    scope: np.ndarray | None = None,
    cosines: np.ndarray | None = None,
    masks: list[np.ndarray | None] | None = None,
) -> list[Match]:
    """Top-``k`` graph nodes per query node, best first.

    With ``typed`` an action query node is matched against action nodes and
    an entity against entities (an entity "shed" must not match the action
    "shed tears"); the fallback whole-question node matches anything.
    ``neighbours`` (from :func:`query_adjacency`) enables context-aware
    choice among near-ties; ``scope`` (node rows, from
    :meth:`~kgcore.index.store.in_memory.Index.node_scope`) keeps matches inside some
    documents.  Chroma search is plain cosine top-K over Chroma's candidates, scored exactly.  ``cosines``
    (query rows × graph rows, unmasked) and ``masks`` (:func:`query_masks` of ``query_nodes``, ``scope`` and
    ``typed``), when the caller has them, save computing them again.
    """
    if use_chroma:
        ranked = _chroma_top_k(index, query_vectors, k, scope)
    else:
        scores = node_cosines(index, query_vectors) if cosines is None else cosines
        neighbours = neighbours or [[] for _ in query_nodes]
        masks = query_masks(index, query_nodes, scope, typed) if masks is None else masks
        penalties = mask_penalties(masks, scores.dtype)
        ranked = [_top_k(index, scores[i], k, penalties[i], masks[i], scores[neighbours[i]])
                  for i in range(len(query_nodes))]
    matches = []
    for node, hits in zip(query_nodes, ranked):
        for rank, (node_id, score) in enumerate(hits):
            found = index.graph.nodes[node_id]
            matches.append(Match(node.key, node_id, found.label, list(found.texts[:8]), found.node_type,
                                 round(score, 4), rank))
    return matches


def type_mask(index: Index, node: LocalNode) -> np.ndarray | None:
    """Graph rows ``node`` may match (same node type), or None for any (the fallback node, a type the graph lacks)."""
    if node.merge_key is None and node.node_type == ENTITY and node.key == "q0":
        return None  # the fallback node stands for the whole question
    mask = index.type_rows.get(node.node_type)
    return mask if mask is not None and mask.any() else None


def combine_masks(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """Rows both masks allow (None allows every row)."""
    return b if a is None else a if b is None else a & b


def query_masks(index: Index, query_nodes: list[LocalNode], scope: np.ndarray | None,
                typed: bool = True) -> list[np.ndarray | None]:
    """Per query node, the graph rows it may match or align to: its type's rows inside ``scope`` (None: any).
    Nodes of one type share one array, so :func:`mask_penalties` builds one penalty row per type."""
    shared: dict[int, np.ndarray | None] = {}
    out = []
    for node in query_nodes:
        base = type_mask(index, node) if typed else None
        if id(base) not in shared:
            shared[id(base)] = combine_masks(base, scope)
        out.append(shared[id(base)])
    return out


def mask_penalties(masks: list[np.ndarray | None], dtype=np.float32) -> list[np.ndarray | None]:
    """Per mask, 0 where it allows a row and -inf where not (one array per distinct mask): adding it to a cosine
    row masks it in one pass, giving exactly ``np.where(mask, row, -inf)``.

    >>> mask = np.array([True, False, True])
    >>> (np.array([0.5, 0.9, -0.25], dtype=np.float32) + mask_penalties([mask])[0]).tolist()
    [0.5, -inf, -0.25]
    """
    return [None if mask is None else _penalty(mask, np.dtype(dtype)) for mask in masks]


def _penalty(mask: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The penalty row of ``mask``, kept for the :data:`PENALTIES_KEPT` masks last asked for: a question's masks
    are mostly an index's node-type rows (:meth:`~kgcore.index.store.in_memory.Index.type_rows`, the same arrays for
    every question), and making ObliQA's two took 1.1 ms twice a question.  An entry holds its mask, so the
    mask's ``id`` is not reused while the entry is kept."""
    key = (id(mask), dtype.str)
    kept = _PENALTIES.get(key)
    if kept is not None and kept[0] is mask:
        return kept[1]
    penalty = np.where(mask, 0.0, -np.inf).astype(dtype)
    penalty.flags.writeable = False  # shared by every question that asks with this mask
    with _PENALTIES_LOCK:
        _PENALTIES[key] = (mask, penalty)
        while len(_PENALTIES) > PENALTIES_KEPT:
            _PENALTIES.pop(next(iter(_PENALTIES)))
    return penalty


def _chroma_top_k(index: Index, vectors: np.ndarray, k: int, scope: np.ndarray | None) -> list[list[tuple[str, float]]]:
    """Top-``k`` from the collection's Chroma copy.

    Chroma's HNSW search is approximate, and two copies built from the same vectors (embedded, on a server,
    or rebuilt) are different graphs: the best ``CHROMA_POOL`` candidates (more with a scope, then filtered)
    are therefore scored again with the stored vectors and ranked by that cosine, ties by node id, so every
    copy that finds the same candidates answers the same top-K with the same scores as exact search.
    """
    total = len(index.node_ids)
    asked = min(total, max(k, CHROMA_POOL) if scope is None else max(k * 20, 200))
    hits = chroma.query_nodes(index.chroma_copy, vectors, asked, total)
    return [_rescored(index, vector, [i for i, _ in found], k, scope) for vector, found in zip(vectors, hits)]


def _rescored(index: Index, vector: np.ndarray, ids: list[str], k: int,
              scope: np.ndarray | None) -> list[tuple[str, float]]:
    """The best ``k`` of ``ids`` (inside ``scope``) by their cosine to ``vector``; ties by node id."""
    rows = [r for r in (index.node_row[i] for i in ids) if scope is None or scope[r]]
    scores = index.node_vectors[rows] @ vector if rows else np.zeros(0, dtype=np.float32)
    ranked = sorted(zip(rows, scores.tolist()), key=lambda pair: (-round(pair[1], 6), index.node_ids[pair[0]]))
    return [(index.node_ids[r], s) for r, s in ranked[:k]]


def context_agreement(index: Index, rows: np.ndarray, neighbour_cosines: np.ndarray) -> np.ndarray:
    """For each graph row, the mean over query neighbours of their best cosine to the row's graph neighbours
    (0 for a row without neighbours).  ``neighbour_cosines`` are the query neighbours' cosines to every graph
    row (rows of the query's cosine matrix), so this is a gather and a per-row maximum by ``reduceat``."""
    return agreement_of(context_maxima(index, rows, neighbour_cosines))


def context_maxima(index: Index, rows: np.ndarray, neighbour_cosines: np.ndarray) -> np.ndarray:
    """Per query neighbour (rows) and graph row (columns), the neighbour's best cosine to the row's graph
    neighbours; -inf for a row without neighbours.  A node two shards hold has some neighbours on each: the
    maxima of its two columns' are its maxima in the whole collection."""
    offsets, flat = index.neighbour_runs
    gathered, lengths = gather_runs(offsets, flat, np.asarray(rows, dtype=np.int64))
    out = np.full((len(neighbour_cosines), len(lengths)), -np.inf, dtype=np.float32)
    some = lengths > 0
    if some.any():
        placed = np.cumsum(lengths) - lengths  # where each row's neighbours start in the gathered run
        out[:, some] = np.maximum.reduceat(neighbour_cosines[:, gathered], placed[some], axis=1)
    return out


def agreement_of(maxima: np.ndarray) -> np.ndarray:
    """The context agreement of each column of :func:`context_maxima`: the mean of its maxima clipped at 0 (0 for
    a row without neighbours).

    >>> agreement_of(np.array([[0.5, -np.inf], [-0.2, -np.inf]], dtype=np.float32)).tolist()
    [0.25, 0.0]
    """
    total = np.zeros(maxima.shape[1], dtype=np.float32)
    for row in np.clip(maxima, 0, None).astype(np.float32):  # row by row: the same sums whatever the columns
        total += row
    return total / np.float32(max(len(maxima), 1))


def gather_runs(starts: np.ndarray, flat: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of ``flat`` that belong to ``keys`` (key ``k``'s is ``flat[starts[k]:starts[k + 1]]``),
    concatenated in the order of ``keys``, and each run's length; one gather, no loop over the keys.

    >>> values, lengths = gather_runs(np.array([0, 2, 2, 5]), np.array([7, 8, 9, 10, 11]), np.array([2, 0, 1]))
    >>> values.tolist(), lengths.tolist()
    ([9, 10, 11, 7, 8], [3, 2, 0])
    """
    begin = starts.take(keys)
    lengths = starts.take(keys + 1) - begin
    placed = np.cumsum(lengths) - lengths  # where each run starts in the result
    return flat.take(np.arange(int(lengths.sum())) + np.repeat(begin - placed, lengths)), lengths


def largest_rows(values: np.ndarray, size: int) -> np.ndarray:
    """The rows of the ``size`` largest ``values`` (1 <= size <= len(values)) in ascending order; among equal
    values at the boundary the lowest rows, so the pool (and the order its ties keep) never depends on how a
    partition happened to fall.

    A query node's pool is the best 300 of ObliQA's 124,000 graph rows, and partitioning the whole row took 1.1 ms
    a query node (a tenth of a question).  So the partition runs only on the values at least a threshold: the
    value that every :data:`SAMPLE_STRIDE`-th row would rank about ``2 * size`` rows down.  When fewer than
    ``size`` values reach it (seldom, or when the sample meets masked ``-inf`` rows), the whole row is partitioned.
    Either way the answer is exact: every one of the ``size`` largest is at least the threshold once ``size``
    values are.  (ObliQA's rulebooks repeat labels, so equal cosines are common.)

    >>> values = np.random.default_rng(0).standard_normal(100_000).astype(np.float32)
    >>> found = largest_rows(values, 300)
    >>> sorted(found.tolist()) == sorted(np.argsort(-values)[:300].tolist())
    True
    >>> largest_rows(np.array([0.1, 0.9, 0.5]), 2).tolist()
    [1, 2]
    >>> largest_rows(np.array([0.5, 0.9, 0.5, 0.5]), 2).tolist()   # a tie at the boundary: the lowest row
    [0, 1]
    """
    sample = values[::SAMPLE_STRIDE]
    wanted = 2 * size // SAMPLE_STRIDE + 1  # sampled values at or above the threshold
    if 4 * wanted <= len(sample):  # else the row is short: partition it all
        threshold = np.partition(sample, len(sample) - wanted)[len(sample) - wanted]
        if np.isfinite(threshold):
            candidates = np.flatnonzero(values >= threshold)
            if len(candidates) >= size:
                return _lowest_at_ties(candidates, values.take(candidates), size)
    return _lowest_at_ties(np.arange(len(values)), values, size)


def _lowest_at_ties(rows: np.ndarray, found: np.ndarray, size: int) -> np.ndarray:
    """The ``size`` of ``rows`` (ascending) with the largest ``found`` values; at a tie the lowest rows."""
    boundary = np.partition(found, len(found) - size)[len(found) - size]  # the size-th largest value
    above, tied = found > boundary, np.flatnonzero(found == boundary)
    above[tied[: size - int(above.sum())]] = True
    return rows[above]


def _top_k(index: Index, row: np.ndarray, k: int, penalty: np.ndarray | None, mask: np.ndarray | None,
           context: np.ndarray) -> list[tuple[str, float]]:
    """The best ``k`` of a cosine row among the rows ``mask`` allows (``penalty`` is its
    :func:`mask_penalties` row), chosen among a pool by context agreement."""
    pool, cosines, rank_by, _ = pool_of(index, row, k, penalty, mask, context)
    top = np.argsort(-rank_by, kind="stable")[:k]
    return [(index.node_ids[j], float(c)) for j, c in zip(pool[top], cosines[top])]


def pool_of(index: Index, row: np.ndarray, k: int, penalty: np.ndarray | None, mask: np.ndarray | None,
            context: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A query node's pool (:func:`_top_k`): its graph rows (ascending), their cosines, what they are ranked by
    (the cosine plus the context agreement), and how many rows it may choose from at all."""
    if penalty is not None:
        row = row + penalty
    finite = int(np.count_nonzero(mask)) if mask is not None else int(np.isfinite(row).sum())
    pool_size = min(max(POOL_SIZE, k) if len(context) else k, finite)
    if pool_size <= 0:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0), finite
    pool = largest_rows(row, pool_size)
    rank_by = row[pool]
    if len(context):
        rank_by = rank_by + CONTEXT_WEIGHT * context_agreement(index, pool, context)
    return pool, row[pool], rank_by, finite


@dataclass(frozen=True)
class Pool:
    """A query node's pool on part of a collection (a shard), for the driver to choose the collection's top-K:
    the pool's size over the whole collection (``wanted``, capped by the rows it may choose from, ``finite``) and
    per candidate its cosine, what it is ranked by and its match."""

    wanted: int
    finite: int
    candidates: list[tuple[float, float, Match]]
    #: Per candidate the collection's other parts hold too (by node id), its :func:`context_maxima` column: the
    #: driver takes the maxima of every holder's, as the node's neighbours are theirs together.
    context: dict[str, np.ndarray] = field(default_factory=dict)


def match_pools(index: Index, query_vectors: np.ndarray, query_nodes: list[LocalNode], k: int,
                neighbours: list[list[int]], cosines: np.ndarray, masks: list[np.ndarray | None]) -> list[Pool]:
    """Each query node's :class:`Pool` in ``index`` (the exact search of :func:`match_nodes`)."""
    penalties = mask_penalties(masks, cosines.dtype)
    whole = index.cache.peek(WHOLE)
    crossing = whole.nodes if whole is not None else {}
    out = []
    for i, node in enumerate(query_nodes):
        context = cosines[neighbours[i]]
        pool, found, rank_by, finite = pool_of(index, cosines[i], k, penalties[i], masks[i], context)
        matches = [Match(node.key, index.node_ids[j], index.graph.nodes[index.node_ids[j]].label,
                         list(index.graph.nodes[index.node_ids[j]].texts[:8]),
                         index.graph.nodes[index.node_ids[j]].node_type, round(float(c), 4), -1)
                   for j, c in zip(pool, found)]
        held = crossing_context(index, cosines[i], max(POOL_SIZE, k), context, crossing,
                                pool if masks[i] is None else None)
        out.append(Pool(max(POOL_SIZE, k) if len(context) else k, finite,
                        [(float(c), float(r), m) for c, r, m in zip(found, rank_by, matches)], held))
    return out


def crossing_context(index: Index, row: np.ndarray, size: int, context: np.ndarray, crossing: dict[str, int],
                     pool: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The :func:`context_maxima` column of each node other parts of the collection hold too (``crossing``) among
    the ``size`` best of a cosine ``row`` over every node, whatever the question's documents (``pool``: those
    rows, when known): one process ranks such a node by all its neighbours, in the documents asked or not."""
    if not crossing or not len(context) or not len(row):
        return {}
    pool = largest_rows(row, min(size, len(row))) if pool is None else pool
    shared = np.asarray([j for j in pool.tolist() if index.node_ids[j] in crossing], dtype=np.int64)
    if not len(shared):
        return {}
    maxima = context_maxima(index, shared, context)
    return {index.node_ids[j]: maxima[:, n] for n, j in enumerate(shared.tolist())}
