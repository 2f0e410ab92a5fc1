"""The public API of kgcore: what ``import kgcore`` offers."""

from __future__ import annotations

import os
import subprocess
import sys

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
