"""A bounded cache of encoded strings in front of any :class:`~kgcore.core.embed.base.Embedder`.

Answering encodes the same strings again and again: the question for every
method compared on it, the query graph's node strings, the context sentences
the answerer, the citation check and the support check each encode.  The
query side encodes through :class:`CachedEmbedder`, so each distinct string
(at each token cap) is encoded once per process while it stays among the
:data:`CAPACITY` most recent.

>>> import numpy as np
>>> class Counting:
...     name, dim, calls = "toy", 2, []
...     def encode(self, texts, max_tokens=None):
...         self.calls.append(list(texts))
...         return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
>>> inner = Counting(); cached = CachedEmbedder(inner, capacity=3)
>>> cached.encode(["a", "bb", "a"]).tolist()
[[1.0, 1.0], [2.0, 1.0], [1.0, 1.0]]
>>> _ = cached.encode(["bb", "ccc"]); inner.calls
[['a', 'bb'], ['ccc']]
>>> cached.name, cached.dim, len(cached)
('toy', 2, 3)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from kgcore.core.embed.base import Embedder

#: Vectors kept (20,000 MiniLM vectors: 30 MB).
CAPACITY = 20_000


class CachedEmbedder:
    """``inner`` with an LRU cache of (text, max_tokens) -> vector; safe to share between threads.

    A call with more than ``max_call`` texts goes straight to ``inner`` (a long document's node strings: already
    distinct, and caching them would only push out the strings small calls share).

    >>> class Counting:
    ...     name, dim, calls = "toy", 1, 0
    ...     def encode(self, texts, max_tokens=None):
    ...         self.calls += 1
    ...         return np.ones((len(texts), 1), dtype=np.float32)
    >>> inner = Counting(); cached = CachedEmbedder(inner, max_call=2)
    >>> _ = cached.encode(["a", "b", "c"]); _ = cached.encode(["a"]); _ = cached.encode(["a"])
    >>> inner.calls, len(cached)
    (2, 1)
    """

    def __init__(self, inner: Embedder, capacity: int = CAPACITY, max_call: int | None = None):
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.capacity = capacity
        self.max_call = max_call
        self._vectors: OrderedDict[tuple[str, int | None], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._vectors)

    def encode(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        """The vectors of ``texts``; only the strings not cached are passed to the inner embedder (once each)."""
        if self.max_call is not None and len(texts) > self.max_call:
            return self.inner.encode(texts, max_tokens=max_tokens)
        keys = [(t, max_tokens) for t in texts]
        with self._lock:
            found = {k: self._vectors[k] for k in keys if k in self._vectors}
            for k in found:
                self._vectors.move_to_end(k)
        missing = list(dict.fromkeys(k[0] for k in keys if k not in found))
        if missing:
            fresh = self.inner.encode(missing, max_tokens=max_tokens)
            found.update(((t, max_tokens), v) for t, v in zip(missing, fresh))
            self._remember({(t, max_tokens): v for t, v in zip(missing, fresh)})
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)

    def _remember(self, vectors: dict[tuple[str, int | None], np.ndarray]) -> None:
        with self._lock:
            self._vectors.update(vectors)
            while len(self._vectors) > self.capacity:
                self._vectors.popitem(last=False)
