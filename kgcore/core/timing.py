"""Step timings: how many milliseconds each step of one piece of work took, in the order the steps ran.

Every retrieval method reports its ``timings_ms`` through a :class:`Timer` (``parse``, ``embed``, ``match``,
``select`` and ``retrieval``, their sum), and the engine adds ``answer``; each value is rounded to microseconds.

>>> timer = Timer()
>>> with timer.step("parse"):
...     pass
>>> with timer.step("embed"):
...     pass
>>> with timer.step("parse"):  # a step run again adds to its time, in its first place
...     pass
>>> list(timer.ms), timer.total("parse", "embed") == round(timer.ms["parse"] + timer.ms["embed"], 3)
(['parse', 'embed'], True)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


def ms_since(start: float) -> float:
    """Milliseconds since ``start`` (a ``time.perf_counter()`` reading), rounded to microseconds."""
    return round((time.perf_counter() - start) * 1000, 3)


class Timer:
    """Milliseconds per step (:attr:`ms`, a plain dict in the order the steps first ran)."""

    def __init__(self, ms: dict[str, float] | None = None):
        self.ms: dict[str, float] = dict(ms or {})

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Time the ``with`` block as step ``name`` (added to what the step took before)."""
        start = time.perf_counter()
        yield
        self.add(name, ms_since(start))

    def add(self, name: str, ms: float) -> None:
        self.ms[name] = round(self.ms.get(name, 0.0) + ms, 3)

    def total(self, *names: str) -> float:
        """The steps' sum, rounded to microseconds."""
        return round(sum(self.ms[n] for n in names), 3)
