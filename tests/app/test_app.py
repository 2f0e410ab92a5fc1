"""The Streamlit app through ``streamlit.testing.v1.AppTest``, with the real models.

One module-scoped store is filled by clicking the Library page's sample
button (that is the indexing test): the collection ``peter-rabbit`` of one
document; the Ask, Explorer and Sentence tests then use it.  Every test
starts a fresh AppTest session.  Collections of several documents are in
``test_collections_page.py``.
"""

from __future__ import annotations

import re
import threading
import time

import pytest
from apptest import app, errors, html_of, open_tab, settle, table
from streamlit.testing.v1 import AppTest
from wordnetkit import requires_wordnet

from kgcore.index.store.disk import Store
from ui.markup_html import anchor_id

PAGES = ("pages/library.py", "pages/ask.py", "pages/explorer.py", "pages/sentence.py")
SAMPLE_ID = "peter-rabbit"
PIE_QUESTION = "What happened to the young rabbits' father?"


def _click_label(at: AppTest, label: str) -> AppTest:
    (button,) = [b for b in at.button if b.label == label]
    return button.click().run()




def ask(at: AppTest, question: str) -> AppTest:
    at.text_input(key="ask.question").input(question)
    return at.button(key="ask.go").click().run()


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory):
    """A store indexed through the UI: Library page, sample button."""
    root = tmp_path_factory.mktemp("app_store")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(root))
        at = app()
        start = time.perf_counter()
        settle(_click_label(at, "Index the sample book (Peter Rabbit)"))
        seconds = time.perf_counter() - start
        yield {"root": root, "library": at, "seconds": seconds}


@pytest.fixture(scope="module")
def pie_id(sample_store) -> str:
    index = Store(sample_store["root"]).load(SAMPLE_ID)
    (sid,) = [s.id for s in index.sentences if "put in a pie" in s.original]
    return sid


@pytest.fixture
def empty_store(tmp_path, monkeypatch):
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "empty"))
    return tmp_path / "empty"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_an_empty_store(empty_store, page):
    at = app(page)
    assert not at.exception, [e.value for e in at.exception]
    assert not errors(at)
    text = " ".join(i.value for i in at.info)
    assert "No documents" in text


def test_library_indexes_the_sample_with_one_click(sample_store):
    at = sample_store["library"]
    assert not at.exception and not errors(at)
    store = Store(sample_store["root"])
    collection, (manifest,) = store.manifest(SAMPLE_ID), store.documents(SAMPLE_ID)
    assert collection.doc_ids == (SAMPLE_ID,) and manifest.counts.sentences > 50
    assert any(SAMPLE_ID in s.value for s in at.success)
    shown = {m.label: m.value for m in at.metric}
    assert int(shown["Sentences"]) == manifest.counts.sentences
    assert int(shown["Nodes"]) == manifest.counts.nodes
    collections = table(at, "collection")
    assert collections["collection"].tolist() == [SAMPLE_ID] and collections["documents"].tolist() == [1]
    assert collections["sentences"].iloc[0] == collection.counts.sentences
    documents = table(at, "document")
    assert documents["document"].tolist() == [SAMPLE_ID] and documents["sentences"].iloc[0] == manifest.counts.sentences
    assert documents["file"].tolist() == ["peter_rabbit.txt"]


