"""The distinct rows of a collection's node vectors, written once beside its linked graph and memory-mapped.

A node's vector depends only on its label and texts, so many nodes share one (ObliQA: 77,296 distinct of
124,336), and matching multiplies each distinct vector once (:func:`~kgcore.query.match.node_cosines`).  The
distinct rows are a copy of up to every node vector: on 1,000 short documents the largest structure a question
builds (8.2 MB, against 12.3 MB for the whole linked graph).  So they are written once into the collection's
linked folder, named by the collection's stamp and linked files' digests (``distinct-<key>.npy``, the rows, and
``distinct-<key>.npz``, each node's row among them), and mapped by every process that asks, as the node vectors
themselves are: pages of a file, shared between processes and dropped under pressure, not each process's heap.
The rows follow from the stored node vectors alone, so two processes writing them at once write the same rows.
A store that cannot be written keeps them in the process.

>>> distinct, inverse = distinct_rows(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32))
>>> distinct.tolist(), inverse.tolist()
([[1.0, 0.0], [0.0, 1.0]], [0, 1, 0])
>>> stamp = "2026-11-30T10:00:00+00:00/3"
>>> file_stem(stamp) != file_stem(stamp, {"node_vectors.npy": "d1"})
True
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from kgcore.core.atomic import replace_file
from kgcore.core.errors import KgcoreError
from kgcore.index.store.disk import CacheKey, Index
from kgcore.index.store.integrity import map_npy
from kgcore.index.store.recovery import linked_folder

__all__ = ["DISTINCT", "distinct_node_vectors", "distinct_rows"]

#: The distinct rows and each node's row among them, as matching uses them.
DISTINCT: CacheKey[tuple[np.ndarray, np.ndarray]] = CacheKey("distinct-node-vectors")


def distinct_node_vectors(index: Index) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct rows of ``index.node_vectors``, each node's row among them): mapped from the collection's
    linked folder, written there first when missing."""
    return index.cache.get(DISTINCT, lambda: _stored(index))


def distinct_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct rows of ``matrix`` in first-seen order, each row's position among them)."""
    first: dict[bytes, int] = {}
    inverse = np.fromiter((first.setdefault(row.tobytes(), len(first)) for row in matrix), dtype=np.int64,
                          count=len(matrix))
    keep = np.zeros(len(first), dtype=np.int64)
    keep[inverse[::-1]] = np.arange(len(matrix))[::-1]
    return np.ascontiguousarray(matrix[keep]), inverse


def file_stem(stamp: str, linked: Mapping[str, object] | None = None) -> str:
    """The files' name for the collection at ``stamp`` whose linked files are ``linked`` (their digests: a
    collection deleted and made again within a second has the same stamp, not the same node vectors)."""
    key = stamp + "\x1f" + repr(sorted((name, repr(digest)) for name, digest in (linked or {}).items()))
    return "distinct-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def _stored(index: Index) -> tuple[np.ndarray, np.ndarray]:
    vectors = index.node_vectors
    manifest = index.manifest
    if getattr(manifest, "format", 1) < 2:  # kgcore 0.1, or one document's index: no linked folder to keep them
        return distinct_rows(vectors)
    base = index.path / linked_folder(manifest.generation) / file_stem(manifest.stamp, manifest.linked_files)
    found = _read(base, vectors)
    if found is None:
        computed = distinct_rows(vectors)
        found = (_read(base, vectors) if _write(base, *computed) else None) or computed
    return found


def _read(base: Path, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The stored rows, mapped, and the row map; None when missing, unreadable or not of these vectors (shapes,
    types, and every 1 in 64 nodes' rows compared)."""
    try:
        with np.load(base.with_suffix(".npz"), allow_pickle=False) as data:
            inverse = data["inverse"]
        distinct = map_npy(base.with_suffix(".npy"))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, KgcoreError):  # map_npy: DamagedIndexError
        return None
    fits = (inverse.ndim == 1 and len(inverse) == len(vectors) and inverse.dtype.kind == "i"
            and distinct.ndim == 2 and distinct.shape[1:] == vectors.shape[1:] and distinct.dtype == vectors.dtype
            and (not len(inverse) or (int(inverse.min()) >= 0 and int(inverse.max()) < len(distinct))))
    if not fits or not np.array_equal(distinct[inverse[::64]], vectors[::64]):
        return None
    return distinct, inverse


def _write(base: Path, distinct: np.ndarray, inverse: np.ndarray) -> bool:
    """Write both files, each atomically; whether the store took them."""
    return (replace_file(base.with_suffix(".npy"), lambda fh: np.save(fh, distinct), quiet=True)
            and replace_file(base.with_suffix(".npz"), lambda fh: np.savez(fh, inverse=inverse), quiet=True))
