"""The app's background model warm-up (``ui.resources_panel``), with fake loaders instead of the models.

It starts once per process; the pages get the very objects it loaded; a page that needs a model while the
warm-up is still loading it waits instead of loading it a second time; a model that fails in the background is
kept and logged, and the page that needs it gets kgcore's error (the loader runs again, so a fixed model loads);
the Library's store needs no model at all.
"""

from __future__ import annotations

import logging
import threading
from types import SimpleNamespace

import pytest

from kgcore.core.errors import ModelUnavailableError
from kgcore.core.settings import Settings
from ui import resources_panel as resources

MISSING = "spaCy model 'en_core_web_missing' is not installed. Install the offline package."


def clear_caches() -> None:
    for cached in (resources._embedder, resources.spacy_pipeline, resources.bm25_stemmer, resources._warm_up,
                   resources._engine):
        cached.clear()


@pytest.fixture
def fakes(monkeypatch, tmp_path):
    """Fake loaders that count their calls; ``hold`` makes the spaCy loader wait until ``release`` is set."""
    calls = {"embedder": 0, "spacy": 0, "bm25": 0}
    loaded = {}
    fake = SimpleNamespace(calls=calls, loaded=loaded, entered=threading.Event(), release=threading.Event(),
                           hold=False, fail=None)

    def embedder_for(settings):
        calls["embedder"] += 1
        loaded["embedder"] = object()
        return loaded["embedder"]

    def load_spacy(name):
        calls["spacy"] += 1
        fake.entered.set()
        if fake.hold:
            assert fake.release.wait(10)
        if fake.fail is not None:
            raise fake.fail
        loaded["spacy"] = SimpleNamespace(name=name)
        return loaded["spacy"]

    def bm25_tokens(text):
        calls["bm25"] += 1
        return text.split()

    monkeypatch.setattr(resources, "embedder_for", embedder_for)
    monkeypatch.setattr(resources, "load_spacy", load_spacy)
    monkeypatch.setattr(resources, "bm25_tokens", bm25_tokens)
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "store"))
    clear_caches()
    yield fake
    fake.release.set()
    for thread in threading.enumerate():  # a held warm-up finishes now: its result must not land in the next test
        if thread.name == "kgcore-warm-up":
            thread.join(10)
    clear_caches()


def test_warm_up_loads_each_model_once_and_the_pages_get_the_same_objects(fakes, monkeypatch):
    drawing: list[str] = []  # the graph and chart libraries are imported in the background, not by the first page
    monkeypatch.setattr(resources, "graph_library", lambda: drawing.append("pyvis"))
    monkeypatch.setattr(resources, "chart_library", lambda: drawing.append("altair"))
    settings = Settings.from_env()
    status = resources.start_warm_up(settings)
    assert status.done(10), "the warm-up thread did not finish"
    assert status.thread.daemon and not status.errors
    assert set(status.seconds) == {"embedder", "spaCy pipeline", "BM25 stemmer", "graph drawing", "charts", "total"}
    assert drawing == ["pyvis", "altair"]
    models = resources.query_models(settings)
    assert models.embedder is fakes.loaded["embedder"] and models.nlp is fakes.loaded["spacy"]
    assert resources.embedder() is fakes.loaded["embedder"]
    assert resources.spacy_pipeline(settings.spacy_model) is fakes.loaded["spacy"]
    assert resources.start_warm_up(settings) is status  # every later run of app.py: no second thread
    assert fakes.calls == {"embedder": 1, "spacy": 1, "bm25": 1}


def test_a_page_that_needs_a_model_while_it_loads_waits_for_it(fakes):
    fakes.hold = True
    settings = Settings.from_env()
    status = resources.start_warm_up(settings)
    assert fakes.entered.wait(10)  # the warm-up is inside the spaCy loader now
    got = {}
    page = threading.Thread(target=lambda: got.update(models=resources.query_models(settings)))
    page.start()
    page.join(0.3)
    assert page.is_alive() and not got, "the page must wait for the model being loaded"
    fakes.release.set()
    page.join(10)
    assert status.done(10) and not status.errors
    assert got["models"].nlp is fakes.loaded["spacy"]
    assert fakes.calls["spacy"] == 1, "loaded a second time"


def test_the_store_needs_no_model(fakes):
    fakes.hold = True
    resources.start_warm_up()
    assert fakes.entered.wait(10)
    assert resources.store().root  # the Library lists and indexes while the models load
    assert fakes.calls["spacy"] == 1


def test_a_model_that_fails_in_the_background_reaches_the_page(fakes, caplog):
    fakes.fail = ModelUnavailableError(MISSING)
    settings = Settings.from_env()
    with caplog.at_level(logging.WARNING, logger="groundedkg.app"):
        status = resources.start_warm_up(settings)
        assert status.done(10)
    assert status.errors.keys() == {"spaCy pipeline"}
    assert status.errors["spaCy pipeline"] is fakes.fail  # kept, not lost
    assert "spaCy pipeline" in caplog.text and "en_core_web_missing" in caplog.text
    assert fakes.calls == {"embedder": 1, "spacy": 1, "bm25": 1}  # the others still loaded
    with pytest.raises(ModelUnavailableError, match="en_core_web_missing"):
        resources.query_engine()  # what the Ask page calls: kgcore's own error, shown by ui.errors_panel.reported
    fakes.fail = None  # a failure is not cached: once the model is there, the page loads it
    assert resources.query_models(settings).nlp is fakes.loaded["spacy"]
    assert fakes.calls["spacy"] == 3
