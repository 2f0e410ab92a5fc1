"""Collections of several documents through the app (``streamlit.testing.v1.AppTest``, real models).

One module-scoped collection, ``my-shelf``, is created on the Library page
from three uploads written for these tests (two short texts and a one-page
PDF); the Ask, Sentence and Explorer tests use it.  Tests that change a
collection make their own store.
"""

from __future__ import annotations

import re
import shutil

import pytest
from apptest import app, errors, html_of, open_tab, settle, table
from pdfs import pdf_with_text
from streamlit.testing.v1 import AppTest

from kgcore.index.store.disk import Store
from paths import DATA
from ui.markup_html import anchor_id

SHELF = "my-shelf"
# Self-written: "Peter" (a name) is in every document; "father" (a common noun) is somebody else in each.
RABBIT = (b"Peter was a young rabbit who lived under a fir tree. His father had been put in a pie by Mrs. McGregor. "
          b"Peter squeezed under the gate of the garden and ate some radishes.")
PAN = (b"Peter Pan flew over the roofs of London with Wendy and her brothers. Wendy's father was a clerk in the city."
       b"\n\nCaptain Hook hated Peter because he had lost his hand to a crocodile. "
       b"The crocodile had swallowed a clock.")
GARDEN_LINES = ["The garden gate was painted green.", "Peter ran under the gate at noon."]




def click(at: AppTest, label: str) -> AppTest:
    (button,) = [b for b in at.button if b.label == label]
    return button.click().run()


def upload(at: AppTest, files: list[tuple[str, bytes]], collection: str = "") -> AppTest:
    """Upload ``files`` on the Library page into ``collection`` (new when it does not exist; "" = one per file)."""
    if collection in at.selectbox(key="library.target").options:
        at.selectbox(key="library.target").set_value(collection).run()
    elif collection:
        at.text_input(key="library.new_name").input(collection).run()
    mime = {"pdf": "application/pdf"}
    at.file_uploader(key="library.files").set_value(
        [(name, data, mime.get(name.rsplit(".", 1)[-1], "text/plain")) for name, data in files]).run()
    return settle(click(at, "Index uploaded files"))


def ask(at: AppTest, question: str) -> AppTest:
    at.text_input(key="ask.question").input(question)
    return at.button(key="ask.go").click().run()


def shown_order(html: str) -> list[str]:
    """Anchor ids of the context sentences, in the order the page lists them."""
    return re.findall(r'class="kg-sent[^"]*" id="(s-[^"]+)"', html)


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    """The Library page after creating ``my-shelf`` from three uploads (typed as "My Shelf")."""
    root = tmp_path_factory.mktemp("shelf_store")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(root))
        at = upload(app(), [("rabbit.txt", RABBIT), ("pan.txt", PAN), ("garden.pdf", pdf_with_text(GARDEN_LINES))],
                    "My Shelf")
        yield {"root": root, "library": at, "store": Store(root)}


def sentence_id(shelf, text: str) -> str:
    (sid,) = [s.id for s in shelf["store"].load(SHELF).sentences if text in s.original]
    return sid


def test_create_a_collection_from_uploads(shelf):
    at = shelf["library"]
    assert not at.exception and not errors(at), errors(at)
    manifest = shelf["store"].manifest(SHELF)
    assert manifest.doc_ids == ("rabbit", "pan", "garden")
    for doc, file in (("rabbit", "rabbit.txt"), ("pan", "pan.txt"), ("garden", "garden.pdf")):
        assert any(f"Indexed **{doc}** ({file}) into collection **{SHELF}**" in s.value for s in at.success)
    collections = table(at, "collection")
    assert collections["collection"].tolist() == [SHELF] and collections["documents"].tolist() == [3]
    assert collections["shared entities"].iloc[0] == manifest.counts.shared_entities >= 1
    assert table(at, "document")["file"].tolist() == ["rabbit.txt", "pan.txt", "garden.pdf"]
    assert any(f"Collection **{SHELF}**: 3 document(s)" in c.value for c in at.caption)


def test_two_files_with_one_id_in_a_batch(empty_store):
    at = upload(app(), [("Story.txt", RABBIT), ("story.TXT", PAN)], "tales")
    assert not at.exception
    assert any("story.TXT" in e and "same document id 'story' as Story.txt" in e for e in errors(at)), errors(at)
    assert any("Indexed **story** (Story.txt) into collection **tales**" in s.value for s in at.success)
    assert Store(empty_store).manifest("tales").doc_ids == ("story",)


def test_ask_within_one_document(shelf):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(shelf["root"]))
        at = app("pages/ask.py", doc=SHELF)
        assert at.selectbox(key="ask.doc").value == SHELF
        at.multiselect(key=f"ask.documents.{SHELF}").set_value(["pan"]).run()
        ask(at, "Who hated Peter?")
    assert not at.exception and not errors(at), errors(at)
    html = html_of(at)
    badges = re.findall(r'<span class="kg-doc" title="([^"]*)">([^<]+)</span>', html)
    assert badges and set(badges) == {("pan.txt", "pan")}  # every context sentence is from pan
    assert "Captain Hook hated Peter" in re.sub(r"<[^>]+>", "", html)  # its answer span is marked
    assert any("Asked of documents **pan**" in c.value for c in at.caption)
    result = at.session_state["kg_app_state"].ask.main.result
    assert result.settings["documents"] == ["pan"] and {s.document for s in result.sentences} == {"pan"}
    # the context's share is of pan's words, not of the collection's
    (share,) = [m for m in at.metric if m.label.startswith("Share of")]
    pan_words = shelf["store"].manifest(SHELF).document("pan").manifest.counts.words
    assert share.label == "Share of documents asked" and pan_words < shelf["store"].manifest(SHELF).counts.words
    assert share.value == f"{100 * result.context_words / pan_words:.1f} %"


