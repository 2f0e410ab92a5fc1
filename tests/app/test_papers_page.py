"""Papers through the app (``streamlit.testing.v1.AppTest``, real models): layout-aware PDF ingestion on screen.

One module-scoped store holds the collection ``papers``: the two small papers of ``tests/pdfs.py`` (numbered and
author-year citations), the author-year one with a blank (scanned) second page, so its report has a warning.  The
tests read the Library's ingestion reports, the Sentence page's role colouring, tables, citations and captions,
the Ask page's role badges and the Graph explorer's "Who cites…" box.
"""

from __future__ import annotations

import io
import re
import shutil

import pypdfium2 as pdfium
import pytest
from apptest import app, html_of, ok, table
from pdfs import author_year_paper, numbered_paper

from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from paths import DATA
from ui.labels import ROLE_LABELS
from ui.markup_html import anchor_id

PAPERS = "papers"
LEWIS = "Retrieval-augmented generation for knowledge-intensive NLP tasks"


def with_blank_page(data: bytes) -> bytes:
    """The PDF with an empty last page: a page without a text layer, as a scanned page reads."""
    document = pdfium.PdfDocument(data)
    document.new_page(*document[0].get_size())
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def papers(tmp_path_factory):
    root = tmp_path_factory.mktemp("papers_store")
    store = Store(root)
    jobs = [Job("numbered.pdf", data=numbered_paper()),
            Job("author-year.pdf", data=with_blank_page(author_year_paper()))]
    (outcome,) = index_files(jobs, store, PAPERS, workers=1)
    assert not outcome.failed, outcome.failed
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(root))
        yield {"root": root, "store": store, "index": store.load(PAPERS)}





def sentence_id(papers, doc: str, text: str) -> str:
    (sid,) = [s.id for s in papers["index"].sentences if s.doc_id == doc and text in s.original]
    return sid


def lewis_citers(papers) -> dict[str, list[str]]:
    """Document -> the sentences whose markers resolved to its Lewis et al. entry."""
    index, out = papers["index"], {}
    for doc in index.manifest.doc_ids:
        (key,) = [r.key for r in index.references(doc) if r.title.startswith("Retrieval-augmented generation")]
        out[doc] = [s.id for s in index.sentences if s.doc_id == doc and key in s.citations]
    return out


# -- Library: ingestion reports ---------------------------------------------------------------------------------
def test_library_shows_each_documents_ingest_report(papers):
    at = ok(app())
    manifests = {m.doc_id: m for m in papers["store"].documents(PAPERS)}
    overview = table(at, "running lines dropped").set_index("document")
    for doc, m in manifests.items():
        r = m.ingest
        row = overview.loc[doc]
        assert [row["pages"], row["words"], row["running lines dropped"], row["references"],
                row["citations resolved"], row["warnings"]] == [r.pages, r.words, r.header_footer_lines, r.references,
                                                                r.citations_resolved, len(r.warnings)]
        assert row["paragraphs"] == sum(r.roles.values()) and row["sentences"] == sum(r.sentences.values())
    # The chosen document (the first) in detail: its numbers and its roles table.
    report = manifests["numbered"].ingest
    assert at.selectbox(key=f"library.document.{PAPERS}").value == "numbered"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Pages"] == str(report.pages) and metrics["Words"] == f"{report.words:,}"
    assert metrics["Running lines dropped"] == str(report.header_footer_lines) and report.header_footer_lines >= 1
    assert metrics["References"] == str(report.references) == "4"
    assert metrics["Citations resolved"] == str(report.citations_resolved)
    roles = table(at, "retrieval").set_index("role")
    for role, paragraphs in report.roles.items():
        assert roles.loc[ROLE_LABELS[role], "paragraphs"] == paragraphs
        assert roles.loc[ROLE_LABELS[role], "sentences"] == report.sentences.get(role, 0)
    assert roles.loc["table", "retrieval"] == "never retrieved" and roles.loc["caption", "retrieval"] == "retrieved"
    # The scanned page of the other document is a warning, whichever document is chosen.
    (scan,) = manifests["author-year"].ingest.warnings
    assert scan.startswith("page 2: no text layer")
    assert any(w.value.startswith("**author-year**: page 2: no text layer") for w in at.warning)


def test_library_draws_page_thumbnails_outlined_by_role(papers):
    at = ok(app())
    (thumbs,) = at.get("image")
    assert thumbs.captions == ["page 1", "page 2"] and len(thumbs.value) == 2
    assert 'class="kg-legend"' not in html_of(at)
    at.toggle(key="library.thumbnails.roles").set_value(True).run()
    ok(at)
    (outlined,) = at.get("image")
    assert outlined.value != thumbs.value  # other images: the paragraphs are outlined
    legend = re.search(r'<div class="kg-legend">.*?</div>', html_of(at)).group(0)
    for role in ("title", "heading", "body", "caption", "table", "footnote"):
        assert f">{ROLE_LABELS[role]}</span>" in legend
    at.selectbox(key=f"library.document.{PAPERS}").set_value("author-year").run()
    ok(at)
    assert {m.label: m.value for m in at.metric}["Pages"] == "2"
    assert at.get("image")[0].captions == ["page 1", "page 2"]


