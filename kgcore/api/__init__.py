"""The public API: everything the command line, the app and the benchmarks use, importable from one place.

``from kgcore.api import QueryEngine, RetrievalOptions, Store`` is all a script needs; the CLI (``kgcore.cli``),
the app (``pages/``, ``ui/``) and the benchmark tools import nothing else from kgcore, and a test
(``tests/unit/test_api.py``) fails on a deeper import.  The names come from one module per task:

=========================================  ================================================================
:mod:`kgcore.api.collections`              index files into collections, the store, documents, removal
:mod:`kgcore.api.ask`                      the query engine, retrieval methods and answerers by name
:mod:`kgcore.api.views`                    entities, communities, the contextual graph, sources, citations
:mod:`kgcore.api.evaluation`               QA sets, the settings grid, metrics, the judge, comparisons
:mod:`kgcore.api.audit`                    the audit database, review queues, agreement, export
:mod:`kgcore.api.health`                   the doctor checks (``python -m kgcore doctor``, the Status page)
:mod:`kgcore.api.values`                   value types, errors and settings
:mod:`kgcore.api.models`                   the spaCy pipeline, the embedder, the chat endpoint
=========================================  ================================================================

Each task module is imported the first time one of its names is used (a script that only asks questions never
loads the audit database's or the evaluation's dependencies), so importing :mod:`kgcore.api` costs nothing.

>>> from kgcore.api import QueryEngine, RetrievalOptions, Store, doctor_checks
>>> RetrievalOptions(method="bm25", budget_words=500).budget_words
500
"""

import ast
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

#: The task modules, each loaded the first time one of its names is used: a script asking questions never loads
#: the audit database's or the evaluation's dependencies.
TOPICS = ("ask", "audit", "collections", "evaluation", "health", "models", "values", "views")
_HEALTH = ("Check", "check_chroma", "doctor_checks", "healthy", "listed_maintainers", "MAINTAINERS_VARIABLE",
           "read_secrets")


def _names(topic: str) -> tuple[str, ...]:
    """A task module's public names (its ``__all__``), read from its source without importing it."""
    if topic == "health":
        return _HEALTH
    tree = ast.parse((Path(__file__).parent / f"{topic}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise ImportError(f"kgcore.api.{topic} has no __all__")


_TOPIC_OF = {name: topic for topic in TOPICS for name in _names(topic)}
__all__ = sorted(_TOPIC_OF)


def __getattr__(name: str) -> Any:
    topic = _TOPIC_OF.get(name)
    if topic is None:
        raise AttributeError(f"module 'kgcore.api' has no attribute {name!r}")
    value = getattr(import_module(f"kgcore.api.{topic}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)


if TYPE_CHECKING:
    from kgcore.api.ask import *
    from kgcore.api.audit import *
    from kgcore.api.collections import *
    from kgcore.api.evaluation import *
    from kgcore.api.health import MAINTAINERS_VARIABLE as MAINTAINERS_VARIABLE
    from kgcore.api.health import Check as Check
    from kgcore.api.health import check_chroma as check_chroma
    from kgcore.api.health import doctor_checks as doctor_checks
    from kgcore.api.health import healthy as healthy
    from kgcore.api.health import listed_maintainers as listed_maintainers
    from kgcore.api.health import read_secrets as read_secrets
    from kgcore.api.models import *
    from kgcore.api.values import *
    from kgcore.api.views import *
