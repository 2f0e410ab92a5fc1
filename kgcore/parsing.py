"""The Parser protocol (Φ of the paper) and the factory for its backends.

A parser turns coreference-resolved sentences into one
:class:`~kgcore.types.SentenceGraph` each, and a question into a query
graph built by the *same* procedure.  Backends: ``srl`` (spaCy dependency
frames, :mod:`kgcore.srl`) and ``amr`` (amrlib + penman, :mod:`kgcore.amr`).
Parsers do not add ``next`` edges: :func:`kgcore.graph.with_next_edges`
does that uniformly from each node's ``order``.
"""

from __future__ import annotations

from typing import Callable, Protocol, Sequence

from .errors import InputError
from .settings import PARSERS, Settings
from .types import Sentence, SentenceGraph

#: Progress callbacks receive (done, total).
Progress = Callable[[int, int], None]

QUERY_ID = "query"


class Parser(Protocol):
    name: str

    def parse(self, sentences: Sequence[Sentence], progress: Progress | None = None) -> list[SentenceGraph]:
        """One graph per sentence, in the same order, grounded to ``sentence.id``."""

    def parse_question(self, question: str) -> SentenceGraph:
        """The query graph of ``question``; its ``sentence_id`` is ``QUERY_ID``."""


def get_parser(name: str, settings: Settings | None = None) -> Parser:
    """The parser backend called ``name`` (imported lazily)."""
    settings = settings or Settings.from_env()
    if name == "srl":
        from .srl import SrlParser

        return SrlParser(settings.spacy_model)
    if name == "amr":
        from .amr import AmrParser

        return AmrParser(settings.amr_model, device=settings.device)
    raise InputError("parser", f"unknown value {name!r} (choose one of {', '.join(PARSERS)})")