def test_ask_shows_the_pie_sentence_answer_and_graphs(sample_store, pie_id):
    at = app("pages/ask.py")
    assert any("offline extractive answerer" in i.value for i in at.info)
    start = time.perf_counter()
    ask(at, PIE_QUESTION)
    first = time.perf_counter() - start
    assert not at.exception and not errors(at), errors(at)
    html = html_of(at)
    assert pie_id.startswith(f"{SAMPLE_ID}/text_")
    assert f'id="{anchor_id(pie_id)}"' in html and f">{pie_id}</a>" in html
    assert f'<span class="kg-doc" title="peter_rabbit.txt">{SAMPLE_ID}</span>' in html  # every sentence names its doc
    assert 'class="kg-answer"' in html and "<mark" in html
    # The offline answerer quotes the pie sentence (it once quoted "There was no room for a fat little rabbit ...",
    # which MiniLM ranks higher).
    answer = html.split('class="kg-answer"', 1)[1].split("</div>", 1)[0]
    # the answer-type span (an action for "what happened") is marked in the quote
    assert f'title="{pie_id}"' in answer and "put in a pie" in re.sub(r"<[^>]+>", "", answer)
    assert '<mark class="kg-span">' in answer
    # the verdict is shown under the answer in the box of its state, naming the cited sentence; its evidence (the
    # cited sentence with the question's words and the answer-type span marked) in the expander below it
    boxes = {"supported": at.success, "not supported": at.warning, "unsure": at.info}
    verdicts = [(state, b.value) for state, box in boxes.items() for b in box
                if b.value.startswith(("Supported:", "Not supported by the document", "Unsure:"))]
    assert len(verdicts) == 1, verdicts
    state, reason = verdicts[0]
    assert pie_id.replace("_", "\\_") in reason or pie_id in reason
    assert 'class="kg-verdict"' in html and 'class="kg-evidence"' in html
    evidence = html.split('class="kg-verdict"', 1)[1]
    assert f'title="{pie_id}"' in evidence and '<mark class="kg-m">father</mark>' in evidence
    assert "asks for: an action or event" in evidence and "question words found: father" in evidence
    # the answer pick's next best sentences, each a link to its place in the context, none the quoted one
    assert any(e.label.startswith("Next best sentences (") for e in at.expander)
    others = html.split('class="kg-alternatives"', 1)[1].split("</ol>", 1)[0]
    assert others.count("<li>") >= 1 and 'class="kg-cite"' in others and f'title="{pie_id}"' not in others
    # why each sentence ranked: the query node "father" aligned to the graph's father node
    assert 'class="kg-aligned"' in html and "<b>father</b> → father" in html
    labels = {m.label for m in at.metric}
    assert {"Context sentences", "Context words", "Share of document", "Retrieval", "Answer"} <= labels
    matches = at.dataframe[-1].value if len(at.dataframe) else None
    assert matches is not None and {"query node", "matched node", "score"} <= set(matches.columns)
    # A second question reuses the cached engine: no model or index is loaded again.
    start = time.perf_counter()
    ask(at, "Where did Peter lose his shoes?")
    assert not at.exception and not errors(at)
    assert time.perf_counter() - start < max(5.0, first)


@requires_wordnet
def test_ask_says_when_a_name_is_read_in_the_books_spelling(sample_store):
    at = app("pages/ask.py")
    ask(at, "What did Mr. McGreggor plant?")
    assert not at.exception and not errors(at), errors(at)
    notes = [c.value for c in at.caption if "spelling of the collection" in c.value]
    assert len(notes) == 1 and "McGreggor as “McGregor”" in notes[0]


def test_ask_compares_two_methods(sample_store, pie_id):
    at = app("pages/ask.py")
    at.toggle(key="ask.compare").set_value(True).run()
    at.selectbox(key="ask.other").set_value("bm25").run()
    ask(at, PIE_QUESTION)
    assert not at.exception and not errors(at)
    html = html_of(at)
    assert "**Overlap:**" in html and ("in both" in html or "only here" in html)
    assert {s.value for s in at.subheader} >= {"GroundedKG (graph nodes)", "BM25 (keywords)"}
    assert 'id="a-' in html and 'id="b-' in html


def test_ask_budget_starts_from_the_settings(sample_store, monkeypatch):
    """The word budget starts at ``KGCORE_BUDGET_WORDS`` (1,000 by default, as the CLI's ``ask``)."""
    assert app("pages/ask.py").number_input(key="ask.budget_words").value == 1000
    monkeypatch.setenv("KGCORE_BUDGET_WORDS", "40")
    at = ask(app("pages/ask.py"), "Who lived in the sand-bank?")  # not PIE_QUESTION: its audit record is tested
    assert not at.exception and not errors(at)
    assert at.number_input(key="ask.budget_words").value == 40
    assert at.session_state["ask.budget_words"] == 40


