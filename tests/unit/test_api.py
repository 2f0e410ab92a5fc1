"""The public API of kgcore: what ``import kgcore`` offers."""

from __future__ import annotations

import kgcore
from kgcore.core.errors import KgcoreError
from kgcore.index.manifest import Manifest
from kgcore.index.store import Store
from kgcore.query.engine import QueryEngine

PUBLIC = {"AuditDB", "Index", "IndexOptions", "KgcoreError", "Manifest", "QueryEngine", "RetrievalOptions", "Settings",
          "Store", "index_document", "index_file", "__version__"}


def test_the_package_exports_the_public_names():
    assert set(kgcore.__all__) == PUBLIC
    assert all(hasattr(kgcore, name) for name in PUBLIC)
    assert (kgcore.KgcoreError, kgcore.Manifest, kgcore.Store, kgcore.QueryEngine) == (
        KgcoreError, Manifest, Store, QueryEngine)
    assert isinstance(kgcore.__version__, str) and kgcore.__version__
