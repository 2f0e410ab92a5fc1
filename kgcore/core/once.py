"""Work that must happen once however many threads ask for it at the same time: :func:`once` builds a value
under a lock (one per key, :class:`KeyedLocks`, or one for all, as models load) and returns it without one after.

The app's sessions are threads sharing one :class:`~kgcore.query.engine.QueryEngine`: two analysts asking the
first question of a collection at once must not load it twice (ObliQA: 12 s and 1.5 GB each), nor build its
BM25 model twice; two different collections still load side by side.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

T = TypeVar("T")
_MISSING: Any = object()


def once(values: dict[Any, T], key: Hashable, build: Callable[[], T], lock: AbstractContextManager) -> T:
    """``values[key]``, built by ``build()`` under ``lock`` the first time: a value already there is returned
    without the lock, and threads asking while it is built wait and take that one.

    >>> values, lock = {}, threading.Lock()
    >>> once(values, "a", lambda: [1], lock) is once(values, "a", lambda: [2], lock), values
    (True, {'a': [1]})
    """
    value = values.get(key, _MISSING)
    if value is _MISSING:
        with lock:
            value = values.get(key, _MISSING)
            if value is _MISSING:
                value = values[key] = build()
    return value


class KeyedLocks:
    """A re-entrant lock per key, made on first use (kept: there are as many as collections or cache slots).

    >>> locks = KeyedLocks()
    >>> with locks("a"):
    ...     locks("a") is locks("a"), locks("a") is locks("b")
    (True, False)
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[Hashable, threading.RLock] = {}

    def __call__(self, key: Hashable) -> threading.RLock:
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = threading.RLock()
            return lock