def test_opening_ask_prepares_the_collection_in_the_background(sample_store):
    """Picking a collection on Ask starts loading it and building its retrieval structures in a thread, so the
    first question does not wait for them."""
    from ui import resources_panel as resources

    engine = resources.get_engine(str(sample_store["root"].resolve()))
    resources.forget(SAMPLE_ID)  # as the Library does on re-index: the next visit prepares again
    at = app("pages/ask.py")
    assert not at.exception and not errors(at)
    threads = [t for t in threading.enumerate() if t.name == f"kgcore-prepare-{SAMPLE_ID}"]
    for thread in threads:
        thread.join(120)
    index = engine.index(SAMPLE_ID)
    assert any(key.name == "context-graph" for key in index.cache.keys()), index.cache.keys()
    for thread in [t for t in threading.enumerate() if t.name == f"kgcore-views-{SAMPLE_ID}"]:
        thread.join(300)  # the other pages' views, built next (tested below)
    built = set(index.cache.keys())
    at = ask(app("pages/ask.py"), "What did Mrs. Rabbit buy?")
    assert not at.exception and 'class="kg-answer"' in html_of(at)
    assert set(index.cache.keys()) == built
    # Comparing with BM25 prepares its model too (the fused ranking builds only the expanded one).
    assert "bm25" not in {key.name for key in built}
    at.toggle(key="ask.compare").set_value(True).run()
    at.selectbox(key="ask.other").set_value("bm25").run()
    for thread in [t for t in threading.enumerate() if t.name == f"kgcore-prepare-{SAMPLE_ID}"]:
        thread.join(120)
    assert "bm25" in {key.name for key in index.cache.keys()}


def test_the_preparing_status_never_stays_under_the_answer(sample_store, monkeypatch):
    """While the collection is being prepared the page says so under the question; the run that answers (it waits
    for the preparation) draws no such line, so none is left under the answer."""
    from ui import resources_panel as resources

    hold = threading.Event()
    preparing = threading.Thread(target=hold.wait, daemon=True)  # a preparation that is still running
    preparing.start()
    monkeypatch.setattr(resources, "prepare_collection", lambda *args: preparing)
    try:
        at = app("pages/ask.py")
        assert any("Preparing this collection" in c.value for c in at.caption)
        at = ask(at, PIE_QUESTION)
        assert not at.exception and 'class="kg-answer"' in html_of(at)
        assert not [c.value for c in at.caption if "Preparing this collection" in c.value]
    finally:
        hold.set()


def test_the_answer_subgraph_is_what_the_answer_used(sample_store):
    """The graph starts at the matches grounding the cited sentences (at most 40 nodes, "show more" adds more);
    light verbs are neither listed as matches nor drawn as nodes."""
    from ui.answer_graph_view import is_light_verb

    at = ask(app("pages/ask.py"), "What did Peter's mother give to Peter?")
    assert not at.exception and not errors(at), errors(at)
    outcome = at.session_state["kg_app_state"].ask
    assert any(is_light_verb(m.label) for m in outcome.main.result.matches)  # "give" matched give_N nodes
    matches = table(at, "matched node", "score")
    actions = matches[matches["type"] == "action"]["matched node"]
    assert len(matches) and not [label for label in actions if is_light_verb(label)]
    (drawn,) = [c.value for c in at.caption if "shortest paths joining them" in c.value]
    shown = int(re.match(r"(\d+) nodes: ", drawn).group(1))
    assert 0 < shown <= 40 and "grounding the cited sentences" in drawn and "Light verbs are drawn as edges" in drawn
    more = [b for b in at.button if b.label.startswith("Show more")]
    if more:  # a larger picture on request
        at = more[0].click().run()
        (wider,) = [c.value for c in at.caption if "shortest paths joining them" in c.value]
        assert int(re.match(r"(\d+) nodes: ", wider).group(1)) >= shown


def test_the_views_are_prepared_after_the_questions_structures(sample_store):
    """Opening Ask also builds, in the background once the questions' structures are ready, the views the other
    pages read: the Entity, Merge review and Sentence pages then open without building anything."""
    from ui import resources_panel as resources

    engine = resources.get_engine(str(sample_store["root"].resolve()))
    resources.forget(SAMPLE_ID)
    at = app("pages/ask.py")
    assert not at.exception and not errors(at)
    for name in (f"kgcore-prepare-{SAMPLE_ID}", f"kgcore-views-{SAMPLE_ID}"):
        for thread in [t for t in threading.enumerate() if t.name == name]:
            thread.join(300)
    index = engine.index(SAMPLE_ID)
    built = set(index.cache.keys())
    assert "entity-groups" in {key.name for key in built} and any(key.name.startswith("communities:") for key in built)
    for page in ("pages/entity.py", "pages/entities_review.py", "pages/sentence.py"):
        at = app(page)
        assert not at.exception and not errors(at), (page, errors(at))
    # only what is built per item: the shown entity's own description, the shown sentence's document's QA pairs
    added = {key.name.split(":")[0] for key in set(index.cache.keys()) - built}
    assert added <= {"entity-description", "qa-document-pairs"}, added


