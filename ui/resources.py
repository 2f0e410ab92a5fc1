"""Long-lived objects cached for the whole server process.

The :class:`~kgcore.query.engine.QueryEngine` (which holds the loaded indexes,
parsers, the embedder and the answer generators) is built once per store
root, so a second question on a document never reloads a model or an
index.  Derived tables for charts are cached with ``st.cache_data`` keyed
by the collection's ``stamp`` (it changes whenever a document is added,
removed or re-indexed), so any change invalidates them.
"""

from __future__ import annotations

import csv
from pathlib import Path

import streamlit as st

from kgcore.audit import DB_NAME, AuditDB
from kgcore.core.settings import Settings
from kgcore.index.collection import CollectionManifest
from kgcore.index.parse.amr import AmrParser
from kgcore.index.store import Store
from kgcore.query.engine import QueryEngine

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_BOOK = ROOT / "assets" / "peter_rabbit.txt"
SAMPLE_QA = ROOT / "assets" / "peter_rabbit_dev_qa.csv"
#: The sample book's document id, and the collection the Library's sample button indexes it into.
SAMPLE_DOC_ID = "peter-rabbit"
SAMPLE_COLLECTION = "peter-rabbit"


def settings() -> Settings:
    """Settings from the environment (read on every run: cheap, and tests change it)."""
    return Settings.from_env()


def store_root() -> str:
    return str(Path(settings().store_root).resolve())


@st.cache_resource(show_spinner=False)
def get_engine(root: str) -> QueryEngine:
    """The process-wide QueryEngine for the store at ``root``."""
    return QueryEngine(Store(root), Settings.from_env())


def engine() -> QueryEngine:
    return get_engine(store_root())


def store() -> Store:
    return engine().store


@st.cache_resource(show_spinner=False)
def amr_status(model_dir: str) -> tuple[bool, str]:
    """Whether the AMR parser can run, and why not (checked once per model path)."""
    return AmrParser.available(model_dir)


@st.cache_data(show_spinner=False, max_entries=4)
def sample_questions() -> list[str]:
    """Development questions shipped with the sample book."""
    if not SAMPLE_QA.is_file():
        return []
    with SAMPLE_QA.open(encoding="utf-8") as fh:
        return [row["question"] for row in csv.DictReader(fh) if row.get("question")]


def collections() -> list[CollectionManifest]:
    """Manifests of the collections, most recently changed first (never cached: must reflect deletes)."""
    return store().list()


def collection_names() -> list[str]:
    """Names of the collections that can be read (damaged ones are shown, and deletable, on the Library page)."""
    return [m.name for m in collections() if not m.damaged]


@st.cache_resource(show_spinner=False)
def _open_db(path: str) -> AuditDB:
    return AuditDB(path)


def audit_db() -> AuditDB:
    """The audit database of the current index store (``<store>/audit.sqlite``), opened once per process."""
    path = str(Path(store_root()) / DB_NAME)
    if not Path(path).exists():  # the store was emptied while the server ran: create and migrate again
        _open_db.clear()
    return _open_db(path)
