"""Changing a collection: add and remove documents under a lock, then commit atomically.

    with CollectionWriter(store, "shelf", options, models) as tx:
        tx.add(staged_shard_folder)          # a shard written by kgcore.index.pipeline
        tx.remove("old-doc")
        manifest = tx.commit(embedder)       # link, write linked-<gen>, update Chroma, replace collection.json

Only one writer per collection runs at a time (an exclusive ``flock`` on
``<root>/.locks/<collection>.lock``; a second writer waits).  A shard is
moved into ``documents/`` only after every file it must have was checked;
``collection.json`` is written to a temporary file and renamed over the old
one (the commit point); shards and linked graphs no manifest names any more
are removed after the commit, keeping the previous generation for readers
still loading it.  An exception before the commit leaves the collection as
it was.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import shutil
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import numpy as np

from kgcore.core.errors import InputError, KgcoreError
from kgcore.core.settings import IndexOptions
from kgcore.core.version import __version__
from kgcore.index import chroma, legacy, shard
from kgcore.index.collection import FORMAT, CollectionCounts, CollectionManifest, DocumentEntry
from kgcore.index.embed import Embedder, embed_texts_of
from kgcore.index.link import Linked, ShardGraph, link
from kgcore.index.loaded import DOCUMENTS_DIR
from kgcore.index.manifest import Models
from kgcore.index.store import COLLECTION_FILE, HIDDEN_PREFIX, Store, linked_folder

LOCKS_DIR = f"{HIDDEN_PREFIX}locks"
#: Where a migrated kgcore 0.1 folder's own Chroma copy waits to be removed after the commit.
LEGACY_CHROMA = "chroma-0.1"


class CollectionWriter:
    """One transaction on one collection (see the module docstring)."""

    def __init__(self, store: Store, name: str, options: IndexOptions | None = None, models: Models | None = None):
        self.store, self.name = store, name
        self.path = store.doc_path(name)
        self._lock_fd: int | None = None
        self._options, self._models = options, models
        self.current: CollectionManifest | None = None
        self.documents: list[DocumentEntry] = []
        self._added: dict[str, Path] = {}
        self._dropped: set[str] = set()

    # -- lock ----------------------------------------------------------------------
    def __enter__(self) -> CollectionWriter:
        locks = self.store.root / LOCKS_DIR
        locks.mkdir(parents=True, exist_ok=True)
        self._lock_fd = os.open(locks / f"{self.name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        self.current = self.store.manifest(self.name) if self.store.exists(self.name) else None
        self.documents = list(self.current.documents) if self.current else []
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if kind is not None:
                for folder in self._added.values():
                    shutil.rmtree(folder, ignore_errors=True)
        finally:
            if self._lock_fd is not None:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                os.close(self._lock_fd)
                self._lock_fd = None

    # -- changes -------------------------------------------------------------------
    @property
    def options(self) -> IndexOptions:
        if self.current is not None:
            return self.current.options
        if self._options is None:
            raise InputError("options", f"collection {self.name!r} does not exist yet: give its index options")
        return self._options

    def add(self, staged: Path) -> DocumentEntry:
        """Move the shard written at ``staged`` into the collection (replacing a document with the same id)."""
        entry = self._move_in(staged)
        self.documents = [d for d in self.documents if d.doc_id != entry.doc_id] + [entry]
        return entry

    def _move_in(self, staged: Path) -> DocumentEntry:
        missing = shard.missing_files(staged)
        if missing:
            raise KgcoreError(f"{staged}: incomplete document shard, missing {', '.join(missing)}")
        manifest = shard.read_manifest(staged)
        if manifest.options != self.options:
            raise InputError("options", f"{manifest.doc_id!r} was indexed with {manifest.options.to_dict()}, but "
                                        f"collection {self.name!r} uses {self.options.to_dict()}")
        folder = f"{manifest.doc_id}.{uuid.uuid4().hex[:10]}"
        (self.path / DOCUMENTS_DIR).mkdir(parents=True, exist_ok=True)
        target = self.path / DOCUMENTS_DIR / folder
        os.rename(staged, target)
        self._added[manifest.doc_id] = target
        self._dropped.add(manifest.doc_id)
        return DocumentEntry(manifest, folder)

    def remove(self, doc_id: str) -> None:
        if doc_id not in {d.doc_id for d in self.documents}:
            known = ", ".join(d.doc_id for d in self.documents) or "none"
            raise InputError("document", f"{doc_id!r} is not a document of collection {self.name!r} "
                                          f"(documents: {known})")
        self.documents = [d for d in self.documents if d.doc_id != doc_id]
        self._dropped.add(doc_id)

    # -- commit --------------------------------------------------------------------
    def commit(self, embedder: Embedder) -> CollectionManifest:
        """Link the documents, write the linked graph and Chroma, then the manifest (atomically)."""
        if not self.documents:
            raise InputError("collection", f"{self.name!r} would have no documents left; delete the collection")
        start = time.perf_counter()
        if self.current is not None and self.current.format == 1:
            self._migrate(embedder)
        linked = link([self._shard_graph(d) for d in self.documents], embedder, self.options)
        self._check_grounding(linked)
        generation = (self.current.generation if self.current else 0) + 1
        _write_linked(self.path / linked_folder(generation), linked)
        self._update_chroma(linked, generation)
        manifest = self._manifest(linked, generation, round(time.perf_counter() - start, 3), embedder)
        tmp = self.path / f"{COLLECTION_FILE}.{uuid.uuid4().hex[:8]}.tmp"
        tmp.write_text(json.dumps(manifest.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(tmp, self.path / COLLECTION_FILE)
        self._added.clear()
        self._collect_garbage(manifest)
        self.current = manifest
        return manifest

    def _check_grounding(self, linked: Linked) -> None:
        """The grounding invariant, after every add and remove: every node and edge grounded in stored sentences."""
        ids = (s.id for d in self.documents for s in shard.read_sentences(self.path / DOCUMENTS_DIR / d.folder))
        problems = linked.graph.invariant_problems(ids)
        if problems:
            raise KgcoreError(f"internal error: collection {self.name!r} would break the grounding invariant: "
                              f"{problems[:3]}")

    def _shard_graph(self, entry: DocumentEntry) -> ShardGraph:
        folder = self.path / DOCUMENTS_DIR / entry.folder
        node_ids, vectors = shard.read_base_vectors(folder)
        return shard.read_graph(folder), node_ids, vectors

    def _manifest(self, linked: Linked, generation: int, seconds: float, embedder: Embedder) -> CollectionManifest:
        now = datetime.now(UTC).isoformat(timespec="seconds")
        docs = [d.manifest.counts for d in self.documents]
        types = [n.node_type for n in linked.graph.nodes.values()]
        counts = CollectionCounts(len(docs), sum(c.sentences for c in docs), sum(c.words for c in docs),
                                  len(linked.node_ids), types.count("entity"), types.count("action"),
                                  len(linked.graph.edges), linked.shared)
        models = self.current.models if self.current else self._models or Models()
        models = dataclasses.replace(models, embedding=embedder.name, embedding_dim=embedder.dim)
        return CollectionManifest(self.name, tuple(self.documents), self.options, models, counts, __version__,
                                  self.current.created_at if self.current else now, now, generation, seconds)

    def _update_chroma(self, linked: Linked, generation: int) -> None:
        path = self.path / chroma.CHROMA_DIR
        behind = self.current is None or chroma.generation(path) != self.current.generation
        if behind:  # never written, or a writer stopped between Chroma and the manifest: rebuild it all
            shutil.rmtree(path, ignore_errors=True)
        previous = {} if self.current is None or behind else _linked_vectors(
            self.path / linked_folder(self.current.generation))
        changed = self.documents if behind else [d for d in self.documents if d.doc_id in self._dropped]
        documents = {}
        for entry in changed:
            folder = self.path / DOCUMENTS_DIR / entry.folder
            documents[entry.doc_id] = (shard.read_sentences(folder), shard.read_sentence_vectors(folder))
        dropped = [] if behind else sorted(self._dropped)
        chroma.update(path, linked.graph, linked.node_ids, linked.node_vectors, previous, documents, dropped,
                      generation)

    def _collect_garbage(self, manifest: CollectionManifest) -> None:
        """Remove shards and linked graphs no manifest names (the previous generation stays for readers)."""
        keep = {d.folder for d in manifest.documents}
        if self.current is not None:
            keep |= {d.folder for d in self.current.documents}
        for folder in (self.path / DOCUMENTS_DIR).glob("*"):
            if folder.name not in keep:
                shutil.rmtree(folder, ignore_errors=True)
        keep_linked = {linked_folder(manifest.generation), linked_folder(manifest.generation - 1)}
        for folder in self.path.glob("linked-*"):
            if folder.name not in keep_linked:
                shutil.rmtree(folder, ignore_errors=True)
        for stale in self.path.glob(f"{COLLECTION_FILE}.*.tmp"):
            stale.unlink(missing_ok=True)
        if (self.path / legacy.LEGACY_FILES[0]).exists():
            legacy.remove_legacy_files(self.path)

    def _migrate(self, embedder: Embedder) -> None:
        """Turn a kgcore 0.1 collection of one into the current layout (its document becomes a shard)."""
        assert self.current is not None
        old = next((i for i, d in enumerate(self.documents) if d.folder == legacy.IN_PLACE), None)
        if old is not None:  # the 0.1 document stays (it was neither removed nor re-indexed): convert it
            manifest = self.documents[old].manifest
            sentences, graph, node_ids, vectors, sentence_vectors = legacy.read(self.path, manifest)
            if manifest.options.embedding != "basic":  # 0.1 stored contextualised vectors: embed the base again
                vectors = embed_texts_of([(graph.nodes[i].label, graph.nodes[i].texts) for i in node_ids],
                                         embedder, manifest.options.alpha)
            analyses = list(legacy.read_analyses(self.path, manifest.doc_id).items())
            staged = self.path / f"{HIDDEN_PREFIX}migrate-{uuid.uuid4().hex[:8]}"
            shard.write_shard(staged, shard.DocumentShard(manifest, (), sentences, graph, node_ids, vectors,
                                                          sentence_vectors, analyses))
            self.documents[old] = self._move_in(staged)
        if (self.path / chroma.CHROMA_DIR).exists():
            os.rename(self.path / chroma.CHROMA_DIR, self.path / LEGACY_CHROMA)
        self.current = dataclasses.replace(self.current, format=2, generation=0)


def ensure_chroma(store: Store, name: str, embedder: Embedder) -> None:
    """Bring a collection's Chroma copy up to its manifest (relinking it; a kgcore 0.1 folder is migrated)."""
    manifest = store.manifest(name)
    if manifest.format == FORMAT and chroma.generation(store.doc_path(name) / chroma.CHROMA_DIR) == manifest.generation:
        return
    with CollectionWriter(store, name) as tx:
        tx.commit(embedder)


def _write_linked(folder: Path, linked: Linked) -> None:
    tmp = folder.with_name(f"{folder.name}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.mkdir(parents=True)
    (tmp / "graph.json").write_text(json.dumps(linked.graph.to_node_link(), ensure_ascii=False), encoding="utf-8")
    (tmp / "node_ids.json").write_text(json.dumps(linked.node_ids, ensure_ascii=False), encoding="utf-8")
    np.save(tmp / "node_vectors.npy", linked.node_vectors)
    shutil.rmtree(folder, ignore_errors=True)
    os.rename(tmp, folder)


def _linked_vectors(folder: Path) -> dict[str, np.ndarray]:
    try:
        node_ids = json.loads((folder / "node_ids.json").read_text(encoding="utf-8"))
        vectors = np.load(folder / "node_vectors.npy")
    except OSError:
        return {}
    return dict(zip(node_ids, vectors))