def test_selecting_a_match_highlights_it(sample_store):
    at = ask(app("pages/ask.py"), PIE_QUESTION)
    (key,) = [k for k in at.session_state if k.startswith("ask.matches.")]
    table = at.dataframe[-1].value
    row = int(table.index[table["matched node"] == "pie"][0]) if "pie" in set(table["matched node"]) else 0
    at.session_state[key] = {"selection": {"rows": [row], "columns": []}}
    at.run()
    assert not at.exception and not errors(at)
    label = table["matched node"].iloc[row]
    assert any(i.value.startswith(f"Selected **{label}**") for i in at.info)
    assert '<mark class="kg-sel">' in html_of(at) and 'class="kg-sent kg-focus"' in html_of(at)


def test_unconfigured_answer_endpoint_is_an_error(sample_store):
    at = app("pages/ask.py")
    at.selectbox(key="ask.answerer").set_value("openai").run()
    ask(at, PIE_QUESTION)
    assert not at.exception
    assert any("OPENAI" in e.upper() for e in errors(at)), errors(at)
    assert 'class="kg-answer"' not in html_of(at)


def test_unreachable_answer_endpoint_is_an_error(empty_store, monkeypatch):
    for name, value in {"KGCORE_OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "KGCORE_OPENAI_MODEL": "nobody",
                        "KGCORE_OPENAI_RETRIES": "0", "KGCORE_OPENAI_TIMEOUT_S": "2"}.items():
        monkeypatch.setenv(name, value)
    at = _upload(app(), "tiny.txt", b"Peter lost his shoes in the garden. Mr. McGregor found them.")
    at.switch_page("pages/ask.py").run()
    assert at.selectbox(key="ask.answerer").value == "openai"  # configured endpoints are the default
    ask(at, "Who found the shoes?")
    assert not at.exception
    assert any("127.0.0.1:9" in e or "connect" in e.lower() for e in errors(at)), errors(at)


def test_ask_refuses_an_empty_question(sample_store):
    at = ask(app("pages/ask.py"), "   ")
    assert not at.exception
    assert any("question" in e and "empty" in e for e in errors(at))
    assert 'class="kg-answer"' not in html_of(at)


def test_unknown_document_is_an_error_not_a_traceback(sample_store):
    at = app("pages/ask.py", doc="no-such-book")
    assert not at.exception
    assert any("no-such-book" in e and "No collection" in e for e in errors(at))
    assert at.selectbox(key="ask.doc").value == SAMPLE_ID  # the page still works with the indexed ones


def _upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="library.files").set_value((name, data, "text/plain")).run()
    return settle(_click_label(at, "Index uploaded files"))


@pytest.mark.parametrize("name, data, reason", [
    ("binary.txt", b"\x00\x01\x02" * 100, "binary"),
    ("empty.md", b"", "empty"),
])
def test_bad_uploads_are_reported(empty_store, name, data, reason):
    at = _upload(app(), name, data)
    assert not at.exception
    assert any(reason in e and name in e for e in errors(at)), errors(at)
    assert not Store(empty_store).list()


def test_upload_over_the_size_limit_is_refused(empty_store, monkeypatch):
    monkeypatch.setenv("KGCORE_MAX_FILE_MB", "0.001")
    at = _upload(app(), "big.txt", b"Peter ran home. " * 200)
    assert any("big.txt" in e and "MB" in e for e in errors(at)), errors(at)
    assert not Store(empty_store).list()


