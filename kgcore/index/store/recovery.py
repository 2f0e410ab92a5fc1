"""What a stopped writer leaves behind, removed: files of a collection that its manifest does not name.

A writer stopped at any point (``kill -9``, a full disk, power loss) leaves
its collection exactly as the last committed ``collection.json`` says, plus
at most: a shard moved into ``documents/`` but not named, a
``linked-<generation>`` or ``*.tmp`` not named (also one inside a named
``linked-<generation>``), a Chroma copy marked as
being written (rebuilt before its next use, :mod:`kgcore.index.store.chroma`), a
staging folder or the trash of a ``delete`` (:func:`kgcore.index.store.locks.remove_stale`).
None of it is visible to readers.  A writer removes it after its own commit
(:func:`collect_garbage`, keeping the previous generation for readers still
loading it); :func:`recover` does the same when the store is listed, only
when no writer holds the collection and its last commit is older than
:data:`GRACE_S` (no reader can still be loading the generation before).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from pathlib import Path

from kgcore.core.errors import KgcoreError
from kgcore.index.store import legacy
from kgcore.index.store.collection import CollectionManifest
from kgcore.index.store.in_memory import DOCUMENTS_DIR
from kgcore.index.store.locks import collection_lock

COLLECTION_FILE = "collection.json"
#: Seconds after a commit before :func:`recover` may remove what the previous generation used.
GRACE_S = 60.0
#: Files being written into a linked graph's folder (the sentence-vector matrix under a temporary name).
LINKED_TEMPS = "linked-*/*.tmp"


def linked_folder(generation: int) -> str:
    """The folder of a collection's linked graph at ``generation``.

    >>> linked_folder(3)
    'linked-3'
    """
    return f"linked-{generation}"


def write_manifest(path: Path, manifest: CollectionManifest) -> None:
    """Replace the ``collection.json`` of the collection at ``path`` atomically: the commit point (a temporary
    file, synced, renamed over the old one; one a crash leaves behind is removed by :func:`collect_garbage`).

    Every file the commit wrote before (documents' shards, the linked graph, appended layers) is flushed to disk
    first (``os.sync``, one call per commit where the platform has it): after a power loss the manifest never
    names a file whose data was lost (the digests would find it, and the whole collection would refuse to load)."""
    if hasattr(os, "sync"):
        os.sync()
    tmp = path / f"{COLLECTION_FILE}.{uuid.uuid4().hex[:8]}.tmp"
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(manifest.to_dict(), ensure_ascii=False, indent=1))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path / COLLECTION_FILE)
    sync_folder(path)


def sync_folder(folder: Path) -> None:
    """Flush ``folder``'s entries to disk, so that a file renamed into it survives a power loss (a renamed file's
    own data is synced by its writer; its name is in the folder).  POSIX only: where a folder cannot be opened
    (Windows) or synced, it does nothing."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def collect_garbage(path: Path, manifest: CollectionManifest, previous: CollectionManifest | None = None) -> int:
    """Remove shards, linked graphs and temporary files of the collection at ``path`` that neither ``manifest``
    nor ``previous`` names; returns how many.  Call it holding the collection's lock."""
    keep = {d.folder for d in manifest.documents} | ({d.folder for d in previous.documents} if previous else set())
    doomed = [f for f in (path / DOCUMENTS_DIR).glob("*") if f.name not in keep]
    keep_linked = {linked_folder(manifest.generation)} | ({linked_folder(previous.generation)} if previous else set())
    doomed += [f for f in path.glob("linked-*") if f.name not in keep_linked]
    doomed += list(path.glob(f"{COLLECTION_FILE}.*.tmp")) + list(path.glob(".migrate-*"))
    doomed += list(path.glob(LINKED_TEMPS))  # a file a stopped commit or upgrade was writing
    for item in doomed:
        if item.is_dir():
            shutil.rmtree(item, ignore_errors=True)
        else:
            item.unlink(missing_ok=True)
    if (path / legacy.LEGACY_FILES[0]).exists() and (path / COLLECTION_FILE).exists():
        legacy.remove_legacy_files(path)  # a migrated kgcore 0.1 folder's old files
    return len(doomed)


def recover(root: Path, listed: CollectionManifest) -> int:
    """Remove what interrupted writers left in collection ``listed.name`` when that is safe (see the
    module docstring); returns how many files or folders went."""
    path = root / listed.name
    if listed.format < 2 or not _leftovers(path, listed):
        return 0
    with collection_lock(root, listed.name, wait=False) as held:
        if not held:
            return 0
        try:  # read again under the lock: a writer may have committed since the listing
            if time.time() - (path / COLLECTION_FILE).stat().st_mtime < GRACE_S:
                return 0
            data = json.loads((path / COLLECTION_FILE).read_text(encoding="utf-8"))
            manifest = CollectionManifest.from_dict(data, str(path / COLLECTION_FILE))
        except (OSError, ValueError, KgcoreError):
            return 0
        return collect_garbage(path, manifest)


def _leftovers(path: Path, manifest: CollectionManifest) -> bool:
    """Whether anything lies in ``path`` that ``manifest`` does not name (cheap: directory listings only)."""
    named = {d.folder for d in manifest.documents}
    documents = path / DOCUMENTS_DIR
    if documents.is_dir() and any(f.name not in named for f in documents.iterdir()):
        return True
    return any(f.name != linked_folder(manifest.generation) for f in path.glob("linked-*")) or any(
        path.glob(f"{COLLECTION_FILE}.*.tmp")) or any(path.glob(LINKED_TEMPS))
