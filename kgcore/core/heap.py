"""Giving the memory a large load freed back to the operating system.

Loading a collection parses every document's JSON files into dictionaries and lists that live for a moment and
are freed once the sentences, graph and vectors are built; building a view for the first question does the same.
The C allocator keeps freed memory for the process's next allocations, so the process stays as large as its
peak: on 1,000 short documents a loaded collection held 37 MB of its own pages, 10 MB once the free memory was
given back.  :func:`release_free_memory` gives it back (glibc's ``malloc_trim``; about 30 ms for 300 MB freed),
where the C library has it, and does nothing elsewhere.

>>> release_free_memory() in (True, False)
True
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

__all__ = ["release_free_memory"]


@functools.cache
def _trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, looked up among the symbols this process has loaded, or None where the C library
    has none (macOS, musl, Windows)."""
    try:
        function = getattr(ctypes.CDLL(None), "malloc_trim", None)
    except (OSError, TypeError):  # Windows: no handle for the process itself
        return None
    return function if callable(function) else None


def release_free_memory() -> bool:
    """Return the memory the allocator holds free to the operating system; whether there was a way to."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