def test_upload_reindex_and_delete_with_confirmation(empty_store):
    at = app()
    at.selectbox(key="library.embedding").set_value("neighbor").run()
    at = _upload(at, "tiny.txt", b"Peter lost his shoes in the garden. Mr. McGregor found them.")
    assert not at.exception and not errors(at), errors(at)
    store = Store(empty_store)
    assert [m.name for m in store.list()] == ["tiny"] and store.manifest("tiny").doc_ids == ("tiny",)
    assert store.manifest("tiny").options.embedding == "neighbor"
    generation = store.manifest("tiny").generation
    _click_label(at, "Re-index document…")
    assert any("Re-index **tiny** in **tiny** from its kept source file" in w.value for w in at.warning)
    settle(_click_label(at, "Yes, re-index"))
    assert not at.exception and not errors(at), errors(at)
    assert store.manifest("tiny").generation > generation  # rebuilt, with the collection's own options
    assert store.manifest("tiny").options.embedding == "neighbor"
    # The last document cannot be removed: the page offers deleting the collection instead.
    _click_label(at, "Remove document…")
    assert any("only document of **tiny**" in w.value for w in at.warning)
    _click_label(at, "Delete the collection…")
    assert any("cannot be undone" in w.value for w in at.warning)
    assert store.exists("tiny")  # nothing happens before the confirmation
    _click_label(at, "Yes, delete")
    assert not at.exception and not store.list()
    assert any("No documents" in i.value for i in at.info)


def test_narrator_option_on_the_library_page(empty_store):
    at = app()
    at.text_input(key="library.narrator").input("Tom <b>").run()
    # the value is echoed markdown-escaped, never as markup
    assert any("narrator: expected auto, none or a name" in e and r"Tom \<b\>" in e for e in errors(at)), errors(at)
    assert all(
        b.disabled for b in at.button if b.label in ("Index the sample book (Peter Rabbit)", "Index uploaded files")
    )
    at.text_input(key="library.narrator").input("auto").run()
    story = (b"My name is Tom Harlow, and I was born by the sea. My father was a rope-maker. "
             b"I went to sea at sixteen. I built a hut on the island.")
    _upload(at, "harlow.txt", story)
    assert not at.exception and not errors(at), errors(at)
    assert any("resolved to **Tom Harlow**" in c.value for c in at.caption), [c.value for c in at.caption]
    assert Store(empty_store).documents("harlow")[0].narrator.name == "Tom Harlow"
    assert table(at, "narrator")["narrator"].tolist() == ["Tom Harlow"]


def test_uploaded_markup_is_shown_as_text(empty_store):
    payload = b"Peter found <script>alert(1)</script> in the shed. The <img src=x onerror=alert(1)> basket was empty."
    at = _upload(app(), "evil.txt", payload)
    assert not errors(at), errors(at)
    pages = {}
    at.switch_page("pages/ask.py").run()
    pages["ask"] = html_of(ask(at, "What did Peter find in the shed?"))
    at.switch_page("pages/explorer.py").run()
    pages["explorer"] = html_of(at.text_input(key="explorer.query").input("basket").run())
    pages["sentence"] = html_of(at.switch_page("pages/sentence.py").run())
    assert not at.exception and not errors(at)
    for name, page_html in pages.items():
        assert "<script>alert" not in page_html and "<img src=x" not in page_html, name
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages["sentence"]
    assert '<mark class="kg-here">' in pages["sentence"]  # the source view marks the sentence in its paragraph
    assert "&lt;img src=x onerror=alert(1)&gt;" in pages["explorer"]
    assert "&lt;" in pages["ask"]


def test_explorer_searches_and_draws_a_neighbourhood(sample_store, pie_id):
    at = app("pages/explorer.py")
    at.text_input(key="explorer.query").input("pie").run()
    assert not at.exception and not errors(at)
    html = html_of(at)
    assert "Neighbourhood of" in html and f">{pie_id}</a>" in html
    assert not at.get("download_button")  # only the open tab runs
    at.text_input(key="explorer.query").input("zzzz-no-such-node").run()
    assert any("No node" in w.value for w in at.warning)
    open_tab(at, "Download")
    assert not at.exception and "Neighbourhood of" not in html_of(at)
    assert {b.label for b in at.get("download_button")} >= {"Download JSON (node-link)", "Download GraphML"}


UNNAMED_NARRATOR = """I walked to the old gate in the morning. I saw the porter near the wall.

I asked the porter for the key. I waited by the gate for an hour.

I found the garden behind the wall. I picked three red apples there.

The porter locked the gate again at noon.
"""


