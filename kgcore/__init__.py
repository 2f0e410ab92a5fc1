"""kgcore: grounded knowledge-graph indexing, retrieval, answering and auditing.

Layers, each a subpackage that imports only the ones before it (``docs/architecture.md``)::

    core      value types, errors, settings, the shared models (spaCy, the embedder)
    index     build stages -> store/ (the persisted collection) -> views/ (derived on first use)
    query     methods/ (retrieval, registered by name), answer/ (answerers), the QueryEngine
    evaluate  QA sets, metrics, diagnosis, the evaluation harness
    audit     audit records, labels, queues, agreement, import/export
    api       the public API the CLI, the app and the benchmarks import (kgcore.api)
    cli       python -m kgcore

kgcore never imports streamlit; the app in ``app.py``/``pages/`` is a thin
layer over :mod:`kgcore.api`.  The names below are the library's core.

>>> import kgcore
>>> sorted(kgcore.__all__)[:4]
['AuditDB', 'Index', 'IndexOptions', 'KgcoreError']
"""

import os

# OpenBLAS's threads spin for some 0.1 s (2^28 cycles) after every matrix product before they sleep, and on a
# small machine they hold the cores the embedding model's threads need: ObliQA's encoding step took 51-52 ms a
# question asked right after another, 38-41 ms with them sleeping at once (2 cores, bench/query_bench.py).
# OpenBLAS reads this when numpy loads it, so it applies where kgcore is imported first (the app, the CLI, the
# benchmarks); a value the user set wins.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

from kgcore.audit import AuditDB
from kgcore.core.errors import KgcoreError
from kgcore.core.settings import IndexOptions, RetrievalOptions, Settings
from kgcore.core.version import __version__
from kgcore.index.pipeline import index_document, index_file
from kgcore.index.store.disk import Index, Store
from kgcore.index.store.manifest import Manifest
from kgcore.query.engine import QueryEngine

__all__ = [
    "AuditDB",
    "Index",
    "IndexOptions",
    "KgcoreError",
    "Manifest",
    "QueryEngine",
    "RetrievalOptions",
    "Settings",
    "Store",
    "__version__",
    "index_document",
    "index_file",
]
