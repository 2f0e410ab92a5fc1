"""Part of a collection: some of its documents' sentences and sentence vectors, and (for the graph methods) their
documents' graphs linked as a collection of their own.

What one shard of a sharded query engine (:mod:`kgcore.query.sharded`) holds: a process serving documents
``doc_ids`` reads their graphs and takes their rows of the collection's sentence table (mapped, shared with the
other shards on the machine) and of its sentence vectors (copied), so its memory follows its share of the
collection, not the whole.  Each row knows its row in the whole collection (:attr:`Part.rows`), so rankings from
several parts merge into the order one process would give.  :func:`load_linked_part` also merges the part's
documents' graphs (:func:`~kgcore.core.graph.merge_graphs`, as linking merges them): a node two parts share is
two nodes, one in each part, each with the collection's vector of it -- the collection's ``node_ids.json`` is read
and its node-vector file mapped (checked against its digest: at 434,000 nodes about 15 MB of ids and 0.6 GB of
vectors read once per start) and only the part's rows copied.  The views a method derives (the contextual graph,
entity pages) are kept in a private ``views`` folder, never beside the collection's own.

A part weighs its graph's nodes as the whole collection would when it knows the whole's counts
(:class:`Whole`, installed with :func:`use_whole`): a node's specificity is an idf over the collection's sentences,
and an action's counts every sentence of the collection grounding an action of its label ("be" is common in every
part).  Each part counts its own (:func:`part_counts`) and the counts add up (:func:`whole_of`), as the
sentences of a collection are split between its parts:

>>> whole_of([Whole(3, {"be": 2, "sail": 1}, {"peter": 2, "pie": 1}), Whole(2, {"be": 1}, {"peter": 1})])
Whole(sentences=5, action_labels={'be': 3, 'sail': 1}, nodes={'peter': 3})

A node two parts both hold (a name their documents share: one node in the whole collection, linked by its id) is
grounded in the sentences of both, so each part counts it over the whole (``nodes``: only such nodes are kept).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kgcore.core.errors import InputError
from kgcore.core.graph import GroundedGraph, merge_graphs
from kgcore.core.types import ACTION, Sentence
from kgcore.index.store import generations, sentence_matrix, sentence_table, shard
from kgcore.index.store.collection import DERIVED_FILES, CollectionManifest
from kgcore.index.store.disk import CacheKey, Store
from kgcore.index.store.in_memory import DOCUMENTS_DIR, Index
from kgcore.index.store.recovery import linked_folder
from kgcore.index.store.stored_files import check_document_sizes, read_sentences_of


@dataclass(frozen=True)
class Whole:
    """The counts of a whole collection a part weighs its nodes by: its sentences, and per action label
    (lower-cased) the sentences grounding an action with that label."""

    sentences: int
    action_labels: dict[str, int]
    #: Per node several parts hold (a node id without a document's prefix), its grounding sentences in all.
    nodes: dict[str, int] = dataclasses.field(default_factory=dict)


#: Where a part keeps the :class:`Whole` it was given (absent: the index is a whole collection).
WHOLE: CacheKey[Whole] = CacheKey("whole-collection")


def part_counts(index: Index) -> Whole:
    """This index's own :class:`Whole`: its sentences, and the sentences grounding an action of each label."""
    by_label: dict[str, set[str]] = {}
    for node in (index.graph.nodes[n] for n in index.node_ids):
        if node.node_type == ACTION:
            by_label.setdefault(node.label.lower(), set()).update(node.grounded_texts)
    nodes = {node_id: len(node.grounded_texts) for node_id, node in index.graph.nodes.items() if "/" not in node_id}
    return Whole(len(index.sentences), {label: len(ids) for label, ids in by_label.items()}, nodes)


def whole_of(parts: Sequence[Whole]) -> Whole:
    """The :class:`Whole` of parts that split a collection's sentences between them."""
    labels: Counter[str] = Counter()
    nodes: Counter[str] = Counter()
    for part in parts:
        labels.update(part.action_labels)
        nodes.update(part.nodes)
    held = Counter(node_id for part in parts for node_id in part.nodes)
    return Whole(sum(p.sentences for p in parts), dict(labels), {n: c for n, c in nodes.items() if held[n] > 1})


def use_whole(index: Index, whole: Whole) -> None:
    """Make ``index`` (a part) weigh its nodes by ``whole``: what it derived before is dropped, built again."""
    for key in index.cache.keys():
        index.cache.drop(key)
    index.cache.get(WHOLE, lambda: whole)


def grounded_count(index: Index, node_id: str) -> int:
    """The sentences grounding a node: in the whole collection when ``index`` is a part given one."""
    whole = index.cache.peek(WHOLE)
    if whole is not None and node_id in whole.nodes:
        return whole.nodes[node_id]
    return len(index.graph.nodes[node_id].grounded_texts)


def whole_sentences(index: Index) -> int:
    """The sentences of the collection ``index`` belongs to: the :class:`Whole`'s when it is a part given one."""
    whole = index.cache.peek(WHOLE)
    return len(index.sentences) if whole is None else whole.sentences


@dataclass
class Part:
    """An :class:`Index` over some documents (no graph, no node vectors) and each row's row in the collection."""

    index: Index
    rows: np.ndarray


