"""Changing a collection: add and remove documents under a lock, then commit atomically.

    with CollectionWriter(store, "shelf", options, models) as tx:
        tx.add(staged_shard_folder)          # a shard written by kgcore.index.pipeline
        tx.remove("old-doc")
        manifest = tx.commit(embedder)       # link, write linked-<gen>, update Chroma, replace collection.json

The Chroma copy is written at commit only when ``store.chroma_at_commit``
(a Chroma server, or ``KGCORE_CHROMA_SYNC=commit``); otherwise
:func:`ensure_chroma` fills it from the linked graph on the first query
that reads it, so indexing does not pay for a copy the default retrieval
(exact search over the stored node matrix) never opens.

Only one writer per collection runs at a time (an exclusive ``flock`` on
``<root>/.locks/<collection>.lock``, :mod:`kgcore.index.store.locks`, held from
reading the manifest to removing old files; a second writer waits).  A
shard is moved into ``documents/`` only after every file it must have was
read and checked (:func:`kgcore.index.store.shard.verify`), and the collection
records each file's size and SHA-256 (:mod:`kgcore.index.store.integrity`);
``collection.json`` is written to a temporary file and renamed over the old
one (the commit point); shards and linked graphs no manifest names any more
are removed after the commit, keeping the previous generation for readers
still loading it (:mod:`kgcore.index.store.recovery`).  An exception (or a
``kill -9``) before the commit leaves the collection as it was.

A writer opened with ``rebuild=True`` (``index --force``) on a collection
whose manifest is damaged starts it again from the documents whose shards
are still whole.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import cast

import numpy as np

from kgcore.core.embed import Embedder, embed_texts_of
from kgcore.core.embed.base import encode_progress
from kgcore.core.errors import DamagedIndexError, InputError, KgcoreError, ServiceUnavailableError
from kgcore.core.graph import GroundedGraph
from kgcore.core.settings import IndexOptions
from kgcore.core.types import Node, NodeType, Sentence
from kgcore.core.version import __version__
from kgcore.index.store import chroma, generations, legacy, sentence_matrix, sentence_table, shard
from kgcore.index.store.collection import (
    FORMAT,
    CollectionCounts,
    CollectionManifest,
    DocumentEntry,
    DocumentTable,
    name_a_few,
)
from kgcore.index.store.disk import Store, linked_folder, read_linked
from kgcore.index.store.in_memory import DOCUMENTS_DIR
from kgcore.index.store.integrity import digests
from kgcore.index.store.link import Linked, ShardGraph, link
from kgcore.index.store.linked_files import shared_cache, write_linked, write_shared_cache
from kgcore.index.store.locks import HIDDEN_PREFIX, LOCKS_DIR, collection_lock
from kgcore.index.store.manifest import Models
from kgcore.index.store.recovery import collect_garbage, sync_folder, write_manifest

__all__ = ["LOCKS_DIR", "CollectionWriter", "ensure_chroma"]
#: Where a migrated kgcore 0.1 folder's own Chroma copy waits to be removed after the commit.
LEGACY_CHROMA = "chroma-0.1"


class CollectionWriter:
    """One transaction on one collection (see the module docstring)."""

    def __init__(self, store: Store, name: str, options: IndexOptions | None = None, models: Models | None = None,
                 rebuild: bool = False):
        self.store, self.name = store, name
        self.path = store.doc_path(name)
        self._stack = ExitStack()
        self._options, self._models, self._rebuild = options, models, rebuild
        self.current: CollectionManifest | None = None
        self.table = DocumentTable()  # the documents as they stand in this transaction
        self._added: dict[str, Path] = {}
        self._dropped: set[str] = set()
        self._delta: generations.Appended | None = None
        self._created = False

    # -- lock ----------------------------------------------------------------------
    def __enter__(self) -> CollectionWriter:
        self._stack.enter_context(collection_lock(self.store.root, self.name))
        self._created = not self.path.exists()  # a failed first commit leaves no half-written collection
        try:
            self.current = self._read_current()
        except BaseException:
            self._stack.close()
            raise
        self.table = DocumentTable(self.current.documents if self.current else self._readable_documents())
        return self

    def _read_current(self) -> CollectionManifest | None:
        if not self.store.exists(self.name):
            return None
        try:
            return self.store.manifest(self.name)
        except DamagedIndexError:
            if not self._rebuild:
                raise
            return None

    def _readable_documents(self) -> list[DocumentEntry]:
        """The newest whole shard of each document under ``documents/`` (a collection being rebuilt)."""
        newest: dict[str, DocumentEntry] = {}
        for folder in sorted((self.path / DOCUMENTS_DIR).glob("*")) if self._rebuild else []:
            try:
                manifest = shard.verify(folder)
            except KgcoreError:
                continue
            known = newest.get(manifest.doc_id)
            if manifest.options != self._options or (known and manifest.created_at < known.manifest.created_at):
                continue
            newest[manifest.doc_id] = DocumentEntry(manifest, folder.name, digests(folder, shard.file_names(folder)))
        return sorted(newest.values(), key=lambda d: d.manifest.created_at)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if kind is not None:
                for folder in self._added.values():
                    shutil.rmtree(folder, ignore_errors=True)
                if self._created and not self.store.exists(self.name):
                    shutil.rmtree(self.path, ignore_errors=True)
        finally:
            self._stack.close()

    # -- changes -------------------------------------------------------------------
    @property
    def documents(self) -> list[DocumentEntry]:
        """The collection's documents as they stand in this transaction, in order (an added one last)."""
        return self.table.entries()

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
        self.table.put(entry)
        return entry

    def _move_in(self, staged: Path) -> DocumentEntry:
        manifest = shard.verify(staged)  # every file read and checked before the shard joins
        files = digests(staged, shard.file_names(staged))
        if manifest.options != self.options:
            raise InputError("options", f"{manifest.doc_id!r} was indexed with {manifest.options.to_dict()}, but "
                                        f"collection {self.name!r} uses {self.options.to_dict()}")
        folder = f"{manifest.doc_id}.{uuid.uuid4().hex[:10]}"
        (self.path / DOCUMENTS_DIR).mkdir(parents=True, exist_ok=True)
        target = self.path / DOCUMENTS_DIR / folder
        os.rename(staged, target)
        self._added[manifest.doc_id] = target
        self._dropped.add(manifest.doc_id)
        return DocumentEntry(manifest, folder, files)

    def remove(self, doc_id: str) -> None:
        if doc_id not in self.table:
            raise InputError("document", f"{doc_id!r} is not a document of collection {self.name!r} "
                                          f"(documents: {name_a_few([d.doc_id for d in self.table.entries()])})")
        self.table.drop(doc_id)
        self._dropped.add(doc_id)

    # -- commit --------------------------------------------------------------------
    def commit(self, embedder: Embedder, progress: Callable[[str, int, int], None] | None = None
               ) -> CollectionManifest:
        """Link the documents, write the linked graph and Chroma, then the manifest (atomically); ``progress``
        hears of the ``link`` stage (its embedding batches) and the ``write`` stage."""
        if not self.documents:
            raise InputError("collection", f"{self.name!r} would have no documents left; delete the collection")
        report = progress or _silent
        start = time.perf_counter()
        report("link", 0, 1)
        with encode_progress(lambda done, total: report("link", done, total)):
            manifest = self._linked(embedder)
        report("write", 0, 1)
        manifest = dataclasses.replace(manifest, link_seconds=round(time.perf_counter() - start, 3))
        sync_folder(self.path)  # the new linked-<generation>/ on disk before the manifest names it
        write_manifest(self.path, manifest)
        self._added.clear()
        collect_garbage(self.path, manifest, self.current)
        self.current = manifest
        report("write", 1, 1)
        return manifest

    def _linked(self, embedder: Embedder) -> CollectionManifest:
        """Link (or append to) the collection's graph, write it and its Chroma copy; the new manifest, not yet
        committed."""
        if self.current is not None and self.current.format == 1:
            self._migrate(embedder)
        known = shared_cache(self.path / linked_folder(self.current.generation)) if self.current else {}
        generation = (self.current.generation if self.current else 0) + 1
        manifest = self._append(embedder, known, generation) if self.current else None
        linked = None
        if manifest is None:  # a full link: the first commit, a removal, a re-index, or too many layers
            linked = link([self._shard_graph(d) for d in self.documents], embedder, self.options, known)
            self._check_grounding(linked)
            files = write_linked(self.path / linked_folder(generation), linked)
            manifest = dataclasses.replace(self._manifest(_counts(linked), generation, embedder), linked_files=files)
        # the matrix and table before Chroma: an unreadable shard (or a full disk) leaves Chroma where the manifest is
        folder, previous = self.path / linked_folder(generation), self.current
        previous = previous if previous and previous.format == FORMAT else None
        matrix = sentence_matrix.write_matrix(self.path, self.documents, folder, previous)
        table = sentence_table.write_table(self.path, self.documents, folder, previous)
        manifest = dataclasses.replace(manifest, linked_files={**manifest.linked_files,
                                                               sentence_matrix.SENTENCE_VECTORS: matrix, **table})
        if self.store.chroma_at_commit:
            self._chroma_to(generation, manifest, linked)
        return manifest

    def _chroma_to(self, generation: int, manifest: CollectionManifest, linked: Linked | None) -> None:
        """Bring a Chroma copy kept in step to ``generation``: the whole ``linked`` graph after a full link; after
        an append, the appended documents and the nodes new or changed."""
        if linked is not None:
            full = linked
            self._update_chroma(generation, lambda: self._write_chroma(full, generation, False), lambda: full)
        else:
            self._update_chroma(generation, lambda: self._upsert_appended(generation), lambda: Linked(
                *read_linked(self.path, manifest), manifest.counts.shared_entities))

    def _check_grounding(self, linked: Linked) -> None:
        """The grounding invariant, after every add and remove: every node and edge grounded in stored sentences."""
        documents = self.path / DOCUMENTS_DIR
        ids = (s.id for d in self.documents for s in shard.read_sentences(documents / d.folder, d.files))
        problems = linked.graph.invariant_problems(ids)
        if problems:
            raise KgcoreError(f"internal error: collection {self.name!r} would break the grounding invariant: "
                              f"{problems[:3]}")

    def _shard_graph(self, entry: DocumentEntry) -> ShardGraph:
        folder = self.path / DOCUMENTS_DIR / entry.folder
        node_ids, vectors = shard.read_base_vectors(folder, entry.files)
        return shard.read_graph(folder, entry.files), node_ids, vectors

    def _append(self, embedder: Embedder, known: dict[str, np.ndarray], generation: int
                ) -> CollectionManifest | None:
        """The manifest of an append generation (:mod:`kgcore.index.store.generations`), written; None when the change
        needs a full link."""
        assert self.current is not None
        target = self.path / linked_folder(generation)
        shutil.rmtree(target, ignore_errors=True)  # left by a writer that stopped before its commit
        done = self._delta = generations.append(self.path, self.current, self.documents, embedder, known, target)
        if done is None:
            return None
        write_shared_cache(target, done.shared_vectors)
        manifest = self._manifest((done.nodes, done.entities, done.actions, done.edges, done.shared), generation,
                                  embedder)
        return dataclasses.replace(manifest, linked_files=done.files)

    def _manifest(self, sizes: tuple[int, int, int, int, int], generation: int, embedder: Embedder
                  ) -> CollectionManifest:
        """The new manifest; ``sizes``: the linked graph's nodes, entities, actions, edges and shared nodes."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        docs = [d.manifest.counts for d in self.documents]
        counts = CollectionCounts(len(docs), sum(c.sentences for c in docs), sum(c.words for c in docs), *sizes)
        models = self.current.models if self.current else self._models or Models()
        models = dataclasses.replace(models, embedding=embedder.name, embedding_dim=embedder.dim)
        return CollectionManifest(self.name, tuple(self.documents), self.options, models, counts, __version__,
                                  self.current.created_at if self.current else now, now, generation)

    def fill_chroma(self) -> None:
        """Write the whole Chroma copy from the current linked graph and shards (no linking, no manifest
        change): the lazy half of ``Settings.chroma_sync``."""
        assert self.current is not None
        graph, node_ids, node_vectors = read_linked(self.path, self.current)
        linked = Linked(graph, node_ids, node_vectors, self.current.counts.shared_entities)
        self._write_chroma(linked, self.current.generation, True)

    def _update_chroma(self, generation: int, step: Callable[[], None], whole: Callable[[], Linked]) -> None:
        """Bring the Chroma copy to ``generation``: ``step()`` writes the change into a copy that is in step; a
        copy that is behind (never written, filled lazily, a writer stopped) or damaged is written again from
        ``whole()``, the whole linked graph."""
        copy = self.store.chroma_copy(self.name)
        behind = self.current is None or chroma.generation(copy) != self.current.generation
        try:
            if behind:
                self._write_chroma(whole(), generation, True)
            else:
                step()
        except ServiceUnavailableError:
            raise  # the server is down: nothing to rebuild, the collection stays as it was
        except Exception as exc:  # noqa: BLE001 - Chroma's own errors (a damaged database file) have no common base
            if behind:
                raise KgcoreError(f"{copy.describe()}: cannot write the Chroma copy ({type(exc).__name__}: {exc})"
                                  ) from exc
            self._write_chroma(whole(), generation, True)  # damaged: built again from the shards

    def _upsert_appended(self, generation: int) -> None:
        """An append generation's step for a Chroma copy in step: the appended documents' sentences and the nodes
        new or changed (:attr:`kgcore.index.store.generations.Appended.changed`), without reading the linked graph."""
        assert self._delta is not None
        delta = self._delta
        ids = list(delta.changed_vectors)
        graph = GroundedGraph({i: Node(i, delta.changed[i][0], [], cast(NodeType, delta.changed[i][1]), [])
                               for i in ids})
        vectors = np.stack([delta.changed_vectors[i] for i in ids]) if ids else np.zeros((0, 0), np.float32)
        chroma.update(self.store.chroma_copy(self.name), graph, ids, vectors, {}, self._sentences_of(self._dropped),
                      [], generation)

    def _sentences_of(self, doc_ids: set[str]) -> dict[str, tuple[list[Sentence], np.ndarray]]:
        """The sentences and sentence vectors of the documents ``doc_ids`` by id."""
        out = {}
        for entry in (d for d in self.documents if d.doc_id in doc_ids):
            folder = self.path / DOCUMENTS_DIR / entry.folder
            out[entry.doc_id] = (shard.read_sentences(folder, entry.files),
                                 shard.read_sentence_vectors(folder, entry.files))
        return out

    def _write_chroma(self, linked: Linked, generation: int, rebuild: bool) -> None:
        copy = self.store.chroma_copy(self.name)
        if rebuild:  # never written, damaged, or a writer stopped while writing it: rebuild it all
            chroma.reset(copy)
        previous = {} if self.current is None or rebuild else _linked_vectors(self.path, self.current)
        documents = self._sentences_of({d.doc_id for d in self.documents} if rebuild else self._dropped)
        dropped = [] if rebuild else sorted(self._dropped)
        chroma.update(copy, linked.graph, linked.node_ids, linked.node_vectors, previous, documents, dropped,
                      generation)

    def _migrate(self, embedder: Embedder) -> None:
        """Turn a kgcore 0.1 collection of one into the current layout (its document becomes a shard)."""
        assert self.current is not None
        old = next((d.doc_id for d in self.documents if d.folder == legacy.IN_PLACE), None)
        if old is not None:  # the 0.1 document stays (it was neither removed nor re-indexed): convert it
            manifest = self.table.get(old).manifest
            sentences, graph, node_ids, vectors, sentence_vectors = legacy.read(self.path, manifest)
            if manifest.options.embedding != "basic":  # 0.1 stored contextualised vectors: embed the base again
                vectors = embed_texts_of([(graph.nodes[i].label, graph.nodes[i].texts) for i in node_ids],
                                         embedder, manifest.options.alpha)
            analyses = list(legacy.read_analyses(self.path, manifest.doc_id).items())
            staged = self.path / f"{HIDDEN_PREFIX}migrate-{uuid.uuid4().hex[:8]}"
            shard.write_shard(staged, shard.DocumentShard(manifest, (), sentences, graph, node_ids, vectors,
                                                          sentence_vectors, analyses))
            self.table.put(self._move_in(staged), in_place=True)
        if (self.path / chroma.CHROMA_DIR).exists():
            os.rename(self.path / chroma.CHROMA_DIR, self.path / LEGACY_CHROMA)
        self.current = dataclasses.replace(self.current, format=2, generation=0)


def ensure_chroma(store: Store, name: str, embedder: Embedder) -> None:
    """Bring a collection's Chroma copy up to its manifest: filled from the stored linked graph when it is
    behind (lazy sync, or a commit that stopped while writing it) or damaged; a kgcore 0.1 folder is migrated."""
    manifest = store.manifest(name)
    copy = store.chroma_copy(name)
    if manifest.format == FORMAT and chroma.generation(copy) == manifest.generation:
        if chroma.healthy(copy, manifest.counts.sentences, manifest.counts.nodes):
            return
        chroma.mark_behind(copy)
    with CollectionWriter(store, name) as tx:
        if tx.current is None or tx.current.format != FORMAT:
            tx.commit(embedder)
        elif chroma.generation(copy) != tx.current.generation:  # another process may have filled it meanwhile
            tx.fill_chroma()


def _silent(stage: str, done: int, total: int) -> None:
    """No one to tell of a commit's progress."""


def _counts(linked: Linked) -> tuple[int, int, int, int, int]:
    """The linked graph's nodes, entities, actions, edges and shared nodes."""
    types = [n.node_type for n in linked.graph.nodes.values()]
    return (len(linked.node_ids), types.count("entity"), types.count("action"), len(linked.graph.edges),
            linked.shared)


def _linked_vectors(path: Path, manifest: CollectionManifest) -> dict[str, np.ndarray]:
    """The node vectors of the linked graph ``manifest`` names (what Chroma holds); empty when unreadable."""
    try:
        return generations.vector_map(path, manifest)
    except (OSError, ValueError, KgcoreError):
        return {}