def test_reading_and_rank_order(shelf):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(shelf["root"]))
        at = ask(app("pages/ask.py", doc=SHELF), "Who hated Peter?")
        assert not at.exception and not errors(at), errors(at)
        sentences = at.session_state["kg_app_state"].ask.main.result.sentences
        reading = [anchor_id(s.id) for s in sorted(sentences, key=lambda s: s.position)]
        ranked = [anchor_id(s.id) for s in sorted(sentences, key=lambda s: s.rank)]
        # rank order by default: the best sentence (Captain Hook's) comes first, the cited ones marked
        assert at.radio(key="ask.order").value == "rank" and shown_order(html_of(at)) == ranked != reading
        assert 'class="kg-dochead"' not in html_of(at)
        cited = {sid for c in at.session_state["kg_app_state"].ask.main.answer.citations for sid in c.sentence_ids}
        marked = re.findall(r'<div class="kg-sent[^"]*kg-cited-sent[^"]*" id="([^"]+)"', html_of(at))
        assert cited and set(marked) == {anchor_id(sid) for sid in cited}
        at.radio(key="ask.order").set_value("reading").run()
    assert not at.exception and not errors(at)
    assert shown_order(html_of(at)) == reading
    documents = list(dict.fromkeys(s.document for s in sorted(sentences, key=lambda s: s.position)))
    headings = re.findall(r'<div class="kg-dochead">([^ <]+)', html_of(at))
    assert len(documents) > 1 and headings == documents  # one heading per document, in reading order


def test_source_view_of_a_sentence(shelf):
    sid = sentence_id(shelf, "Captain Hook hated Peter")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(shelf["root"]))
        at = app("pages/sentence.py", doc=SHELF, sid=sid)
    assert not at.exception and not errors(at), errors(at)
    assert any(f"Document **pan** of collection **{SHELF}** · file *pan.txt*" in m.value for m in at.markdown)
    html = html_of(at)
    assert '<mark class="kg-here">Captain Hook hated Peter because he had lost his hand to a crocodile.</mark>' in html
    assert "The crocodile had swallowed a clock." in html  # the rest of the paragraph, unmarked
    assert [e.label for e in at.expander if e.label.startswith("Paragraph")] == ["Paragraph before"]
    assert not at.get("image")  # a text file has no page image


def test_source_view_of_a_pdf_sentence_shows_its_page(shelf):
    sid = sentence_id(shelf, "Peter ran under the gate")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(shelf["root"]))
        at = app("pages/sentence.py", doc=SHELF, sid=sid)
    assert not at.exception and not errors(at), errors(at)
    assert any("Document **garden** of collection" in m.value and "page 1" in m.value for m in at.markdown)
    assert '<mark class="kg-here">Peter ran under the gate at noon.</mark>' in html_of(at)
    assert len(at.get("image")) == 1


def test_shared_entities_in_the_explorer(shelf):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(shelf["root"]))
        at = app("pages/explorer.py", doc=SHELF, tab="Shared entities")
        assert not at.exception and not errors(at), errors(at)
        shared = table(at, "entity")
        peter = shared.set_index("entity").loc["Peter"]
        assert peter["documents"] == "rabbit, pan, garden" and peter["in documents"] == 3
        assert len(shared) == shelf["store"].manifest(SHELF).counts.shared_entities
        open_tab(at, "Neighbourhood")
        assert at.radio(key="explorer.colour").value == "document"
        at.text_input(key="explorer.query").input("Peter").run()
    assert not at.exception and not errors(at)
    assert any("grounded in" in m.value and "of 3 documents (rabbit, pan, garden)" in m.value for m in at.markdown)


def test_add_reuse_and_remove_a_document(empty_store):
    at = upload(app(), [("a.txt", RABBIT), ("b.txt", PAN)], "pair")
    assert not at.exception and not errors(at), errors(at)
    store = Store(empty_store)
    assert store.manifest("pair").doc_ids == ("a", "b")
    # The same bytes again, into the existing collection: reused, not rebuilt.
    at = upload(at, [("a.txt", RABBIT)], "pair")
    assert any("**a** (a.txt) is already in collection **pair**" in i.value for i in at.info)
    at.selectbox(key="library.collection").set_value("pair").run()
    at.selectbox(key="library.document.pair").set_value("b").run()
    click(at, "Remove document…")
    assert any("Remove **b** from **pair**?" in w.value for w in at.warning)
    assert store.manifest("pair").doc_ids == ("a", "b")  # nothing happens before the confirmation
    click(at, "Yes, remove")
    assert not at.exception and not errors(at), errors(at)
    assert store.manifest("pair").doc_ids == ("a",)
    assert any("Removed b from pair" in s.value for s in at.success)
    assert table(at, "document")["document"].tolist() == ["a"]
    assert not any(s.doc_id == "b" for s in store.load("pair").sentences)


def test_a_document_indexed_by_kgcore_0_1(tmp_path, monkeypatch):
    shutil.copytree(DATA / "store-0.1", tmp_path / "old")
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "old"))
    at = app("pages/sentence.py", doc="garden_story")
    assert not at.exception and not errors(at), errors(at)
    assert any("kgcore 0.1" in i.value and "no paragraphs" in i.value for i in at.info)
    assert "Graph built from this sentence" in html_of(at)


@pytest.fixture
def empty_store(tmp_path, monkeypatch):
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "empty"))
    return tmp_path / "empty"
