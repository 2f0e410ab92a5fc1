"""The Parser protocol (Φ of the paper) shared by every parser backend.

A parser turns coreference-resolved sentences into one
:class:`~kgcore.core.types.SentenceGraph` each, and a question into a query
graph built by the *same* procedure.  Parsers do not add ``next`` edges:
:func:`kgcore.index.graph.with_next_edges` does that uniformly from each
node's ``order``.  Backends import :data:`QUERY_ID` and :data:`Progress`
from here, never from the factory in :mod:`kgcore.index.parse`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from kgcore.core.types import Sentence, SentenceGraph

#: Progress callbacks receive (done, total).
Progress = Callable[[int, int], None]

#: The ``sentence_id`` of every query graph.
QUERY_ID = "query"


class Parser(Protocol):
    """What every parser backend provides."""

    name: str

    def parse(self, sentences: Sequence[Sentence], progress: Progress | None = None) -> list[SentenceGraph]:
        """One graph per sentence, in the same order, grounded to ``sentence.id``."""
        ...

    def parse_question(self, question: str) -> SentenceGraph:
        """The query graph of ``question``; its ``sentence_id`` is ``QUERY_ID``."""
        ...