def load_part(store: Store, name: str, doc_ids: Sequence[str]) -> Part:
    """Documents ``doc_ids`` of collection ``name``, loaded; an unknown id is an :class:`InputError`."""
    whole = store.manifest(name)
    part, offsets = _part_manifest(whole, name, doc_ids)
    sentences, vectors, rows = _sentences_of(store.doc_path(name), whole, part, offsets)
    dim = vectors.shape[1] if vectors.ndim == 2 else 0
    index = Index(name, store.doc_path(name), part, sentences, GroundedGraph(), [],
                  np.zeros((0, dim), dtype=np.float32), vectors)
    return Part(index, rows)


def load_linked_part(store: Store, name: str, doc_ids: Sequence[str], views: Path) -> Part:
    """Documents ``doc_ids`` of collection ``name`` with their graphs merged into one, for the graph methods.

    ``views`` is an empty folder of the caller's: it stands in for the collection's folder (its ``documents`` a
    link to the collection's), so what a method derives and stores is this part's own.  Every node's vector is
    the collection's (:func:`~kgcore.index.store.generations.vectors_for`: its linked node-vector file mapped, only
    the part's rows copied): a node the part shares with another part was embedded from its texts in both and
    placed among its neighbours in both, so a question matches it on each part as one process matches it.
    Nothing is embedded, and no document's own node vectors are read but those of documents a layered generation
    appends (their first vectors live only there).
    """
    whole = store.manifest(name)
    part, offsets = _part_manifest(whole, name, doc_ids)
    path = store.doc_path(name)
    sentences, vectors, rows = _sentences_of(path, whole, part, offsets)
    graph = merge_graphs(shard.read_graph(path / DOCUMENTS_DIR / entry.folder, entry.files)
                         for entry in part.documents)
    node_ids = list(graph.nodes)
    node_vectors = generations.vectors_for(path, whole, node_ids)
    views.mkdir(parents=True, exist_ok=True)
    (views / linked_folder(part.generation)).mkdir(exist_ok=True)
    if not (views / DOCUMENTS_DIR).exists():
        (views / DOCUMENTS_DIR).symlink_to(path / DOCUMENTS_DIR, target_is_directory=True)
    index = Index(name, views, part, sentences, graph, node_ids, node_vectors, vectors)
    return Part(index, rows)


def check_documents(known: Iterable[str], doc_ids: Iterable[str], name: str) -> None:
    """An :class:`InputError` naming the first of ``doc_ids`` that is not among ``known``, collection ``name``'s.

    >>> check_documents(["a", "b"], ["b", "c"], "shelf")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: documents: 'c' is not a document of 'shelf'
    """
    asked = list(doc_ids)
    if not asked:  # a question over the whole collection: no set of its ids built per question
        return
    held = set(known)
    unknown = [d for d in asked if d not in held]
    if unknown:
        raise InputError("documents", f"{unknown[0]!r} is not a document of {name!r}")


def _part_manifest(manifest: CollectionManifest, name: str, doc_ids: Sequence[str]):
    """The collection's manifest cut to ``doc_ids``, and each document's first row in the whole collection."""
    if manifest.format == 1:
        raise InputError(name, "a collection of kgcore 0.1 has no documents to split; index it again")
    check_documents(manifest.doc_ids, doc_ids, name)
    wanted, offsets, start = set(doc_ids), {}, 0
    for entry in manifest.documents:
        offsets[entry.doc_id] = start
        start += entry.manifest.counts.sentences
    # the collection's sentence-vector file holds every document's rows: not this part's file
    linked = {k: v for k, v in manifest.linked_files.items() if k not in DERIVED_FILES}
    part = dataclasses.replace(manifest, documents=tuple(d for d in manifest.documents if d.doc_id in wanted),
                               linked_files=linked)
    return part, offsets


def _sentences_of(path: Path, whole: CollectionManifest, part: CollectionManifest, offsets: dict[str, int]
                  ) -> tuple[Sequence[Sentence], np.ndarray, np.ndarray]:
    """The part's sentences, their vectors and their rows in the collection: the collection's mapped sentence
    table and vector matrix cut to the part's rows when it has them (no document's file opened; the vectors
    copied, as the part's rows are not one run of the file; the documents' files measured, as a load measures
    them), else read from the part's documents."""
    table, matrix = sentence_table.map_table(path, whole), sentence_matrix.map_matrix(path, whole)
    if table is None or matrix is None:
        sentences, vectors = read_sentences_of(path, part)
        return sentences, vectors, _rows(sentences, offsets)
    check_document_sizes(path, part)  # the part's documents' files measured, as a load measures the collection's
    runs = [np.arange(offsets[d.doc_id], offsets[d.doc_id] + d.manifest.counts.sentences) for d in part.documents]
    rows = np.concatenate(runs).astype(np.int64) if runs else np.zeros(0, dtype=np.int64)
    return table.subset(rows), np.ascontiguousarray(matrix[rows]), rows


def _rows(sentences, offsets: dict[str, int]) -> np.ndarray:
    """Each of the part's sentences' row in the whole collection."""
    rows: list[int] = []
    seen: dict[str, int] = {}
    for s in sentences:
        seen[s.doc_id] = seen.get(s.doc_id, -1) + 1
        rows.append(offsets[s.doc_id] + seen[s.doc_id])
    return np.asarray(rows, dtype=np.int64)
