"""The collection's sentence vectors in one file, memory-mapped by every process that loads the collection.

Each document's shard keeps its own ``sentence_vectors.npy``; retrieval needs them as one matrix whose row is a
sentence's position.  Concatenating the shards' arrays copied the whole matrix into every process that loaded
the collection (25 MB for 24 papers, about 230 MB for 150,000 sentences).  So every commit also writes
``sentence_vectors.npy`` beside the linked graph (``linked-<generation>/``): the documents' vectors in collection
order, its size and SHA-256 recorded in ``collection.json`` with the other linked files
(:mod:`~kgcore.index.store.integrity`).  A loaded collection maps it read-only (:func:`map_matrix`): its pages
are the file's, shared by every process serving the collection and dropped by the kernel under pressure.

The file is written under a temporary name and renamed into a generation no manifest names yet, so a crash never
leaves a half-written matrix where a reader looks.  A commit that appends documents copies the previous
generation's matrix (checked against its digest) and adds the new documents' rows; any other commit writes it
from the shards, one document at a time, so writing holds one document's vectors, never the collection's.

A collection committed before this file (or the sentence table, :mod:`~kgcore.index.store.sentence_table`)
existed is upgraded on its first load (:func:`upgrade`: the files written into its current generation and the
manifest replaced, under the writer lock); where that cannot be done now (a writer holds the collection, a
read-only store) it loads as before, its vectors and sentences copied into memory.

>>> import tempfile
>>> from kgcore.index.store.integrity import digest_of
>>> out = Path(tempfile.mkdtemp()) / "m.npy"
>>> with NpyWriter(out, rows=3, dim=2) as writer:
...     writer.write(np.ones((2, 2), np.float32)); writer.write(np.zeros((1, 2), np.float32))
>>> np.load(out).tolist(), writer.digest == digest_of(out.read_bytes())
([[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]], True)
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

import numpy as np

from kgcore.core.errors import KgcoreError
from kgcore.index.store import sentence_table, shard
from kgcore.index.store.collection import (  # SENTENCE_VECTORS: the file in ``linked-<generation>/``, its key
    DERIVED_FILES,
    FORMAT,
    SENTENCE_VECTORS,
    CollectionManifest,
    DocumentEntry,
)
from kgcore.index.store.integrity import Digest
from kgcore.index.store.locks import collection_lock
from kgcore.index.store.recovery import linked_folder, sync_folder, write_manifest

#: Rows copied at a time (6 MB of 384-d vectors).
BLOCK_ROWS = 4096


class NpyWriter:
    """Writes a 2-d float32 ``.npy`` file of ``rows`` x ``dim`` block by block, hashing as it goes (see the module
    doctest); :attr:`digest` is the file's once closed.  Fewer or more rows than announced is an error."""

    def __init__(self, path: Path, rows: int, dim: int):
        self.path, self.rows, self.dim, self.written = path, rows, dim, 0
        self._sha, self._size = hashlib.sha256(), 0
        self._file = path.open("wb")
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (rows, dim)})
        self._put(header.getvalue())
        self.digest: Digest = (0, "")

    def _put(self, data: bytes) -> None:
        self._file.write(data)
        self._sha.update(data)
        self._size += len(data)

    def write(self, matrix: np.ndarray) -> None:
        """Append the rows of ``matrix`` (copied ``BLOCK_ROWS`` at a time: a mapped matrix is never read whole)."""
        if matrix.ndim != 2 or matrix.shape[1] != self.dim:
            raise KgcoreError(f"internal error: {self.path} holds {self.dim}-d rows, got an array of {matrix.shape}")
        for start in range(0, len(matrix), BLOCK_ROWS):
            self._put(np.ascontiguousarray(matrix[start:start + BLOCK_ROWS], dtype="<f4").tobytes())
        self.written += len(matrix)

    def __enter__(self) -> NpyWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if kind is None:
                self._file.flush()
                os.fsync(self._file.fileno())
        finally:
            self._file.close()
        if kind is None and self.written != self.rows:
            raise KgcoreError(f"internal error: {self.path} got {self.written:,} rows, {self.rows:,} announced")
        self.digest = (self._size, self._sha.hexdigest())


