"""Long-lived objects cached for the whole server process.

The :class:`~kgcore.query.engine.QueryEngine` (which holds the loaded indexes,
parsers, the embedder and the answer generators) is built once per store
root, so a second question on a document never reloads a model or an
index.  Derived tables for charts are cached with ``st.cache_data`` keyed
by the collection's ``stamp`` (it changes whenever a document is added,
removed or re-indexed), so any change invalidates them.

The models a question needs (the sentence embedder, the spaCy pipeline and
BM25's stemmer) are loaded once per process by :func:`start_warm_up`, in a
background thread that ``app.py`` starts on its first run, so they are warm
by the time the first question is asked.  Each is a ``st.cache_resource``
loader returning the very object kgcore's own per-process caches hold (the
engine then finds it there), and a page that needs one before the warm-up
is done waits on the loader's lock instead of loading it a second time.  A
model that failed in the background is not cached: the page's call loads it
again and shows kgcore's error (see :func:`query_engine`).
"""

from __future__ import annotations

import atexit
import csv
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import streamlit as st

from kgcore.api import (
    DB_NAME,
    AmrParser,
    AuditDB,
    CollectionManifest,
    Embedder,
    JobQueue,
    JobSupervisor,
    QueryEngine,
    RetrievalOptions,
    Settings,
    Store,
    bm25_tokens,
    embedder_for,
    load_spacy,
    prepare_views,
)
from ui.errors_panel import log, short_reason

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


# -- models: loaded once per process, in the background at startup ---------------------------------
def _embedder_key(s: Settings) -> tuple[str, str, str, str]:
    """What selects the embedder (the arguments :func:`kgcore.core.embed.embedder_for` passes on)."""
    return s.embedding_model, s.device, s.embedding_backend, s.model_cache


@st.cache_resource(show_spinner=False)
def _embedder(key: tuple[str, str, str, str], _settings: Settings) -> Embedder:
    return embedder_for(_settings)


def embedder(s: Settings | None = None) -> Embedder:
    """The sentence embedder ``s`` configures: the object the QueryEngine and kgcore's answerers use."""
    s = s or settings()
    return _embedder(_embedder_key(s), s)


@st.cache_resource(show_spinner=False)
def spacy_pipeline(name: str) -> Any:
    """The spaCy pipeline ``name``: the object the SRL parser and the answerers use."""
    return load_spacy(name)


@st.cache_resource(show_spinner=False)
def bm25_stemmer() -> bool:
    """BM25's stemmer and tokeniser, warmed once (PyStemmer: milliseconds since it replaced nltk's 1.1 s import)."""
    bm25_tokens("warm up")
    return True


class QueryModels(NamedTuple):
    embedder: Embedder
    nlp: Any


def query_models(s: Settings | None = None) -> QueryModels:
    """Every model a question needs, loaded (or waited for, while the warm-up loads them); raises kgcore's error
    naming the one that cannot be loaded."""
    s = s or settings()
    model = embedder(s)
    nlp = spacy_pipeline(s.spacy_model)
    bm25_stemmer()
    return QueryModels(model, nlp)


@dataclass
class WarmUp:
    """The background loading of the models: its thread, what each step took, and what failed (not lost: logged
    here, and raised again with kgcore's message when a page needs that model)."""

    thread: threading.Thread | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    errors: dict[str, BaseException] = field(default_factory=dict)

    def done(self, timeout: float | None = None) -> bool:
        if self.thread is not None:
            self.thread.join(timeout)
        return self.thread is None or not self.thread.is_alive()


def graph_library() -> None:
    """pyvis, which lays out every drawn graph (importing it imports networkx and IPython: 1-2 s, once)."""
    import pyvis.network  # noqa: F401


def chart_library() -> None:
    """Altair, which builds every chart (0.6 s to import, once; the charts' builders import it when they run)."""
    import altair  # noqa: F401


