"""The retrieval methods, one module each, registered by name: what ``--method``, the app's menus and ``eval`` offer.

Every method module exports ``retrieve(index, question, options, models) -> QueryResult`` and ``METHOD``, a
:class:`~kgcore.query.methods.base.Method` naming it, with its label and one line of help.  The engine looks the
method up here (:func:`get`); the CLI's choices, the app's menus and the evaluation grid read :data:`METHODS`.

Adding a method is one new module here and one line below (see ``docs/architecture.md``, "Extending").  A test or an
experiment can add one for a while::

    with METHODS.registered(Method("toy", "Toy", "the first sentence", retrieve)):
        engine.retrieve("peter-rabbit", "Who is Peter?", RetrievalOptions(method="toy"))

>>> names()[:3], get("bm25").label
(['groundedkg', 'lesegr', 'dense'], 'BM25 (keywords)')
"""

from __future__ import annotations

from kgcore.core.registry import Registry
from kgcore.query.methods import (
    bm25,
    community,
    dense,
    entities,
    full,
    groundedkg,
    hybrid,
    hybrid_summaries,
    lesegr,
    none,
    qa_kg,
)
from kgcore.query.methods.base import BUDGET, EVERYTHING, NOTHING, RANKED, Method, Models

#: Every method, in the order of the menus and of ``eval``'s default.
METHODS: Registry[Method] = Registry("method", [
    groundedkg.METHOD,
    lesegr.METHOD,
    dense.METHOD,
    bm25.METHOD,
    hybrid.METHOD,
    qa_kg.METHOD,
    entities.METHOD,
    community.METHOD,
    hybrid_summaries.METHOD,
    full.METHOD,
    none.METHOD,
])
#: GroundedKG's rankings under a budget, name -> label (``RetrievalOptions.ranking``).
RANKING_LABELS = groundedkg.RANKING_LABELS

__all__ = ["BUDGET", "EVERYTHING", "METHODS", "NOTHING", "RANKED", "RANKING_LABELS", "Method", "Models", "get", "label",
           "names"]


def get(name: str) -> Method:
    """The method called ``name`` (an unknown name is an ``InputError`` listing the choices)."""
    return METHODS.get(name)


def names() -> list[str]:
    """The registered methods' names, in menu order."""
    return METHODS.names()


def label(name: str) -> str:
    """A method's label for people (its name when it is not registered).

    >>> label("dense"), label("gone")
    ('Dense (sentence vectors)', 'gone')
    """
    return METHODS.get(name).label if name in METHODS else name
