"""The collection's contextual graph on disk: one ``context_graph.npz`` per generation in its linked folder.

Derived data: written atomically when a graph is built (:func:`write`; a store that cannot be written is left
alone), read back when its header matches the collection (:func:`read`, :func:`current`), built again otherwise.
A shard reads the collection's whole graph to take its part (:func:`stored_whole`); the sharded engine's driver
asks first whether it is there without reading it (:func:`is_stored`).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from kgcore.core.atomic import replace_file
from kgcore.index.store.collection import CollectionManifest
from kgcore.index.store.recovery import linked_folder
from kgcore.index.views.context_types import ContextGraph

#: The contextual graph's file in the collection's linked folder: derived data, rebuilt when missing or unreadable.
STORED = "context_graph.npz"
#: Bumped whenever :func:`kgcore.index.views.contextual.build` changes, so an older stored graph is rebuilt.
VERSION = 2
_MATRICES = ("weights", "kinds", "affinity")


def write(cg: ContextGraph, file: Path, stamp: str) -> None:
    """Store ``cg`` atomically (a temporary file renamed); a store that cannot be written is left alone."""
    arrays: dict[str, Any] = {"chunk_of": cg.chunk_of, "chunk_spans": cg.chunk_spans, "chunk_vectors": cg.chunk_vectors}
    for name in _MATRICES:
        m = getattr(cg, name)
        arrays |= {f"{name}_data": m.data, f"{name}_indices": m.indices, f"{name}_indptr": m.indptr}
    arrays |= {"version": np.array(VERSION), "stamp": np.array(stamp), "n": np.array(cg.n_sentences)}
    replace_file(file, lambda fh: np.savez(fh, **arrays), quiet=True)


#: What reading a stored graph raises when it is missing, damaged or of another layout.
UNREADABLE = (OSError, ValueError, KeyError, zipfile.BadZipFile)


def current(data, stamp: str, n: int | None = None) -> bool:
    """Whether an opened stored graph (``np.load``'s) is of this :data:`VERSION`, for the collection at ``stamp``
    (and of ``n`` sentences, when given): only its header is read."""
    return int(data["version"]) == VERSION and str(data["stamp"]) == stamp and (n is None or int(data["n"]) == n)


def read(file: Path, stamp: str) -> ContextGraph | None:
    """The graph stored in ``file`` for the collection at ``stamp``; None when missing, stale or unreadable."""
    try:
        with np.load(file, allow_pickle=False) as data:
            if not current(data, stamp):
                return None
            n = int(data["n"])
            size = n + len(data["chunk_spans"])
            matrices = [sparse.csr_matrix((data[f"{m}_data"], data[f"{m}_indices"], data[f"{m}_indptr"]),
                                          shape=(size, size)) for m in _MATRICES]
            return ContextGraph(n, data["chunk_of"], data["chunk_spans"], data["chunk_vectors"], *matrices)
    except UNREADABLE:
        return None


def stored_whole(path: Path, manifest: CollectionManifest) -> ContextGraph | None:
    """The collection's contextual graph stored in its linked folder for ``manifest``'s generation; None when it
    is missing, stale or unreadable (:func:`read`)."""
    cg = read(path / linked_folder(manifest.generation) / STORED, manifest.stamp)
    return cg if cg is not None and cg.n_sentences == manifest.counts.sentences else None


def is_stored(path: Path, manifest: CollectionManifest) -> bool:
    """Whether the collection's contextual graph is stored for ``manifest``'s generation (read only its header)."""
    try:
        with np.load(path / linked_folder(manifest.generation) / STORED, allow_pickle=False) as data:
            return current(data, manifest.stamp, manifest.counts.sentences)
    except UNREADABLE:  # a damaged file (zipfile.BadZipFile) too: not stored, built again
        return False
