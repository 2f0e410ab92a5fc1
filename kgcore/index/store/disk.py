"""On-disk store of collections: one folder per collection under a store root.

Layout of ``<root>/<collection>/``::

    collection.json        the CollectionManifest: documents (and their shard folders), options, counts, generation
    documents/<folder>/    one shard per document (kgcore.index.store.shard), written once
    linked-<generation>/   the linked graph: graph.json, node_ids.json, node_vectors.npy; sentence_vectors.npy
                           (every document's, in collection order: kgcore.index.store.sentence_matrix)
    chroma/                Chroma PersistentClient: collections ``nodes`` and ``sentences`` (kgcore.index.store.chroma);
                           with a Chroma server (KGCORE_CHROMA_URL) only the ``generation`` marker

Beside the collections, hidden folders (never a collection): ``.locks/``, ``.staging/`` and ``.parses/`` (the
offline answerers' parsed sentences, shared by every collection: derived data, safe to delete;
:mod:`kgcore.query.answer.parse_store`).

``collection.json`` is replaced atomically and is the only thing a reader
trusts: a shard or linked graph it does not name is not part of the
collection, so a crashed or concurrent writer never makes a half index
visible.  Writers (:mod:`kgcore.index.store.writer`) hold a per-collection lock.
A kgcore 0.1 folder (one document, no collection.json) opens as a
collection of one (:mod:`kgcore.index.store.legacy`).
"""

from __future__ import annotations

import builtins
import os
import shutil
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from kgcore.core.chroma_config import check_chroma_sync
from kgcore.core.errors import DamagedIndexError, IndexNotFoundError, InputError, KgcoreError
from kgcore.core.heap import release_free_memory
from kgcore.core.types import Sentence
from kgcore.index.store import chroma, legacy, sentence_matrix, sentence_table, shard
from kgcore.index.store.collection import LINKED_REMEDY, CollectionManifest, damaged_manifest_remedy
from kgcore.index.store.in_memory import DOCUMENTS_DIR, CacheKey, Index, IndexCache
from kgcore.index.store.integrity import parse_json, read_verified
from kgcore.index.store.locks import HIDDEN_PREFIX, TRASH_PREFIX, collection_lock, remove_stale
from kgcore.index.store.manifest import Manifest
from kgcore.index.store.recovery import COLLECTION_FILE, linked_folder, recover
from kgcore.index.store.stored_files import (
    check_document_sizes,
    document_problems,
    linked_problems,
    read_linked,
    read_sentences_of,
)

__all__ = ["COLLECTION_FILE", "HIDDEN_PREFIX", "CacheKey", "Index", "IndexCache", "Store", "linked_folder"]

#: How often :meth:`Store.load` starts again when a writer committed while it read.
LOAD_ATTEMPTS = 3
#: A collection.json changed more recently than this (ns) is read again on every ask (see :func:`_signature`).
SETTLED_NS = 2_000_000_000


#: Longest collection name, in UTF-8 bytes (a folder name, with room for ``.lock`` and the trash prefix).
MAX_COLLECTION_BYTES = 200


def check_collection_name(name: str) -> str:
    """``name`` when it can name a collection's folder; otherwise an :class:`InputError` saying why.

    >>> check_collection_name("papers-2026")
    'papers-2026'
    >>> check_collection_name("")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: collection: the name is empty; give a collection name
    >>> check_collection_name("x" * 300)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: collection: the name is 300 bytes long; the limit is 200 ...
    """
    if not name or not name.strip():
        raise InputError("collection", "the name is empty; give a collection name")
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_COLLECTION_BYTES:
        raise InputError("collection", f"the name is {size} bytes long; the limit is {MAX_COLLECTION_BYTES} (it names "
                                       "a folder)")
    if "/" in name or "\\" in name or name.startswith(HIDDEN_PREFIX) or name in (".", "..") or \
            any(ch < " " or ch == "\x7f" for ch in name):
        raise InputError("collection", f"{name!r} is not a valid collection name (no slashes, control characters "
                                       "or leading dot)")
    return name


