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

>>> from kgcore.api import QueryEngine, RetrievalOptions, Store, doctor_checks
>>> RetrievalOptions(method="bm25", budget_words=500).budget_words
500
"""

from kgcore.api.ask import *  # noqa: F403
from kgcore.api.ask import __all__ as _ask
from kgcore.api.audit import *  # noqa: F403
from kgcore.api.audit import __all__ as _audit
from kgcore.api.collections import *  # noqa: F403
from kgcore.api.collections import __all__ as _collections
from kgcore.api.evaluation import *  # noqa: F403
from kgcore.api.evaluation import __all__ as _evaluation
from kgcore.api.health import Check as Check
from kgcore.api.health import check_chroma as check_chroma
from kgcore.api.health import doctor_checks as doctor_checks
from kgcore.api.health import healthy as healthy
from kgcore.api.models import *  # noqa: F403
from kgcore.api.models import __all__ as _models
from kgcore.api.values import *  # noqa: F403
from kgcore.api.values import __all__ as _values
from kgcore.api.views import *  # noqa: F403
from kgcore.api.views import __all__ as _views

__all__ = sorted({*_ask, *_audit, *_collections, *_evaluation, *_models, *_values, *_views,
                  "Check", "check_chroma", "doctor_checks", "healthy"})
