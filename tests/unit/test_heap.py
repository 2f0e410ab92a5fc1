"""Freed memory goes back to the operating system when asked (glibc), as after loading a collection."""

import gc

import psutil
import pytest

from kgcore.core.heap import release_free_memory


def _own_mb() -> float:
    info = psutil.Process().memory_info()
    return (info.rss - info.shared) / 2 ** 20


def test_memory_freed_between_survivors_is_given_back():
    """300 MB of 1 KB strings, one in fifty kept (as a loaded index keeps its objects among the parser's freed
    temporaries): freeing the rest leaves the process as large; giving the memory back shrinks it."""
    if not release_free_memory():
        pytest.skip("this C library cannot give freed memory back (not glibc)")
    gc.collect()
    release_free_memory()  # what earlier tests freed is not counted, nor reused by this one
    before = _own_mb()
    junk, kept = [], []
    for i in range(300_000):
        junk.append(("x" * 1000 + str(i)).encode())
        if i % 50 == 0:
            kept.append(("y" * 1000 + str(i)).encode())
    filled = _own_mb()
    del junk
    gc.collect()
    freed = _own_mb()
    assert filled - before > 250 and freed - before > 200  # freed, yet still the process's
    release_free_memory()
    assert _own_mb() - before < 100, (before, filled, freed, _own_mb())
    assert len(kept) == 6_000
