"""Reading and checking a collection's stored files: the linked graph, the documents' sentences (when the
collection has no sentence table yet), and what :meth:`~kgcore.index.store.disk.Store.verify` and a load find
damaged, each problem naming its file and the remedy.

>>> LINKED_FILES
('graph.json', 'node_ids.json', 'node_vectors.npy')
"""

from __future__ import annotations

import builtins
import dataclasses
import os
from pathlib import Path

import numpy as np

from kgcore.core.errors import DamagedIndexError
from kgcore.core.graph import GroundedGraph
from kgcore.core.types import Sentence
from kgcore.index.store import generations, legacy, sentence_matrix, sentence_table, shard
from kgcore.index.store.collection import LINKED_REMEDY, CollectionManifest, DocumentEntry
from kgcore.index.store.in_memory import DOCUMENTS_DIR
from kgcore.index.store.integrity import check_digests, check_sizes, file_sizes, parse_json, read_verified
from kgcore.index.store.recovery import linked_folder

#: Files of a linked graph (``linked-<generation>/``).
LINKED_FILES = ("graph.json", "node_ids.json", "node_vectors.npy")



def read_linked(path: Path, manifest: CollectionManifest) -> tuple[GroundedGraph, list[str], np.ndarray]:
    """The linked graph, node ids and node vectors of the collection at ``path``, every file checked against the
    manifest (a damaged one is a :class:`DamagedIndexError` saying how to rebuild it)."""
    linked = path / linked_folder(manifest.generation)
    _first(check_sizes(linked, manifest.linked_files), LINKED_REMEDY)
    try:
        graph = shard.read_graph(linked, manifest.linked_files)
        node_ids = parse_json(linked / "node_ids.json", read_verified(linked / "node_ids.json",
                                                                      manifest.linked_files.get("node_ids.json")))
        node_vectors = shard.map_array(linked, "node_vectors.npy", manifest.linked_files)  # shared pages, not heap
        shard.agree(linked / "node_vectors.npy", len(node_vectors), len(node_ids), "vectors")
        shard.agree(linked / "graph.json", len(graph.nodes), len(node_ids), "nodes")
        graph, node_ids, node_vectors = generations.apply_layers(path, manifest, graph, node_ids, node_vectors)
        shard.agree(linked / "node_ids.json", len(node_ids), manifest.counts.nodes or len(node_ids), "node ids")
    except DamagedIndexError as exc:
        raise DamagedIndexError(exc.path, exc.reason, LINKED_REMEDY) from None
    return graph, node_ids, node_vectors


def linked_problems(path: Path, manifest: CollectionManifest, deep: bool = True) -> list[DamagedIndexError]:
    """Problems of the linked graph's files of the collection at ``path`` (``deep``: hashed, else sizes only;
    a collection written before digests: missing files only)."""
    if manifest.format == 1:
        return []
    linked = path / linked_folder(manifest.generation)
    if manifest.linked_files:
        problems = (check_digests if deep else check_sizes)(linked, manifest.linked_files)
    else:
        problems = [DamagedIndexError(linked / n, "missing") for n in LINKED_FILES if not (linked / n).is_file()]
    return [DamagedIndexError(p.path, p.reason, LINKED_REMEDY) for p in problems]


def document_problems(path: Path, entry: DocumentEntry, deep: bool = True) -> list[DamagedIndexError]:
    """Problems of one document's shard files (``deep``: hashed, else sizes only), each naming the file and
    how to re-index the document."""
    if entry.folder == legacy.IN_PLACE:
        return []
    folder = path / DOCUMENTS_DIR / entry.folder
    if not entry.files:  # written before digests: a complete, readable shard is all that can be checked
        missing = shard.missing_files(folder)
        problems = [DamagedIndexError(folder / m, "missing") for m in missing]
        if not problems and deep:
            try:
                shard.verify(folder)
            except DamagedIndexError as exc:
                problems.append(exc)
    else:
        problems = (check_digests if deep else check_sizes)(folder, entry.files)
    remedy = entry.remedy(path.name)
    return [DamagedIndexError(p.path, p.reason, remedy) for p in problems]


def _first(problems: builtins.list[DamagedIndexError], remedy: str | None = None) -> None:
    if problems:
        p = problems[0]
        raise DamagedIndexError(p.path, p.reason, remedy or p.remedy)


def check_document_sizes(path: Path, manifest: CollectionManifest) -> None:
    """Every document's stored files measured (``stat`` only: missing, truncated or grown; a same-size change shows
    when the file is read or verified): the first problem is a :class:`DamagedIndexError` with its remedy.  Plain
    ``os.stat`` on strings: 100,000 documents' 900,000 files in seconds."""
    for entry in manifest.documents:
        _check_entry_sizes(path, entry)


def _check_entry_sizes(path: Path, entry: DocumentEntry) -> None:
    """One document's files measured (:func:`check_document_sizes`)."""
    folder = os.path.join(path, DOCUMENTS_DIR, entry.folder)
    for name, expected in file_sizes(entry.files):
        try:
            size = os.stat(os.path.join(folder, name)).st_size
        except OSError:  # missing, or not reachable: named by the check below
            size = -1
        if size != expected:
            _first(check_sizes(Path(folder), entry.files), entry.remedy(path.name))


def read_sentences_of(path: Path, manifest: CollectionManifest, vectors: bool = True
                      ) -> tuple[list[Sentence], np.ndarray]:
    """Every document's sentences in collection order (``position`` = row) and their vectors (an empty array
    without ``vectors``: the caller maps the collection's, :mod:`~kgcore.index.store.sentence_matrix`), checked."""
    sentences: list[Sentence] = []
    matrices = []
    for entry in manifest.documents:
        _check_entry_sizes(path, entry)
        rows = sentence_table.document_sentences(path, entry)
        if vectors:
            matrices.append(sentence_matrix.document_vectors(path, entry))
        sentences += [dataclasses.replace(s, position=len(sentences) + i) for i, s in enumerate(rows)]
    dim = manifest.models.embedding_dim or (matrices[0].shape[1] if matrices else 0)
    return sentences, np.concatenate(matrices) if matrices else np.zeros((0, dim), dtype=np.float32)
