"""Shared fixtures: real models, a real Peter Rabbit index in a temporary store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"
PETER = ASSETS / "peter_rabbit.txt"
DEV_QA = ASSETS / "peter_rabbit_dev_qa.csv"
PETER_ID = "peter-rabbit"

# Nothing may be fetched from a model hub during tests.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


@pytest.fixture(scope="session")
def peter_store(tmp_path_factory):
    """A Store holding a real index of the bundled Peter Rabbit (SRL, heuristic coref, basic embedding)."""
    from kgcore.pipeline import index_file
    from kgcore.store import Store

    store = Store(tmp_path_factory.mktemp("store"))
    index_file(PETER, store, name=PETER_ID)
    return store


@pytest.fixture(scope="session")
def peter_index(peter_store):
    return peter_store.load(PETER_ID)


@pytest.fixture(scope="session")
def engine(peter_store):
    from kgcore.engine import QueryEngine

    return QueryEngine(peter_store)
