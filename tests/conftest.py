"""Test tiers, their markers, and the shared session fixtures (a real Peter Rabbit index in a temporary store).

Every test lives in one tier, a folder under ``tests/``; the markers follow from where a test lives
and are set here, never by hand:

    tests/unit     unit     no models (no spaCy, MiniLM or Chroma), pure logic and fakes; also every kgcore doctest
    tests/models   models   the real spaCy, MiniLM and Chroma: indexing, retrieval, answers, evaluation, audit
    tests/app      app      the Streamlit app through AppTest, and the real app in Chromium (``browser``)
    tests/faults   faults   faults injected into real processes: concurrent writers, ``kill -9``, damaged files,
                            adversarial inputs (each probe: a clear message naming the file, no traceback,
                            nothing committed lost)

``slow`` marks the few tests that index a whole novel.  ``make test-fast`` runs ``pytest tests/unit kgcore``;
``pytest -m "not slow"`` or ``-m models`` select across the tiers.

Importing this file is cheap: kgcore loads its models lazily, and the fixtures import what they use.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from wordnetkit import REASON as WORDNET_REASON
from wordnetkit import reads_wordnet

from kgcore.core import wordnet
from paths import PETER, PETER_ID, ROOT

# Nothing may be fetched from a model hub during tests.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# Every test opens the audit database it means to (a file in its store, or ``audit_location``), never a shared one.
os.environ.pop("KGCORE_AUDIT_DB_URL", None)

TESTS = Path(__file__).resolve().parent
TIERS = ("unit", "models", "app", "faults")
#: Test files that drive a real browser.
BROWSER_FILES = frozenset({"test_browser.py", "test_browser_team.py", "test_browser_auth.py", "test_browser_jobs.py",
                           "test_app_shutdown.py"})
#: (file, test function) pairs that index a whole novel: minutes, not seconds.
SLOW_TESTS = frozenset({("test_pipeline_models.py", "test_whole_novel_graph_is_grounded")})


def tier_of(path: Path) -> str | None:
    """The tier of a collected file: its folder under ``tests/``; the kgcore doctests are unit tests."""
    if path.is_relative_to(ROOT / "kgcore"):
        return "unit"
    folder = path.relative_to(TESTS).parts[0] if path.is_relative_to(TESTS) else None
    return folder if folder in TIERS else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every item with its tier (and ``browser``/``slow``); a test outside the tiers is an error."""
    stray = set()
    for item in items:
        path = Path(item.path)
        tier = tier_of(path)
        if tier is None:
            if path.is_relative_to(TESTS):
                stray.add(str(path.relative_to(ROOT)))
            continue
        item.add_marker(tier)
        if path.name in BROWSER_FILES:
            item.add_marker("browser")
        if (path.name, getattr(item, "originalname", item.name)) in SLOW_TESTS:
            item.add_marker("slow")
        if isinstance(item, pytest.DoctestItem) and reads_wordnet(item) and not wordnet.available():
            item.add_marker(pytest.mark.skip(reason=WORDNET_REASON))
    if stray:
        raise pytest.UsageError(
            "tests must live in one tier (tests/unit, tests/models, tests/app or tests/faults): "
            + ", ".join(sorted(stray)))


@pytest.fixture(scope="session")
def peter_store(tmp_path_factory):
    """A Store holding a real index of the bundled Peter Rabbit (SRL, heuristic coref, basic embedding)."""
    from kgcore.index.pipeline import index_file
    from kgcore.index.store.disk import Store

    store = Store(tmp_path_factory.mktemp("store"))
    index_file(PETER, store, name=PETER_ID)
    return store


@pytest.fixture(scope="session")
def peter_index(peter_store):
    return peter_store.load(PETER_ID)


@pytest.fixture(scope="session")
def engine(peter_store):
    from kgcore.query.engine import QueryEngine

    return QueryEngine(peter_store)


@pytest.fixture(scope="session")
def postgres():
    """A throwaway PostgreSQL server for the session (``tests/pgkit.py``); skipped, with the reason, where the
    PostgreSQL binaries are missing."""
    import pgkit

    reason = pgkit.unavailable()
    if reason:
        pytest.skip(reason)
    cluster = pgkit.start_cluster()
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def audit_location(request, tmp_path) -> str:
    """A new, empty audit database on each backend: a SQLite file path, or the URL of a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "audit.sqlite")
    return request.getfixturevalue("postgres").create_database()
