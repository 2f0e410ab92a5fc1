"""The public API of kgcore: what ``import kgcore`` offers."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kgcore
from kgcore.core.errors import KgcoreError
from kgcore.index.store.disk import Store
from kgcore.index.store.manifest import Manifest
from kgcore.query.engine import QueryEngine

PUBLIC = {"AuditDB", "Index", "IndexOptions", "KgcoreError", "Manifest", "QueryEngine", "RetrievalOptions", "Settings",
          "Store", "index_document", "index_file", "__version__"}


def test_the_package_exports_the_public_names():
    assert set(kgcore.__all__) == PUBLIC
    assert all(hasattr(kgcore, name) for name in PUBLIC)
    assert (kgcore.KgcoreError, kgcore.Manifest, kgcore.Store, kgcore.QueryEngine) == (
        KgcoreError, Manifest, Store, QueryEngine)
    assert isinstance(kgcore.__version__, str) and kgcore.__version__


_BLAS_TIMEOUT = """
import ctypes
import kgcore
import numpy
from threadpoolctl import threadpool_info
for info in threadpool_info():
    if info["internal_api"] == "openblas" and hasattr(ctypes.CDLL(info["filepath"]), "openblas_thread_timeout"):
        print(ctypes.CDLL(info["filepath"]).openblas_thread_timeout())
"""


@pytest.mark.parametrize(("given", "expected"), [(None, "4"), ("12", "12")])
def test_importing_kgcore_first_lets_openblas_threads_sleep_at_once(given, expected):
    """OpenBLAS reads the timeout when numpy loads it: kgcore sets it first, unless the user set one."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if given:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    found = subprocess.run([sys.executable, "-c", _BLAS_TIMEOUT], env=env, capture_output=True, text=True,
                           check=True).stdout.split()
    if not found:
        pytest.skip("numpy's BLAS here is not an OpenBLAS that reports its thread timeout")
    assert set(found) == {expected}


# -- kgcore.api: the one place the CLI, the app and the benchmark tools import from ----------------------------
ROOT = Path(__file__).resolve().parents[2]
#: Code besides the app (tests/unit/test_ui_collections.py checks the app) that must import kgcore only through
#: kgcore.api: the CLI (which may also import its own modules) and the bench tools.
API_USERS = [*sorted((ROOT / "kgcore" / "cli").rglob("*.py")), *sorted((ROOT / "bench").glob("*.py"))]


def deep_imports(path: Path) -> list[str]:
    """``path:line module`` for each kgcore import that is neither ``kgcore.api`` nor, in the CLI, ``kgcore.cli``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "page.py"
    ...     _ = p.write_text("from kgcore.api import Store\\nfrom kgcore.index.store import Index\\nimport os\\n")
    ...     [line.split(" ", 1)[1] for line in deep_imports(p)]
    ['kgcore.index.store']
    """
    allowed = ("kgcore.api", "kgcore.cli") if "cli" in path.parts else ("kgcore.api",)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        found += [f"{path.relative_to(path.parents[1]) if path.parent != ROOT else path.name}:{node.lineno} {n}"
                  for n in names if (n == "kgcore" or n.startswith("kgcore.")) and not n.startswith(allowed)]
    return found


def test_the_cli_and_the_bench_tools_import_only_the_public_api():
    wrong = [d for path in API_USERS for d in deep_imports(path)]
    assert not wrong, "import these through kgcore.api:\n" + "\n".join(wrong)


def test_the_public_api_exports_what_it_lists():
    import kgcore.api

    missing = [name for name in kgcore.api.__all__ if not hasattr(kgcore.api, name)]
    assert not missing and len(kgcore.api.__all__) == len(set(kgcore.api.__all__))
    assert {"QueryEngine", "Store", "Index", "index_files", "METHODS", "ANSWERERS", "doctor_checks", "AuditDB",
            "evaluate", "communities", "entity_groups"} <= set(kgcore.api.__all__)


def test_doc_id_still_names_a_result_collection_with_a_warning():
    from kgcore.api import QueryResult
    from kgcore.core.deprecation import KgcoreDeprecationWarning

    result = QueryResult("Who?", "dense", "peter-rabbit", None, [], [], {}, {})
    assert result.collection == "peter-rabbit"
    with pytest.warns(KgcoreDeprecationWarning, match=r"QueryResult.doc_id is deprecated .* QueryResult.collection"):
        assert result.doc_id == "peter-rabbit"