def warm_up(s: Settings, status: WarmUp | None = None) -> WarmUp:
    """Load the models a question needs, first needed first, through the cached loaders; never raises."""
    status = status or WarmUp()
    steps = (("embedder", lambda: embedder(s)), ("spaCy pipeline", lambda: spacy_pipeline(s.spacy_model)),
             ("BM25 stemmer", bm25_stemmer), ("graph drawing", graph_library), ("charts", chart_library))
    start = time.perf_counter()
    for name, load in steps:
        began = time.perf_counter()
        try:
            load()
        except Exception as exc:  # noqa: BLE001 - kept and logged; the page that needs it shows kgcore's error
            status.errors[name] = exc
            log.warning("Background loading of the %s failed (a page that needs it will say why): %s",
                        name, short_reason(exc))
        status.seconds[name] = round(time.perf_counter() - began, 3)
    status.seconds["total"] = round(time.perf_counter() - start, 3)
    log.info("Background model loading took %s s", status.seconds)
    return status


@st.cache_resource(show_spinner=False)
def _warm_up(key: tuple, _settings: Settings) -> WarmUp:
    status = WarmUp()
    status.thread = threading.Thread(target=warm_up, args=(_settings, status), name="kgcore-warm-up", daemon=True)
    status.thread.start()
    return status


def start_warm_up(s: Settings | None = None) -> WarmUp:
    """Start loading the models in a background thread, once per process (and per model settings)."""
    s = s or settings()
    return _warm_up((*_embedder_key(s), s.spacy_model), s)


# -- the engine ------------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False)
def _engine(root: str) -> QueryEngine:
    return QueryEngine(Store(root), Settings.from_env())


def get_engine(root: str) -> QueryEngine:
    """The process-wide QueryEngine for the store at ``root``, its embedder loaded (reading an index checks it)."""
    embedder()
    return _engine(root)


def engine() -> QueryEngine:
    return get_engine(store_root())


def query_engine() -> QueryEngine:
    """The engine, with every model a question needs loaded: use it to ask, evaluate or parse."""
    query_models()
    return engine()


def _prepare(root: str, name: str, options: RetrievalOptions, answerer: str) -> None:
    """:meth:`QueryEngine.prepare`, its seconds or its error logged (a question asked later reports kgcore's)."""
    try:  # the engine here: getting it waits for the embedder, which the page must not
        log.info("Prepared collection %r for questions in %s s", name,
                 get_engine(root).prepare(name, options, answerer))
    except Exception as exc:  # noqa: BLE001 - logged; the question itself reports kgcore's error
        log.warning("Preparing collection %r for questions failed: %s", name, short_reason(exc))


@st.cache_resource(show_spinner=False, max_entries=32)
def _preparation(root: str, name: str, stamp: str, options_key: str, answerer: str,
                 _options: RetrievalOptions) -> threading.Thread:
    thread = threading.Thread(target=_prepare, args=(root, name, _options, answerer), name=f"kgcore-prepare-{name}",
                              daemon=True)
    thread.start()
    return thread


def prepare_collection(manifest: CollectionManifest, options: RetrievalOptions, answerer: str) -> threading.Thread:
    """Start building what the first question on this version of the collection would wait for (the index, its
    retrieval structures for ``options``, the support calibration) in a background thread, once per store,
    collection version, options and answerer (the thread doing it); the ObliQA collection's first question otherwise
    waits about 19 s."""
    key = json.dumps(options.to_dict(), sort_keys=True)
    return _preparation(store_root(), manifest.name, manifest.stamp, key, answerer, options)


# -- the views the other pages read, prepared after the questions' structures ----------------------------------
_answering = {"count": 0}
_answering_lock = threading.Lock()


@contextmanager
def answering() -> Iterator[None]:
    """While a question is being answered: the views' preparation starts no step meanwhile."""
    with _answering_lock:
        _answering["count"] += 1
    try:
        yield
    finally:
        with _answering_lock:
            _answering["count"] -= 1


