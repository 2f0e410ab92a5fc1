"""What a retrieval method is: a name, its label and help, one ``retrieve`` function, and what it reads.

Every method has the same signature::

    retrieve(index, question, options, models) -> QueryResult

``index`` is the loaded collection (:class:`~kgcore.index.store.Index`), ``question`` the checked question,
``options`` the :class:`~kgcore.core.settings.RetrievalOptions` and ``models`` the shared :class:`Models` (the
embedder, the parsers, spaCy, the reranker, the settings), each loaded on first use.  A
:class:`~kgcore.core.registry.Registry` keeps the methods by name; :mod:`kgcore.query.methods` holds the one the
engine, the CLI, the app and the evaluation read.

>>> from kgcore.core.registry import Registry
>>> from kgcore.core.types import QueryResult
>>> def echo(index, question, options, models):
...     return QueryResult(question, "echo", index.collection, None, [], [], options.to_dict(), {}, [])
>>> registry = Registry("method", [Method("echo", "Echo", "returns no sentence", echo, reads=NOTHING)])
>>> list(registry), registry.get("echo").label
(['echo'], 'Echo')
>>> registry.get("nope")
Traceback (most recent call last):
...
kgcore.core.errors.InputError: method: unknown value 'nope' (choose one of echo)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgcore.core.embed import Embedder
from kgcore.core.errors import InputError
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.types import QueryResult
from kgcore.index.parse import Parser
from kgcore.index.store.in_memory import Index
from kgcore.query.rerank.base import Reranker

#: What a method reads of its options (:attr:`Method.reads`), so the evaluation grid does not repeat runs that
#: differ only in options the method ignores: every option (GroundedKG: K, τ, RetCount, the ranking) ...
EVERYTHING = "everything"
#: ... a ranking cut at K without a budget, the budgets and nothing else ...
RANKED = "ranked"
#: ... the budgets only ...
BUDGET = "budget"
#: ... or nothing (no context at all).
NOTHING = "nothing"
READS = (EVERYTHING, RANKED, BUDGET, NOTHING)


@dataclass(frozen=True)
class Models:
    """What a method may use, shared by every question an engine answers.

    ``parser(name)`` gives the collection's parser backend (``index.manifest.options.parser``); ``nlp`` and
    ``reranker`` load spaCy and the ``qa-kg`` reranker the first time a method reads them.  ``use_chroma`` asks
    for the collection's Chroma copy instead of exact search over the stored vectors (same results).
    """

    settings: Settings
    embedder: Embedder
    parser: Callable[[str], Parser]
    load_nlp: Callable[[], Any]
    load_reranker: Callable[[], Reranker]
    use_chroma: bool = False

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline (``settings.spacy_model``)."""
        return self.load_nlp()

    @property
    def reranker(self) -> Reranker:
        """The ``qa-kg`` reranker (a cross-encoder when ``KGCORE_RERANKER_MODEL`` is set)."""
        return self.load_reranker()


Retrieve = Callable[[Index, str, RetrievalOptions, Models], QueryResult]


@dataclass(frozen=True)
class Method:
    """One retrieval method: ``name`` (as typed: ``--method NAME``), ``label`` (the app's menus), ``help`` (one
    line: what it does), ``retrieve`` (the signature above) and ``reads`` (:data:`READS`)."""

    name: str
    label: str
    help: str
    retrieve: Retrieve
    reads: str = RANKED

    def __post_init__(self) -> None:
        if self.reads not in READS:
            raise InputError("reads", f"unknown value {self.reads!r} (choose one of {', '.join(READS)})")
