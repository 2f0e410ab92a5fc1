"""Long-lived objects cached for the whole server process.

The :class:`~kgcore.engine.QueryEngine` (which holds the loaded indexes,
parsers, the embedder and the answer generators) is built once per store
root, so a second question on a document never reloads a model or an
index.  Derived tables for charts are cached with ``st.cache_data`` keyed
by the index's creation stamp, so a re-index invalidates them.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from kgcore.settings import Settings

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
def get_engine(root: str):
    """The process-wide QueryEngine for the store at ``root``."""
    from kgcore.engine import QueryEngine
    from kgcore.store import Store

    return QueryEngine(Store(root), Settings.from_env())


def engine():
    return get_engine(store_root())


def store():
    return engine().store


@st.cache_resource(show_spinner=False)
def amr_status(model_dir: str) -> tuple[bool, str]:
    """Whether the AMR parser can run, and why not (checked once per model path)."""
    try:
        from kgcore.amr import AmrParser
    except ImportError as exc:
        return False, f"the AMR backend is not installed ({exc})"
    return AmrParser.available(model_dir)


@st.cache_data(show_spinner=False, max_entries=4)
def sample_questions() -> list[str]:
    """Development questions shipped with the sample book."""
    import csv

    if not SAMPLE_QA.is_file():
        return []
    with SAMPLE_QA.open(encoding="utf-8") as fh:
        return [row["question"] for row in csv.DictReader(fh) if row.get("question")]


def documents() -> list[dict]:
    """Manifests of the indexed documents, newest first (never cached: must reflect deletes)."""
    return store().list()


def doc_ids() -> list[str]:
    return [m["doc_id"] for m in documents()]
