"""Long-lived objects cached for the whole server process.

The :class:`~kgcore.query.engine.QueryEngine` (which holds the loaded indexes,
parsers, the embedder and the answer generators) is built once per store
root, so a second question on a document never reloads a model or an
index.  Derived tables for charts are cached with ``st.cache_data`` keyed
by the index's creation stamp, so a re-index invalidates them.
"""

from __future__ import annotations

import csv
from pathlib import Path

import streamlit as st

from kgcore.core.settings import Settings
from kgcore.index.manifest import Manifest
from kgcore.index.parse.amr import AmrParser
from kgcore.index.store import Store
from kgcore.query.engine import QueryEngine

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_BOOK = ROOT / "assets" / "peter_rabbit.txt"
SAMPLE_QA = ROOT / "assets" / "peter_rabbit_dev_qa.csv"
SAMPLE_DOC_ID = "peter-rabbit"


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


def documents() -> list[Manifest]:
    """Manifests of the indexed documents, newest first (never cached: must reflect deletes)."""
    return store().list()


def doc_ids() -> list[str]:
    return [m.doc_id for m in documents()]