def write_matrix(path: Path, documents: Sequence[DocumentEntry], folder: Path,
                 previous: CollectionManifest | None = None) -> Digest:
    """Write ``folder/sentence_vectors.npy``: the sentence vectors of ``documents`` (of the collection at ``path``)
    in order, reusing ``previous``'s matrix when ``documents`` begin with its documents; its digest."""
    reused = sentence_table.reusable(path, documents, previous, map_matrix)
    start = len(previous.documents) if previous is not None and reused is not None else 0
    rest = (document_vectors(path, entry) for entry in documents[start:])
    first = reused if reused is not None else next(rest, None)
    dim = first.shape[1] if first is not None and first.ndim == 2 else 0
    tmp = folder / f"{SENTENCE_VECTORS}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        with NpyWriter(tmp, sum(d.manifest.counts.sentences for d in documents), dim) as writer:
            for matrix in ([first] if first is not None else []):
                writer.write(matrix)
            for matrix in rest:
                writer.write(matrix)
        os.replace(tmp, folder / SENTENCE_VECTORS)
        sync_folder(folder)  # the rename on disk before any manifest names the file
    finally:
        tmp.unlink(missing_ok=True)
    return writer.digest


def document_vectors(path: Path, entry: DocumentEntry) -> np.ndarray:
    """A document's sentence vectors from its shard, checked against its digest and its sentence count (a damaged
    one is a :class:`DamagedIndexError` naming the file and how to index the document again)."""
    return sentence_table.document_rows(path, entry, "sentence_vectors.npy", shard.read_sentence_vectors, "vectors")


def map_matrix(path: Path, manifest: CollectionManifest) -> np.ndarray | None:
    """The sentence vectors of the collection at ``path``, memory-mapped read-only after checking the file against
    the manifest (a damaged one is a :class:`DamagedIndexError` naming it); None when the manifest names none."""
    digest = manifest.linked_files.get(SENTENCE_VECTORS)
    if digest is None:
        return None
    folder = path / linked_folder(manifest.generation)
    matrix = shard.map_array(folder, SENTENCE_VECTORS, manifest.linked_files)
    shard.agree(folder / SENTENCE_VECTORS, len(matrix), manifest.counts.sentences, "vectors")
    return matrix


@dataclasses.dataclass(frozen=True)
class Upgrade:
    """What :func:`upgrade` did: the new manifest, or None and why nothing was written (``doctor`` prints it)."""

    manifest: CollectionManifest | None
    reason: str = ""


def missing(manifest: CollectionManifest) -> list[str]:
    """The files derived from the documents' own (:data:`~kgcore.index.store.collection.DERIVED_FILES`: this
    matrix, the sentence table) that the collection's manifest does not name yet."""
    return sorted(DERIVED_FILES - set(manifest.linked_files))


def upgrade(root: Path, manifest: CollectionManifest, current: Callable[[], CollectionManifest]) -> Upgrade:
    """Give collection ``manifest.name`` (under store ``root``), committed before its derived files existed
    (:func:`missing`: this matrix, the sentence table), those files: stale temporary files of a stopped upgrade
    removed, the files written into its current generation, then the manifest replaced with their digests (same
    generation: caches keyed on the collection's stamp stay valid).  ``current()`` reads the manifest again under
    the lock.  Nothing changes when it cannot be done now (the reason says why): a writer holds the collection, it
    changed meanwhile, the store is read-only, or a shard is damaged (the load that follows names it)."""
    if not missing(manifest):
        return Upgrade(None, "the collection already has the files")
    if manifest.format != FORMAT or not manifest.linked_files:
        return Upgrade(None, f"a collection of an older kgcore (format {manifest.format}): its next commit "
                             "(index a document into it) writes the files")
    path = root / manifest.name
    try:
        with collection_lock(root, manifest.name, wait=False) as held:
            if not held:
                return Upgrade(None, "a writer holds the collection (a load after its commit maps them)")
            now = current()
            if now.stamp != manifest.stamp or not missing(now):
                return Upgrade(None, "a writer committed to it meanwhile (the next load maps them)")
            upgraded = dataclasses.replace(now, linked_files={**now.linked_files, **_written(path, now)})
            write_manifest(path, upgraded)
            return Upgrade(upgraded)
    except OSError as exc:
        return Upgrade(None, f"the store cannot be written ({exc}): a load with write access, or the next "
                             "commit, writes the files")
    except KgcoreError as exc:
        return Upgrade(None, f"the files cannot be written: {exc}")


def _written(path: Path, manifest: CollectionManifest) -> dict[str, Digest]:
    """Write the derived files ``manifest`` lacks into its generation's folder; their digests."""
    folder = path / linked_folder(manifest.generation)
    lacking = missing(manifest)
    for name in lacking:
        for stale in folder.glob(f"{name}.*.tmp"):  # an upgrade or commit stopped while writing
            stale.unlink(missing_ok=True)
    files: dict[str, Digest] = {}
    if SENTENCE_VECTORS in lacking:
        files[SENTENCE_VECTORS] = write_matrix(path, manifest.documents, folder)
    if set(lacking) - {SENTENCE_VECTORS}:
        files.update(sentence_table.write_table(path, manifest.documents, folder))
    return files
