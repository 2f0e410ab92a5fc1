"""The contextual graph of a collection (LeSeGR's, on the grounded graph): sentence and chunk nodes, weighted edges.
Its data type is :class:`~kgcore.index.views.context_types.ContextGraph`; its file in the collection's linked folder
is :mod:`~kgcore.index.views.context_store`'s.

Nodes are the index's sentence rows ``0 .. S-1`` followed by its chunk nodes ``S .. S+C-1``. A **chunk** is a run
of consecutive sentences of one document and section: a paragraph, with short paragraphs (a novel's dialogue lines)
merged up to :data:`CHUNK_WORDS` words, as LeSeGR cuts papers into coherent chunks under a token limit. Its text
is its sentences' text, its dense vector their normalised mean.

Edges (undirected; a pair linked by several kinds keeps the largest weight
and all its kinds, see :data:`~kgcore.index.views.context_types.KINDS`):

* ``adjacent`` (weight 1): consecutive sentences of one document; stories
  and arguments continue in the next sentence.
* ``chunk`` (1): a sentence and its chunk, so a sentence hears its
  paragraph and a paragraph its sentences.
* ``shared-node`` (the node's specificity, 0.15-1): two sentences grounding
  the same GroundedKG node that is grounded in at most
  :data:`MAX_SHARED_SENTENCES` sentences, i.e. a rare entity; the hero,
  grounded everywhere, links nothing.
* ``graph-edge`` (0.5): two sentences whose nodes are joined by a role or
  ``next`` edge (coreference made one action span two sentences).
* ``cross-reference`` (1): a sentence naming "Section 3", "Table 2" or
  "Rule 9.2.1" and the heading, caption or rule that is that part
  (:mod:`kgcore.index.views.crossrefs`), in its own document first, else anywhere
  in the collection.
* ``citation`` (1): a sentence citing a reference entry that is another
  document of the collection and that document's first chunk (title and
  abstract).
* ``related`` (the cosine): a chunk and the most similar chunk of another
  document when their cosine is at least :data:`RELATED_MIN_COSINE` (seed
  004's "top relevant chunks" inter-document edges).

Every edge also carries its **affinity**, the cosine of its two ends' dense vectors clipped at 0: LeSeGR's
node-neighbour dense relevance, which does not depend on the question and so is computed once here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from kgcore.core.graph import specificity
from kgcore.core.types import CAPTION, HEADING, TITLE
from kgcore.index.store.disk import CacheKey, Index
from kgcore.index.store.partial import grounded_count, whole_sentences
from kgcore.index.store.recovery import linked_folder
from kgcore.index.views import crossrefs
from kgcore.index.views.cites import CitingDocument
from kgcore.index.views.context_store import STORED, read, write
from kgcore.index.views.context_types import BIT, ContextGraph

#: Chunks grow over consecutive paragraphs of one section up to this many words.
CHUNK_WORDS = 120
#: A node grounded in more sentences than this is too common to link them.
MAX_SHARED_SENTENCES = 8
#: Weight of a ``graph-edge`` link.
GRAPH_EDGE_WEIGHT = 0.5
#: Least cosine of two chunks of different documents for a ``related`` edge.
RELATED_MIN_COSINE = 0.8
#: The chunks of other documents compared at once when looking for ``related`` edges.
_BLOCK = 2048


CONTEXT_GRAPH: CacheKey[ContextGraph] = CacheKey("context-graph")


def context_graph(index: Index) -> ContextGraph:
    """The index's contextual graph: read from the collection's linked folder, else built and stored there."""
    return index.cache.get(CONTEXT_GRAPH, lambda: _stored(index))


def _stored(index: Index) -> ContextGraph:
    file = index.path / linked_folder(index.manifest.generation) / STORED if index.manifest.format > 1 else None
    if file is not None:
        cg = read(file, index.manifest.stamp)
        if cg is not None and cg.n_sentences == len(index.sentences):
            return cg
    cg = build(index)
    if file is not None:
        write(cg, file, index.manifest.stamp)
    return cg


def chunk_numbers(spans: np.ndarray, n: int) -> np.ndarray:
    """Each of ``n`` sentences' chunk: ``k`` for the rows ``lo .. hi - 1`` of span ``k`` (0 outside every span).

    >>> chunk_numbers(np.array([[0, 2], [2, 5]]), 5).tolist()
    [0, 0, 1, 1, 1]
    """
    chunk_of = np.zeros(n, dtype=np.int64)
    for k, (lo, hi) in enumerate(spans):
        chunk_of[lo:hi] = k
    return chunk_of


def build(index: Index) -> ContextGraph:
    """Build the contextual graph of ``index`` (every edge kind of the module docstring).  A change here bumps
    :data:`kgcore.index.views.context_store.VERSION`, so a graph stored before is built again."""
    spans = chunk_spans(index)
    n = len(index.sentences)
    chunk_of = chunk_numbers(spans, n)
    chunk_vectors = _chunk_vectors(index.sentence_vectors, spans)
    parts = [_adjacent(index), _membership(chunk_of, n), _shared_nodes(index), _graph_edges(index),
             _cross_references(index), _citations(index, spans, n), _related(index, spans, chunk_vectors, n)]
    rows, cols, weights, bits = (np.concatenate(x) for x in zip(*parts))
    size = n + len(spans)
    weight, kinds = _merge(rows, cols, weights, bits, size)
    vectors = np.vstack([index.sentence_vectors, chunk_vectors]) if len(spans) else index.sentence_vectors
    return ContextGraph(n, chunk_of, spans, chunk_vectors, weight, kinds, _affinity(weight, vectors))


def chunk_spans(index: Index) -> np.ndarray:
    """(first row, end row) of each chunk: paragraphs of one document and section merged up to CHUNK_WORDS."""
    spans: list[tuple[int, int]] = []
    start, words = 0, 0
    sentences = index.sentences
    for row, s in enumerate(sentences):
        if row == start:
            words = len(s.original.split())
            continue
        prev = sentences[row - 1]
        same_paragraph = s.doc_id == prev.doc_id and s.paragraph == prev.paragraph and s.paragraph >= 0
        may_join = s.doc_id == prev.doc_id and s.section == prev.section and s.role == prev.role
        n_words = len(s.original.split())
        if not same_paragraph and not (may_join and words + n_words <= CHUNK_WORDS):
            spans.append((start, row))
            start, words = row, n_words
        else:
            words += n_words
    if sentences:
        spans.append((start, len(sentences)))
    return np.array(spans, dtype=np.int64).reshape(-1, 2)


def _chunk_vectors(vectors: np.ndarray, spans: np.ndarray) -> np.ndarray:
    if not len(spans):
        return np.zeros((0, vectors.shape[1]), dtype=np.float32)
    sums = np.add.reduceat(vectors, spans[:, 0], axis=0)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    return (sums / np.maximum(norms, 1e-12)).astype(np.float32)


Part = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _part(pairs: list[tuple[int, int]] | np.ndarray, weights, kind: str) -> Part:
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    w = np.broadcast_to(np.asarray(weights, dtype=np.float32), (len(arr),)).copy()
    return arr[:, 0], arr[:, 1], w, np.full(len(arr), BIT[kind], dtype=np.int64)


def _adjacent(index: Index) -> Part:
    docs = index.sentence_documents
    rows = np.flatnonzero(docs[1:] == docs[:-1]) if len(docs) > 1 else np.zeros(0, np.int64)
    return _part(np.c_[rows, rows + 1], 1.0, "adjacent")


def _membership(chunk_of: np.ndarray, n: int) -> Part:
    return _part(np.c_[np.arange(n), n + chunk_of], 1.0, "chunk")


def _shared_nodes(index: Index) -> Part:
    rows, cols, weights = [], [], []
    total = whole_sentences(index)  # a part of a collection weighs as the whole does
    for node_id, node in index.graph.nodes.items():
        grounded, count = node.grounded_texts, grounded_count(index, node_id)  # count: over the whole collection
        if not 2 <= count <= MAX_SHARED_SENTENCES or len(grounded) < 2:
            continue
        members = sorted({index.sentence_row(sid) for sid in grounded})
        weight = float(specificity(count, total))
        for a, b in _pairs(members):
            if b - a > 1:
                rows.append(a)
                cols.append(b)
                weights.append(weight)
    return _part(np.c_[rows, cols] if rows else [], np.array(weights), "shared-node")


def _pairs(members: list[int]) -> Iterator[tuple[int, int]]:
    for i, a in enumerate(members):
        for b in members[i + 1:]:
            yield a, b


def _graph_edges(index: Index) -> Part:
    pairs = set()
    nodes = index.graph.nodes
    for edge in index.graph.edges:
        a, b = nodes[edge.source].grounded_texts, nodes[edge.target].grounded_texts
        if max(grounded_count(index, edge.source), grounded_count(index, edge.target)) > MAX_SHARED_SENTENCES:
            continue
        for x in a:
            for y in b:
                ra, rb = index.sentence_row(x), index.sentence_row(y)
                if abs(ra - rb) > 1:
                    pairs.add((min(ra, rb), max(ra, rb)))
    return _part(sorted(pairs), GRAPH_EDGE_WEIGHT, "graph-edge")


def _cross_references(index: Index) -> Part:
    targets: dict[str, dict[tuple[str, str], list[int]]] = {}
    anywhere: dict[tuple[str, str], list[int]] = {}
    for row, s in enumerate(index.sentences):
        key = crossrefs.target_key(s.original) if s.role != TITLE else None
        # Headings and captions are targets; a body sentence only when it opens with a dotted rule id (9.2.1).
        if key and (s.role in (HEADING, CAPTION) or "." in key[1]):
            targets.setdefault(s.doc_id, {}).setdefault(key, []).append(row)
            anywhere.setdefault(key, []).append(row)
    pairs = []
    for row, s in enumerate(index.sentences):
        for kind, number in crossrefs.mentions(s.original):
            found = crossrefs.resolve(kind, number, targets.get(s.doc_id, {}))
            if not found and kind == "rule":
                found = crossrefs.resolve(kind, number, anywhere)
            pairs += [(row, t) for t in found if t != row]
    return _part(pairs, 1.0, "cross-reference")


def _citations(index: Index, spans: np.ndarray, n: int) -> Part:
    entries = index.manifest.documents
    if len(entries) < 2:
        return _part([], 1.0, "citation")
    first_chunk: dict[str, int] = {}
    for k, (lo, _) in enumerate(spans):
        first_chunk.setdefault(index.sentences[lo].doc_id, n + k)
    by_doc: dict[str, list] = {}
    for s in index.sentences:
        by_doc.setdefault(s.doc_id, []).append(s)
    cited = [CitingDocument.of(e.doc_id, by_doc.get(e.doc_id, []), (), e.manifest.source_file) for e in entries]
    documents = [(d.doc_id, d.title, d.arxiv, d.front) for d in cited]
    citing: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for row, s in enumerate(index.sentences):
        if s.citations:
            citing.setdefault(s.doc_id, []).append((row, s.citations))
    pairs = []
    for entry in entries:
        references = {r.key: r for r in index.references(entry.doc_id)}
        if not references:
            continue
        pairs += [(row, first_chunk[doc]) for row, doc in
                  crossrefs.citation_pairs(citing.get(entry.doc_id, []), references, documents, entry.doc_id)
                  if doc in first_chunk]
    return _part(pairs, 1.0, "citation")


def _related(index: Index, spans: np.ndarray, vectors: np.ndarray, n: int) -> Part:
    if len(index.manifest.documents) < 2 or not len(spans):
        return _part([], 1.0, "related")
    docs = np.array([index.sentences[lo].doc_id for lo, _ in spans], dtype=object)
    rows, cols, weights = [], [], []
    for start in range(0, len(spans), _BLOCK):
        sims = vectors[start:start + _BLOCK] @ vectors.T
        sims[docs[start:start + _BLOCK, None] == docs[None, :]] = -1.0
        best = sims.argmax(axis=1)
        value = sims[np.arange(len(best)), best]
        keep = np.flatnonzero(value >= RELATED_MIN_COSINE)
        rows += (n + start + keep).tolist()
        cols += (n + best[keep]).tolist()
        weights += value[keep].tolist()
    return _part(np.c_[rows, cols] if rows else [], np.array(weights), "related")


def _merge(rows, cols, weights, bits, size: int) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
    """Symmetric weight and kind matrices; a pair linked twice keeps the largest weight and every kind."""
    keep = rows != cols
    r = np.r_[rows[keep], cols[keep]]
    c = np.r_[cols[keep], rows[keep]]
    w = np.r_[weights[keep], weights[keep]]
    b = np.r_[bits[keep], bits[keep]]
    if not len(r):
        empty = sparse.csr_matrix((size, size), dtype=np.float32)
        return empty, sparse.csr_matrix((size, size), dtype=np.int64)
    order = np.lexsort((c, r))
    r, c, w, b = r[order], c[order], w[order], b[order]
    starts = np.flatnonzero(np.r_[True, (r[1:] != r[:-1]) | (c[1:] != c[:-1])])
    w = np.maximum.reduceat(w, starts)
    b = np.bitwise_or.reduceat(b, starts)
    r, c = r[starts], c[starts]
    weight = sparse.csr_matrix((w.astype(np.float32), (r, c)), shape=(size, size))
    kinds = sparse.csr_matrix((b, (r, c)), shape=(size, size))
    return weight, kinds


def _affinity(weight: sparse.csr_matrix, vectors: np.ndarray) -> sparse.csr_matrix:
    """Per edge, the cosine of its ends' vectors clipped at 0 (same sparsity as ``weight``)."""
    coo = weight.tocoo()
    values = np.empty(len(coo.row), dtype=np.float32)
    for start in range(0, len(values), 65536):
        a, b = coo.row[start:start + 65536], coo.col[start:start + 65536]
        values[start:start + 65536] = np.einsum("ij,ij->i", vectors[a], vectors[b])
    return sparse.csr_matrix((np.clip(values, 0.0, None), (coo.row, coo.col)), shape=weight.shape)