class Store:
    """The index store rooted at ``root`` (``data/`` or ``$KGCORE_STORE``).

    A root that exists but is not a folder is refused at once, before any work.  ``chroma`` says where the
    collections' Chroma copies live: ``"env"`` (a server when ``KGCORE_CHROMA_URL`` names one, else embedded),
    ``"embedded"``, or a :class:`~kgcore.index.store.chroma.ChromaServer`.
    """

    def __init__(self, root: str | Path, chroma: chroma.ChromaServer | Literal["env", "embedded"] = "env",
                 chroma_sync: str | None = None):
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise InputError("store", f"{self.root} is a file, not a folder: point KGCORE_STORE (or --store) at a "
                                      "folder (it is created when missing)")
        self.chroma_server = _chroma_server(chroma)
        sync = check_chroma_sync(os.environ.get("KGCORE_CHROMA_SYNC") or "auto" if chroma_sync is None
                                 else chroma_sync)
        #: Whether every commit writes the Chroma copy (else it is filled on the first query that reads it).
        self.chroma_at_commit = sync == "commit" or (sync == "auto" and self.chroma_server is not None)
        #: collection.json files read: path -> (the file's stat signature, its manifest); see :meth:`_read`.
        self._manifests: dict[Path, tuple[tuple[int, ...], CollectionManifest]] = {}

    # -- names ---------------------------------------------------------------------
    def doc_path(self, name: str) -> Path:
        """The folder of collection ``name`` (checked by :func:`check_collection_name`)."""
        return self.root / check_collection_name(name)

    collection_path = doc_path

    def chroma_copy(self, name: str) -> chroma.ChromaCopy:
        """Where collection ``name``'s Chroma copy lives (embedded in its folder, or on the store's server)."""
        folder = self.doc_path(name) / chroma.CHROMA_DIR
        if self.chroma_server is None:
            return chroma.ChromaCopy(folder)
        return chroma.ChromaCopy(folder, self.chroma_server, chroma.collection_prefix(chroma.store_id(self.root), name))

    # -- reading -------------------------------------------------------------------
    def list(self) -> builtins.list[CollectionManifest]:
        """Manifests of all collections, most recently changed first, then the damaged ones (each with
        ``damaged`` saying why).  Listing also removes what interrupted writers left
        (:mod:`~kgcore.index.store.recovery`).
        """
        if not self.root.is_dir():
            return []
        _quietly(remove_stale, self.root)
        found, damaged = [], []
        for child in sorted(self.root.iterdir()):
            if child.name.startswith(HIDDEN_PREFIX) or not child.is_dir() or not _looks_like_collection(child):
                continue
            try:
                manifest = self._read(child)
            except KgcoreError as exc:
                damaged.append(CollectionManifest(child.name, damaged=str(exc)))
                continue
            _quietly(recover, self.root, manifest)
            found.append(manifest)
        return sorted(found, key=lambda m: m.updated_at, reverse=True) + damaged

    def exists(self, name: str) -> bool:
        path = self.doc_path(name)
        return (path / COLLECTION_FILE).is_file() or legacy.is_legacy(path)

    def manifest(self, name: str) -> CollectionManifest:
        if not self.exists(name):
            known = ", ".join(m.name for m in self.list() if not m.damaged) or "none"
            raise IndexNotFoundError(f"No collection {name!r} in {self.root} (collections: {known}).")
        return self._read(self.doc_path(name))

    def _read(self, path: Path) -> CollectionManifest:
        """The manifest of the collection folder ``path``.

        Every question asks for it (to see whether the loaded collection changed), and parsing ObliQA's took
        2.6 ms, so a ``collection.json`` whose stat signature (inode, size, modification and change times) is
        the one last read is not read again.  Writers replace the file (``os.replace``: a new inode), so a commit
        by any process is seen at once.
        """
        if legacy.is_legacy(path):
            return legacy.as_collection(_read_json_manifest(path / "manifest.json"))
        file = path / COLLECTION_FILE
        signature = _signature(file)
        cached = self._manifests.get(file)
        if cached is not None and signature is not None and cached[0] == signature:
            return cached[1]
        try:
            text = read_verified(file).decode("utf-8")
        except DamagedIndexError as exc:
            raise DamagedIndexError(file, exc.reason, damaged_manifest_remedy(path.name)) from None
        except UnicodeDecodeError as exc:
            raise DamagedIndexError(file, f"not UTF-8 text ({exc.reason})",
                                    damaged_manifest_remedy(path.name)) from None
        try:
            manifest = CollectionManifest.from_json(text, str(file))
        except DamagedIndexError as exc:  # the remedy names the collection, whatever the file still says
            raise DamagedIndexError(file, exc.reason, damaged_manifest_remedy(path.name)) from None
        if signature is not None and signature == _signature(file):  # not replaced while it was read
            self._manifests[file] = (signature, manifest)
        return manifest

    def load(self, name: str) -> Index:
        """The collection, loaded: every document's sentences, the linked graph and all vectors.

        Every stored file is checked as it is read (:mod:`kgcore.index.store.integrity`); a damaged one is a
        :class:`DamagedIndexError` naming it.  A commit by another writer meanwhile makes the load start again.
        """
        for attempt in range(LOAD_ATTEMPTS):
            manifest = self.manifest(name)
            try:
                index = self._load(name, manifest)
                release_free_memory()  # the files' parsed JSON, freed, given back: the process keeps the index
                return index
            except DamagedIndexError:
                if not self.exists(name):
                    raise IndexNotFoundError(f"Collection {name!r} in {self.root} was deleted while it was read."
                                             ) from None
                if attempt + 1 < LOAD_ATTEMPTS and self.manifest(name).stamp != manifest.stamp:
                    continue
                raise
        raise AssertionError("unreachable")

    def _load(self, name: str, manifest: CollectionManifest) -> Index:
        path = self.doc_path(name)
        if manifest.format == 1:
            parts = legacy.read(path, manifest.documents[0].manifest)
            return Index(name, path, manifest, *parts, chroma=self.chroma_copy(name))
        if sentence_matrix.missing(manifest):  # committed before the derived files existed
            manifest = sentence_matrix.upgrade(self.root, manifest, lambda: self._read(path)).manifest or manifest
        try:  # shared pages, not heap
            mapped, table = sentence_matrix.map_matrix(path, manifest), sentence_table.map_table(path, manifest)
        except DamagedIndexError as exc:
            raise DamagedIndexError(exc.path, exc.reason, LINKED_REMEDY) from None
        sentences: Sequence[Sentence]
        if table is not None and mapped is not None:
            check_document_sizes(path, manifest)  # their files are not read: measured, as every load measures them
            sentences, sentence_vectors = table, mapped
        else:
            sentences, read_vectors = read_sentences_of(path, manifest, vectors=mapped is None)
            sentence_vectors = read_vectors if mapped is None else mapped
        graph, node_ids, node_vectors = read_linked(path, manifest)
        return Index(name, path, manifest, sentences, graph, node_ids, node_vectors, sentence_vectors,
                     chroma=self.chroma_copy(name))

    def documents(self, name: str) -> builtins.list[Manifest]:
        """The per-document manifests of a collection, in collection order."""
        return [d.manifest for d in self.manifest(name).documents]

    def source_path(self, name: str, doc_id: str) -> Path | None:
        """The kept source file of document ``doc_id`` of collection ``name`` (found without loading it, so a
        damaged document can be indexed again from it)."""
        entry = self.manifest(name).document(doc_id)
        if entry.folder == legacy.IN_PLACE:
            return None
        return shard.source_file(self.doc_path(name) / DOCUMENTS_DIR / entry.folder)

    def verify(self, name: str, deep: bool = True) -> builtins.list[DamagedIndexError]:
        """Problems of collection ``name``'s stored files: sizes only, or (``deep``) every file read and hashed."""
        manifest = self.manifest(name)
        path = self.doc_path(name)
        problems = [p for d in manifest.documents for p in document_problems(path, d, deep)]
        return problems + linked_problems(path, manifest, deep)

    # -- deleting ------------------------------------------------------------------
    def delete(self, name: str) -> None:
        """Remove a whole collection, damaged or not, once no writer is changing it (it disappears at once,
        then its files are removed).  Its Chroma collections on a server are deleted first: a server that
        cannot be reached leaves the collection as it was (ServiceUnavailableError)."""
        path = self.doc_path(name)
        if not path.exists():
            raise IndexNotFoundError(f"No collection {name!r} in {self.root}.")
        with collection_lock(self.root, name):
            chroma.drop(self.chroma_copy(name))
            trash = self.root / f"{TRASH_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
            try:
                os.rename(path, trash)
            except FileNotFoundError:
                raise IndexNotFoundError(f"No collection {name!r} in {self.root} (deleted meanwhile).") from None
        shutil.rmtree(trash, ignore_errors=True)


