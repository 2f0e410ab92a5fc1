"""On-disk store of collections: one folder per collection under a store root.

Layout of ``<root>/<collection>/``::

    collection.json        the CollectionManifest: documents (and their shard folders), options, counts, generation
    documents/<folder>/    one shard per document (kgcore.index.shard), written once
    linked-<generation>/   the linked graph: graph.json, node_ids.json, node_vectors.npy
    chroma/                Chroma PersistentClient: collections ``nodes`` and ``sentences`` (kgcore.index.chroma)

``collection.json`` is replaced atomically and is the only thing a reader
trusts: a shard or linked graph it does not name is not part of the
collection, so a crashed or concurrent writer never makes a half index
visible.  Writers (:mod:`kgcore.index.writer`) hold a per-collection lock.
A kgcore 0.1 folder (one document, no collection.json) opens as a
collection of one (:mod:`kgcore.index.legacy`).
"""

from __future__ import annotations

import builtins
import dataclasses
import json
import os
import shutil
import uuid
from pathlib import Path

import numpy as np

from kgcore.core.errors import IndexNotFoundError, InputError, KgcoreError
from kgcore.core.types import Sentence
from kgcore.index import legacy, shard
from kgcore.index.collection import CollectionManifest
from kgcore.index.graph import GroundedGraph
from kgcore.index.loaded import DOCUMENTS_DIR, CacheKey, Index, IndexCache
from kgcore.index.manifest import Manifest

__all__ = ["COLLECTION_FILE", "CacheKey", "Index", "IndexCache", "Store", "linked_folder"]

COLLECTION_FILE = "collection.json"
#: Hidden folders of the store root: never listed, never a collection.
HIDDEN_PREFIX = "."


def linked_folder(generation: int) -> str:
    """The folder of a collection's linked graph at ``generation``.

    >>> linked_folder(3)
    'linked-3'
    """
    return f"linked-{generation}"


class Store:
    """The index store rooted at ``root`` (``data/`` or ``$KGCORE_STORE``)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    # -- names ---------------------------------------------------------------------
    def doc_path(self, name: str) -> Path:
        """The folder of collection ``name`` (checked to be a plain folder name)."""
        if not name or "/" in name or "\\" in name or name.startswith(HIDDEN_PREFIX):
            raise InputError("collection", f"{name!r} is not a valid collection name")
        return self.root / name

    collection_path = doc_path

    # -- reading -------------------------------------------------------------------
    def list(self) -> builtins.list[CollectionManifest]:
        """Manifests of all collections, most recently changed first (damaged ones are left out)."""
        if not self.root.is_dir():
            return []
        found = []
        for child in sorted(self.root.iterdir()):
            if child.name.startswith(HIDDEN_PREFIX) or not child.is_dir():
                continue
            try:
                found.append(self._read(child))
            except (KgcoreError, FileNotFoundError):
                continue  # not a collection, or damaged: `manifest()` says which
        return sorted(found, key=lambda m: m.updated_at, reverse=True)

    def exists(self, name: str) -> bool:
        path = self.doc_path(name)
        return (path / COLLECTION_FILE).is_file() or legacy.is_legacy(path)

    def manifest(self, name: str) -> CollectionManifest:
        if not self.exists(name):
            known = ", ".join(m.name for m in self.list()) or "none"
            raise IndexNotFoundError(f"No collection {name!r} in {self.root} (collections: {known}).")
        return self._read(self.doc_path(name))

    def _read(self, path: Path) -> CollectionManifest:
        if legacy.is_legacy(path):
            return legacy.as_collection(_read_json_manifest(path / "manifest.json"))
        try:
            data = json.loads((path / COLLECTION_FILE).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise KgcoreError(f"{path / COLLECTION_FILE}: damaged collection manifest ({exc})") from exc
        return CollectionManifest.from_dict(data, str(path / COLLECTION_FILE))

    def load(self, name: str) -> Index:
        """The collection, loaded: every document's sentences, the linked graph and all vectors."""
        manifest = self.manifest(name)
        path = self.doc_path(name)
        if manifest.format == 1:
            parts = legacy.read(path, manifest.documents[0].manifest)
            return Index(name, path, manifest, *parts)
        try:
            sentences, sentence_vectors = _read_sentences(path, manifest)
            linked = path / linked_folder(manifest.generation)
            graph = GroundedGraph.from_node_link(json.loads((linked / "graph.json").read_text(encoding="utf-8")))
            node_ids = json.loads((linked / "node_ids.json").read_text(encoding="utf-8"))
            node_vectors = np.load(linked / "node_vectors.npy")
        except (OSError, ValueError) as exc:
            raise KgcoreError(f"collection {name!r} in {self.root} is damaged ({exc}); re-index its documents") from exc
        return Index(name, path, manifest, sentences, graph, node_ids, node_vectors, sentence_vectors)

    def documents(self, name: str) -> builtins.list[Manifest]:
        """The per-document manifests of a collection, in collection order."""
        return [d.manifest for d in self.manifest(name).documents]

    # -- deleting ------------------------------------------------------------------
    def delete(self, name: str) -> None:
        """Remove a whole collection (it disappears at once, then its files are removed)."""
        path = self.doc_path(name)
        if not path.exists():
            raise IndexNotFoundError(f"No collection {name!r} in {self.root}.")
        trash = self.root / f"{HIDDEN_PREFIX}trash-{name}-{uuid.uuid4().hex[:8]}"
        os.rename(path, trash)
        shutil.rmtree(trash, ignore_errors=True)


def _read_sentences(path: Path, manifest: CollectionManifest) -> tuple[list[Sentence], np.ndarray]:
    """Every document's sentences in collection order (``position`` = row) and their vectors."""
    sentences: list[Sentence] = []
    vectors = []
    for entry in manifest.documents:
        folder = path / DOCUMENTS_DIR / entry.folder
        for s in shard.read_sentences(folder):
            sentences.append(dataclasses.replace(s, position=len(sentences)))
        vectors.append(shard.read_sentence_vectors(folder))
    dim = manifest.models.embedding_dim or (vectors[0].shape[1] if vectors else 0)
    return sentences, np.concatenate(vectors) if vectors else np.zeros((0, dim), dtype=np.float32)


def _read_json_manifest(path: Path) -> Manifest:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise KgcoreError(f"{path}: damaged manifest ({exc}); re-index the document") from exc
    return Manifest.from_dict(data, str(path))