@dataclass(frozen=True)
class Neighbour:
    """One contextual-graph neighbour of a node: its node number, edge weight and edge kinds."""

    node: int
    weight: float
    kinds: tuple[str, ...]


def neighbours(cg: ContextGraph, node: int) -> list[Neighbour]:
    """Every neighbour of ``node`` (a sentence row, or ``n_sentences + chunk``), heaviest edge first."""
    lo, hi = cg.weights.indptr[node], cg.weights.indptr[node + 1]
    cols, weights = cg.weights.indices[lo:hi], cg.weights.data[lo:hi]
    bits = cg.row_kinds(node)
    found = [Neighbour(int(c), float(w), tuple(cg.kind_names(bits.get(int(c), 0)))) for c, w in zip(cols, weights)]
    return sorted(found, key=lambda nb: (-nb.weight, nb.node))


@dataclass(frozen=True)
class DocumentCitation:
    """Document ``citing`` cites document ``cited`` of the same collection in these sentence rows."""

    citing: str
    cited: str
    rows: tuple[int, ...]


def document_citations(index: Index, cg: ContextGraph) -> list[DocumentCitation]:
    """The collection's citation graph: one entry per (citing, cited) pair of documents, with the citing rows."""
    coo = cg.kinds.tocoo()
    keep = (coo.data & BIT["citation"]).astype(bool) & (coo.row < cg.n_sentences) & (coo.col >= cg.n_sentences)
    found: dict[tuple[str, str], list[int]] = {}
    for row, chunk in zip(coo.row[keep], coo.col[keep]):
        lo, _ = cg.chunk_spans[chunk - cg.n_sentences]
        pair = (index.sentences[row].doc_id, index.sentences[lo].doc_id)
        found.setdefault(pair, []).append(int(row))
    return [DocumentCitation(a, b, tuple(sorted(rows))) for (a, b), rows in sorted(found.items())]
