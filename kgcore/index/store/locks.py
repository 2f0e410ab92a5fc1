"""Locks of the store: one writer per collection, and staging folders that say whether their writer lives.

``<root>/.locks/<collection>.lock`` is taken with an exclusive ``flock`` by
every writer of the collection (adding, removing, deleting, recovering) for
the whole of its change: shards moved in, linked graph and Chroma written,
manifest replaced, old files removed.  The kernel releases a ``flock`` when
its process dies, so a writer killed with ``kill -9`` never leaves the
collection locked.

A writer builds shards in ``<root>/.staging/<pid>-<random>/`` while holding
``<root>/.staging/<pid>-<random>.lock``; :func:`remove_stale` removes only
staging folders whose lock no live process holds (and the trash a killed
``delete`` left), never another writer's work in progress.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> with collection_lock(root, "shelf") as held:
...     with collection_lock(root, "shelf", wait=False) as again:
...         held, again
(True, False)
>>> with staging_folder(root) as folder:
...     remove_stale(root), folder.is_dir()
(0, True)
>>> folder.exists(), remove_stale(root)
(False, 0)
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: Hidden folders of the store root (never a collection): locks, staging, trash.
HIDDEN_PREFIX = "."
LOCKS_DIR = f"{HIDDEN_PREFIX}locks"
STAGING_DIR = f"{HIDDEN_PREFIX}staging"
TRASH_PREFIX = f"{HIDDEN_PREFIX}trash-"
#: A lock file younger than this is never judged stale (its writer may be between creating and locking it).
FRESH_S = 10.0


@contextmanager
def collection_lock(root: Path, name: str, wait: bool = True) -> Iterator[bool]:
    """Hold the writer lock of collection ``name``; yields False (holding nothing) when ``wait`` is False
    and another process holds it."""
    locks = Path(root) / LOCKS_DIR
    locks.mkdir(parents=True, exist_ok=True)
    fd = os.open(locks / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        held = _flock(fd, wait)
        try:
            yield held
        finally:
            if held:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _flock(fd: int, wait: bool) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True


@contextmanager
def staging_folder(root: Path) -> Iterator[Path]:
    """A new, empty staging folder under ``<root>/.staging`` held by this process; removed afterwards."""
    base = Path(root) / STAGING_DIR
    base.mkdir(parents=True, exist_ok=True)
    name = f"{os.getpid()}-{uuid.uuid4().hex[:10]}"
    lock = base / f"{name}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)  # taken before the folder exists: a folder without its lock is stale
    folder = base / name
    try:
        folder.mkdir()
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        lock.unlink(missing_ok=True)
        os.close(fd)


def remove_stale(root: Path) -> int:
    """Remove staging folders no live writer holds and the trash of interrupted deletes; returns how many."""
    root = Path(root)
    removed = 0
    if root.is_dir():
        for trash in root.glob(f"{TRASH_PREFIX}*"):
            shutil.rmtree(trash, ignore_errors=True)
            removed += 1
    base = root / STAGING_DIR
    if not base.is_dir():
        return removed
    for entry in sorted(base.iterdir()):
        if entry.suffix == ".lock":
            removed += _remove_if_dead(entry, base / entry.stem)
        elif entry.is_dir() and not (base / f"{entry.name}.lock").exists():
            shutil.rmtree(entry, ignore_errors=True)  # its writer finished (lock removed last) or was 0.2's
            removed += 1
    return removed


def _remove_if_dead(lock: Path, folder: Path) -> int:
    try:
        if time.time() - lock.stat().st_mtime < FRESH_S:
            return 0
        fd = os.open(lock, os.O_RDWR)
    except FileNotFoundError:
        return 0
    try:
        if not _flock(fd, wait=False):
            return 0  # a live writer holds it
        shutil.rmtree(folder, ignore_errors=True)
        lock.unlink(missing_ok=True)
        return 1
    finally:
        os.close(fd)