def test_explorer_opens_on_a_named_node_not_a_pronoun_hub(empty_store):
    """A narrator who never gives a name stays "I", the most connected node (as dialogue's "I", one node for every
    speaker); the explorer lists pronouns last, so it opens on a node that names something."""
    at = _upload(app(), "walk.txt", UNNAMED_NARRATOR.encode())
    assert not at.exception and not errors(at), errors(at)
    at.switch_page("pages/explorer.py").run()
    assert not at.exception and not errors(at)
    index = Store(empty_store).load("walk")
    degree = {n: sum(n in (e.source, e.target) for e in index.graph.edges) for n in index.graph.nodes}
    hub = max(degree, key=degree.get)
    assert index.graph.nodes[hub].label == "I"  # the premise: the pronoun is the hub
    heading = next(m.value for m in at.markdown if m.value.startswith("**Neighbourhood of"))
    assert "**Neighbourhood of I**" not in heading
    assert any("pronouns last" in c.value for c in at.caption)


def test_sentence_page_shows_parse_and_graph(sample_store, pie_id):
    at = app("pages/sentence.py", doc=SAMPLE_ID, sid=pie_id)
    assert not at.exception and not errors(at)
    html = html_of(at)
    assert "put in a pie" in html and "Graph built from this sentence" in html
    frames = at.dataframe[0].value
    assert "put" in " ".join(frames["predicate"])
    at.text_input(key="sentence.sid").input("text_9-999").run()
    assert any("text\\_9-999" in e for e in errors(at))


def test_ask_page_labels_the_answer_into_the_audit_database(sample_store):
    from kgcore.audit import AuditDB

    AuditDB.for_store(sample_store["root"]).add_reviewer("Ada")
    at = app("pages/ask.py")
    assert at.sidebar.selectbox(key="identity.choice").value is None
    assert all(b.disabled for b in at.button if b.label == "Answer is correct")  # nobody is reviewing yet
    at.sidebar.selectbox(key="identity.choice").set_value("Ada").run()
    ask(at, PIE_QUESTION)
    assert not at.exception and not errors(at), errors(at)
    assert any("Audit record #" in c.value for c in at.caption)
    (correct,) = [b for b in at.button if b.label == "Answer is correct"]
    correct.click().run()
    assert not at.exception and not errors(at), errors(at)
    db = AuditDB.for_store(sample_store["root"])
    (record,) = [r for r in db.list_records() if r.question == PIE_QUESTION]
    labels = db.labels_for(record.id)
    assert [(lab.label_type, lab.author, lab.source) for lab in labels] == [("correct", "Ada", "human")]
    # The Review page: the same reviewer, and the label.
    at.switch_page("pages/review.py").run()
    assert not at.exception and not errors(at), errors(at)
    assert at.sidebar.selectbox(key="identity.choice").value == "Ada" and at.query_params["reviewer"] == "Ada"
    shown = table(at, "author")
    assert ("correct", "Ada") in set(zip(shown["type"], shown["author"]))


def test_a_next_best_sentence_is_labelled_as_the_one_that_answers(sample_store):
    """"This one answers it (III)" beside one of the answer pick's next best sentences: a III label on the answer
    whose note names that sentence and quotes it."""
    from kgcore.audit import AuditDB
    from kgcore.audit.model import record_to_result

    AuditDB.for_store(sample_store["root"]).add_reviewer("Bea")
    at = app("pages/ask.py")
    at.sidebar.selectbox(key="identity.choice").set_value("Bea").run()
    ask(at, "Where did Peter lose his shoes?")
    assert not at.exception and not errors(at), errors(at)
    buttons = [b for b in at.button if b.label == "This one answers it (III)"]
    assert 1 <= len(buttons) <= 3 and not any(b.disabled for b in buttons)
    buttons[0].click().run()
    assert not at.exception and not errors(at), errors(at)
    db = AuditDB.for_store(sample_store["root"])
    (record,) = [r for r in db.list_records() if r.question == "Where did Peter lose his shoes?"]
    (label,) = db.labels_for(record.id)
    first = record_to_result(record)[1].verdict.alternatives[0]  # the stored answer keeps its next best sentences
    assert (label.label_type, label.artifact_kind) == ("III", "record")  # stage III labels the answer
    assert first.sentence_id in label.note and first.quote in label.note and label.author == "Bea"
