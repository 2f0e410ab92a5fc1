"""The Embedder protocol every embedding backend implements.

>>> import numpy as np
>>> class Toy:
...     name, dim = "toy", 2
...     def encode(self, texts, max_tokens=None):
...         return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)
>>> isinstance(Toy(), Embedder)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Encodes texts into L2-normalised vectors; ``name`` is recorded in every index manifest."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        """L2-normalised float32 matrix, one row per text; ``max_tokens`` truncates each text (None: model limit)."""
        ...