def test_a_document_indexed_before_ingest_reports(tmp_path, monkeypatch):
    shutil.copytree(DATA / "store-0.1", tmp_path / "old")
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path / "old"))
    at = ok(app())
    assert any("indexed before ingestion reports (re-index to get one)" in i.value for i in at.info)
    assert table(at, "running lines dropped")["pages"].isna().all()
    assert not at.get("image")


# -- Sentence page: roles, citations, tables --------------------------------------------------------------------
def test_source_view_colours_the_page_by_role_and_lists_citations(papers):
    sid = sentence_id(papers, "numbered", "Retrieval-augmented generation [1]")
    at = ok(app("pages/sentence.py", doc=PAPERS, sid=sid))
    assert any(m.value == "Role: **body text** (retrieved)" for m in at.markdown)
    assert any("section “1 Introduction”" in m.value for m in at.markdown)
    html = html_of(at)
    refs = re.search(r'<ul class="kg-refs">.*?</ul>', html).group(0)
    assert f"<b>{LEWIS}</b> — Patrick Lewis, Ethan Perez, and Douwe Kiela · 2020" in refs
    assert "<b>Dense passage retrieval for open-domain question answering</b>" in refs
    assert refs.count("<li>") == len(papers["index"].sentence(sid).citations) == 3
    (plain,) = at.get("image")
    assert "Page 1 of numbered.pdf" == plain.captions[0]  # found: highlighted from its stored boxes
    at.toggle(key="sentence.roles").set_value(True).run()
    ok(at)
    (coloured,) = at.get("image")
    assert coloured.value != plain.value
    legend = re.search(r'<div class="kg-legend">.*?</div>', html_of(at)).group(0)
    assert all(f">{ROLE_LABELS[r]}</span>" in legend for r in ("body", "heading", "caption", "table"))


def test_a_table_sentence_is_shown_as_a_table(papers):
    sid = sentence_id(papers, "numbered", "Graph 41.2 55.0")
    at = ok(app("pages/sentence.py", doc=PAPERS, sid=sid))
    html = html_of(at)
    assert '<tr class="kg-here"><td>Graph</td><td>41.2</td><td>55.0</td></tr>' in html
    assert "<tr><td>BM25</td><td>33.0</td><td>47.4</td></tr>" in html
    assert 'class="kg-passage">Method EM F1' not in html  # never a run-on text
    assert any("**table**" in i.value and "never retrieved" in i.value for i in at.info)


def test_a_table_caption_shows_its_table(papers):
    sid = sentence_id(papers, "numbered", "Table 1: Exact match")
    at = ok(app("pages/sentence.py", doc=PAPERS, sid=sid))
    html = html_of(at)
    assert '<mark class="kg-here">Table 1: Exact match and F1' in html
    assert "The table this caption introduces:" in [c.value for c in at.caption]
    assert "<tr><td>Method</td><td>EM</td><td>F1</td></tr>" in html and "<td>39.8</td>" in html


# -- Ask page: role badges ---------------------------------------------------------------------------------------
def test_ask_badges_roles_and_citations(papers):
    at = app("pages/ask.py", doc=PAPERS)
    at.selectbox(key="ask.method").set_value("full").run()
    at.text_input(key="ask.question").input("What does retrieval-augmented generation condition the model on?")
    ok(at.button(key="ask.go").click().run())
    html = html_of(at)
    shown = {s.id for s in at.session_state["kg_app_state"].ask.main.result.sentences}
    index = papers["index"]
    caption = sentence_id(papers, "numbered", "Figure 1: The grounded graph")
    citing = sentence_id(papers, "numbered", "Retrieval-augmented generation [1]")
    assert {caption, citing} <= shown

    def head(sid: str) -> str:
        return re.search(rf'id="{anchor_id(sid)}"><div class="kg-head">(.*?)</div>', html).group(1)

    assert '<span class="kg-role" title="caption: retrieved">caption</span>' in head(caption)
    assert "cites" not in head(caption)
    assert f'>cites {len(index.sentence(citing).citations)}</span>' in head(citing)
    assert "[1] Lewis 2020 — Retrieval-augmented generation for knowledge-intensive NLP" in head(citing)
    assert 'class="kg-role"' not in head(citing)  # body text has no role badge
    footnote = sentence_id(papers, "numbered", "Code and data are released")
    assert '>footnote</span>' in head(footnote)


# -- Graph explorer: who cites… ---------------------------------------------------------------------------------
def test_who_cites_finds_the_lewis_paper(papers):
    at = ok(app("pages/explorer.py", doc=PAPERS, tab="Who cites…"))
    at.text_input(key="explorer.cites").input("retrieval augmented generation").run()
    ok(at)
    assert any("**2 document(s) cite a work matching “retrieval augmented generation”**" == m.value
               for m in at.markdown)
    html = html_of(at)
    citers = lewis_citers(papers)
    assert citers["numbered"] and citers["author-year"]
    for doc, sids in citers.items():
        assert re.search(rf'<div class="kg-dochead">{doc} <span class="kg-stat">cites</span> <b>{LEWIS}</b> \(2020\)',
                         html)
        for sid in sids:
            link = f'href="sentence?doc={PAPERS}&amp;sid={sid.replace("/", "%2F")}"'
            assert f'<a class="kg-sid" {link} target="_blank">{sid}</a>' in html
    at.text_input(key="explorer.cites").input("a paper nobody cites").run()
    assert "No document of this collection cites it." in html_of(ok(at))