def _wait_for_questions() -> None:
    while _answering["count"] > 0:
        time.sleep(0.2)


_storing_parses = threading.Lock()
#: The views' last step: the collection's sentences parsed into the store's parse file (once per store), for the
#: offline answerer and the ranking's asked kind (:meth:`kgcore.api.QueryEngine.store_parses`).
PARSES_STEP = "storing the parses of its sentences (questions are answered meanwhile)"


@dataclass
class ViewsPreparation:
    """The background preparation of a collection's views (:func:`kgcore.api.prepare_views`): the step it is on."""

    name: str
    thread: threading.Thread | None = None
    step: str = "waiting for the questions' structures"

    def is_alive(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


def _prepare_views(root: str, status: ViewsPreparation, first: threading.Thread) -> None:
    first.join()
    try:
        engine = get_engine(root)

        def before(step: str) -> None:
            _wait_for_questions()
            status.step = step

        seconds = prepare_views(engine.index(status.name), engine.embedder, engine.settings, before)
        log.info("Prepared the views of collection %r: %s", status.name, seconds)
        before(PARSES_STEP)  # last: the answers read them back instead of parsing (a long step, once per store)
        with _storing_parses:  # one collection at a time: each is minutes of a core
            stored = engine.store_parses(status.name, pause=_wait_for_questions)
        log.info("Stored %s parses of collection %r", stored, status.name)
    except Exception as exc:  # noqa: BLE001 - logged; the page that needs the view reports kgcore's error
        log.warning("Preparing the views of collection %r failed: %s", status.name, short_reason(exc))


@st.cache_resource(show_spinner=False, max_entries=32)
def _views(root: str, name: str, stamp: str, _first: threading.Thread) -> ViewsPreparation:
    status = ViewsPreparation(name)
    status.thread = threading.Thread(target=_prepare_views, args=(root, status, _first), daemon=True,
                                     name=f"kgcore-views-{name}")
    status.thread.start()
    return status


def prepare_views_of(manifest: CollectionManifest, first: threading.Thread) -> ViewsPreparation:
    """Start building, once per collection version and after ``first`` (the questions' preparation), the views the
    Entity, Graph explorer, Merge review and Sentence pages read, so that each opens without building them."""
    return _views(store_root(), manifest.name, manifest.stamp, first)


@st.cache_resource(show_spinner=False)
def _supervisor(root: str) -> JobSupervisor:
    s = settings().with_(store_root=Path(root))
    supervisor = JobSupervisor(JobQueue(Path(root), s), s).start()
    atexit.register(supervisor.stop)  # a server stopping cancels its jobs (they also watch it, if it dies)
    return supervisor


def jobs() -> JobQueue:
    """The store's queue of background indexing jobs; this server's supervisor, which runs them, is started on
    the first call (``app.py`` makes it on every server's first run)."""
    return _supervisor(store_root()).queue


def store() -> Store:
    """The engine's store (needs no model: the Library lists and indexes while the models load)."""
    return _engine(store_root()).store


def forget(collection: str) -> None:
    """Drop the engine's loaded copy of ``collection`` (deleted, or re-indexed), and what was prepared from it."""
    _engine(store_root()).forget(collection)
    _preparation.clear()
    _views.clear()


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
def _open_db(path: str, setting: str = "path") -> AuditDB:
    return AuditDB(path, setting=setting)


def audit_db() -> AuditDB:
    """The audit database of the current index store (``<store>/audit.sqlite``, or the database of
    ``KGCORE_AUDIT_DB_URL`` when it is set), opened once per process."""
    if url := settings().audit_db_url:
        return _open_db(url, "KGCORE_AUDIT_DB_URL")
    path = str(Path(store_root()) / DB_NAME)
    if not Path(path).exists():  # the store was emptied while the server ran: create and migrate again
        _open_db.clear()
    return _open_db(path)