def _chroma_server(choice: chroma.ChromaServer | Literal["env", "embedded"]) -> chroma.ChromaServer | None:
    if choice == "env":
        return chroma.ChromaServer.from_env()
    if choice == "embedded":
        return None
    if isinstance(choice, chroma.ChromaServer):
        return choice
    raise InputError("chroma", f"expected 'env', 'embedded' or a ChromaServer, got {choice!r}")


def _looks_like_collection(folder: Path) -> bool:
    """A folder of the store root that is (or was meant to be) a collection, damaged or not."""
    return any((folder / name).exists() for name in (COLLECTION_FILE, "manifest.json", DOCUMENTS_DIR))


def _signature(file: Path) -> tuple[int, ...] | None:
    """What changes whenever ``file`` is replaced or rewritten; None when it cannot be read or was changed in the
    last :data:`SETTLED_NS` (file times tick coarsely, so two writes that close may share them).

    The file is opened, not just stat'ed: on NFS (a team's shared store) an open revalidates the name and the
    attributes with the server (close-to-open consistency), where a bare stat may answer from the client's
    attribute cache for up to a minute after another host committed.
    """
    try:
        fd = os.open(file, os.O_RDONLY)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < SETTLED_NS:
        return None
    return st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _quietly(work, *args) -> None:
    """Housekeeping that must never stop a listing (another process may be removing the same files)."""
    try:
        work(*args)
    except (OSError, KgcoreError):
        pass


def _read_json_manifest(path: Path) -> Manifest:
    remedy = "re-index the document with --force, or delete the collection"
    try:
        data = parse_json(path, read_verified(path))
        return Manifest.from_dict(data, str(path))
    except DamagedIndexError as exc:
        raise DamagedIndexError(path, exc.reason, remedy) from None
    except KgcoreError as exc:
        reason = str(exc).removeprefix(f"{path}: ").removesuffix("; re-index the document")
        raise DamagedIndexError(path, reason, remedy) from None
