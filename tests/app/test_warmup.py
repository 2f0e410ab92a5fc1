"""The background model warm-up through the app (``streamlit.testing.v1.AppTest``, real models).

``app.py`` starts it on its first run; the Ask page then answers with the very objects it loaded (no second
embedder or spaCy pipeline); a spaCy model that cannot load fails in the background without stopping the app,
and the Ask page shows kgcore's message naming it.  Stores: private copies of the session's Peter Rabbit index.
"""

from __future__ import annotations

from apptest import app, errors, ok, store_copy

from kgcore.core.settings import Settings
from paths import PETER_ID
from ui import resources_panel as resources

QUESTION = "Where did Peter lose his shoes?"
MISSING_MODEL = "nosuchspacymodel"  # no underscore: the page escapes Markdown


def ask(question: str = QUESTION):
    at = app("pages/ask.py", doc=PETER_ID)
    at.text_input(key="ask.question").input(question)
    return at.button(key="ask.go").click().run()


def test_the_ask_page_answers_with_the_models_the_warm_up_loaded(peter_store, tmp_path):
    with store_copy(peter_store.root, tmp_path):
        app()  # the Library: app.py's first run starts the warm-up
        settings = Settings.from_env()
        status = resources.start_warm_up(settings)
        assert status.done(240) and not status.errors, status.errors
        at = ok(ask())
        assert any(QUESTION in m.value for m in at.markdown)
        engine = resources.engine()
        nlp = resources.spacy_pipeline(settings.spacy_model)
        assert engine.embedder.inner is resources.embedder(settings)  # behind the query side's string cache
        assert engine.parser("srl").nlp is nlp
        answerer = engine.generator()
        assert answerer.nlp is nlp and answerer.embedder is engine.embedder
        assert resources.start_warm_up(settings) is status  # once per process


def test_a_model_that_fails_in_the_background_is_reported_on_the_ask_page(peter_store, tmp_path, monkeypatch):
    with store_copy(peter_store.root, tmp_path):
        monkeypatch.setenv("KGCORE_SPACY_MODEL", MISSING_MODEL)
        library = ok(app())  # the app still starts and the Library still renders
        status = resources.start_warm_up()
        assert status.done(240)
        assert list(status.errors) == ["spaCy pipeline"], status.errors
        assert MISSING_MODEL in str(status.errors["spaCy pipeline"])
        assert not errors(library)
        at = ask()
        assert not at.exception, [e.value for e in at.exception]
        (message,) = errors(at)
        assert "Answering the question" in message and f"spaCy model {MISSING_MODEL!r} is not installed" in message
