"""One lock per key, for work that must happen once however many threads ask for it at the same time.

The app's sessions are threads sharing one :class:`~kgcore.query.engine.QueryEngine`: two analysts asking the
first question of a collection at once must not load it twice (ObliQA: 12 s and 1.5 GB each), nor build its
BM25 model twice; two different collections still load side by side.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable


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
