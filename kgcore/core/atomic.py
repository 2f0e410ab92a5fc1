"""Replacing a file atomically: what a reader opens is the old file or the new one, never half of either.

The new contents are written to a temporary file beside the target (same folder, so the same file system) and
renamed over it with :func:`os.replace`, which is atomic on POSIX and Windows.  A failure removes the temporary
file and leaves the old one as it was.  Stores whose files are caches -- a view that is built again when it cannot
be read -- pass ``quiet=True``: a store that cannot be written (read-only, full) is then left alone and the caller
is told so by the return value.

>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> replace_text(folder / "note.txt", "first"), replace_text(folder / "note.txt", "second")
(True, True)
>>> (folder / "note.txt").read_text(), sorted(p.name for p in folder.iterdir())
('second', ['note.txt'])
>>> replace_text(folder / "missing" / "note.txt", "x", quiet=True)   # its folder does not exist
False

Durability across a power loss (``fsync`` of the file and of its folder) is the commit's business, not this
helper's: :mod:`kgcore.index.store.recovery` writes the manifest that names a collection's files that way.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def replace_file(file: Path, save: Callable[[BinaryIO], object], *, quiet: bool = False) -> bool:
    """Write ``file`` through ``save`` (given the open binary file) into a temporary file renamed over it.
    True when the file was replaced; with ``quiet``, an :class:`OSError` returns False instead of raising."""
    tmp = file.with_name(f"{file.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with tmp.open("wb") as fh:
            save(fh)
        os.replace(tmp, file)
        return True
    except OSError:
        if not quiet:
            raise
        return False
    finally:
        with contextlib.suppress(OSError):  # a read-only mount refuses even a missing file's unlink (EROFS)
            tmp.unlink(missing_ok=True)


def replace_text(file: Path, text: str, *, quiet: bool = False) -> bool:
    """:func:`replace_file` with ``text`` encoded as UTF-8."""
    return replace_file(file, lambda fh: fh.write(text.encode("utf-8")), quiet=quiet)
