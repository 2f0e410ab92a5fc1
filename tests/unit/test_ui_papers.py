"""The app's pure builders for papers (no streamlit runtime, no models): role colours, legends and badges,
ingestion reports, tables, reference entries and "who cites" hits; every piece of document text escaped."""

from __future__ import annotations

import re

from kgcore.core.document import IngestReport, Paragraph, Reference
from kgcore.core.types import OPT_IN, RETRIEVABLE, ROLES, SelectedSentence
from kgcore.index.store.collection import CollectionManifest, DocumentEntry
from kgcore.index.store.manifest import Manifest
from kgcore.index.views.cites import Citation
from ui.ask_view import SentenceView, sentences_html
from ui.cites_view import citations_html, citing_html, reference_html, reference_short
from ui.ingest_view import ingest_overview, report_metrics, report_warnings, roles_table, thumbnail_pages
from ui.labels import ROLE_LABELS
from ui.roles_view import ROLE_COLOURS, legend_html, retrieval_of, role_badges, role_rgba
from ui.source_view import caption_table, role_line, role_note, table_html

SCRIPT = "<script>alert(1)</script>"
LEWIS = Reference("ref-1", "1", "[1] Patrick Lewis ... 2020.", authors="Patrick Lewis and Douwe Kiela",
                  first_author="Lewis", year="2020", title="Retrieval-augmented generation for knowledge-intensive "
                  "NLP tasks", venue="In NeurIPS, 2020", arxiv="2005.11401")


def test_every_role_has_a_name_a_colour_and_a_retrieval_class():
    assert set(ROLES) <= set(ROLE_LABELS) and set(ROLES) <= set(ROLE_COLOURS)
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in ROLE_COLOURS.values())
    assert {r for r in ROLES if retrieval_of(r) == "retrieved"} == set(RETRIEVABLE)
    assert {r for r in ROLES if retrieval_of(r) == "with front matter only"} == set(OPT_IN)
    assert role_rgba("table") == (255, 127, 14, 255) and role_rgba("heading")[:3] != role_rgba("body")[:3]
    for role in ROLES:  # a note for exactly the roles retrieval treats differently from body text
        assert (role_note(role) is None) == (role in RETRIEVABLE), role
    assert role_line("reference") == "Role: **reference entry** (never retrieved)"


def test_legends_and_badges_escape_unknown_roles():
    legend = legend_html(["table", SCRIPT, "body", "table"])
    assert legend.count('class="kg-key"') == 3 and "<script>" not in legend and "&lt;script&gt;" in legend
    assert legend.index(">body text<") < legend.index(">table<")  # ROLES order
    assert role_badges("body", ()) == "" and ">cites 2<" in role_badges("body", ("a", "b"))
    assert "<script>" not in role_badges(SCRIPT, (SCRIPT,))


def test_context_sentences_get_role_and_cites_badges():
    sentences = [SelectedSentence("p/text_0-1", 1, "Body [1].", "Body [1]."),
                 SelectedSentence("p/text_0-2", 2, "Table 1: F1.", "Table 1: F1.")]
    view = SentenceView(roles={"p/text_0-1": ("body", (reference_short(LEWIS),)), "p/text_0-2": ("caption", ())})
    html = sentences_html(sentences, view=view)
    heads = re.findall(r'<div class="kg-head">(.*?)</div>', html)
    assert 'class="kg-role"' not in heads[0] and 'title="[1] Lewis 2020 — Retrieval-augmented' in heads[0]
    assert '>caption</span>' in heads[1] and "cites" not in heads[1]
    assert 'class="kg-role"' not in sentences_html(sentences)  # no roles known: no badges


def test_ingest_report_tables():
    report = IngestReport(pages=9, words=4000, roles={"reference": 30, "body": 40, "zzz-new": 1},
                          sentences={"body": 200, "reference": 30}, header_footer_lines=18, references=30,
                          citations_resolved=25, warnings=(f"page 3: {SCRIPT}",))
    assert roles_table(report).values.tolist() == [["body text", 40, 200, "retrieved"],
                                                   ["reference entry", 30, 30, "never retrieved"],
                                                   ["zzz-new", 1, 0, "never retrieved"]]
    assert [name for name, _, _ in report_metrics(report)] == ["Pages", "Words", "Running lines dropped",
                                                               "References", "Citations resolved"]
    text_file = IngestReport(words=900, roles={"body": 12}, sentences={"body": 40})
    assert [name for name, _, _ in report_metrics(text_file)] == ["Words", "References", "Citations resolved"]
    (warning,) = report_warnings("paper", report)
    assert warning.startswith("**paper**: page 3: ") and "<script>" not in warning
    assert thumbnail_pages(report) == [1, 2, 3, 4, 5, 6] and thumbnail_pages(None) == []
    shelf = CollectionManifest("shelf", (DocumentEntry(Manifest("p", source_file="p.pdf", ingest=report), "p.1"),
                                         DocumentEntry(Manifest("old", source_file="old.txt"), "old.1"),
                                         DocumentEntry(Manifest("t", source_file="t.txt", ingest=text_file), "t.1")))
    frame = ingest_overview(shelf)
    assert frame.loc[0, ["pages", "paragraphs", "sentences", "warnings"]].tolist() == [9, 71, 230, 1]
    assert frame.loc[1, ["pages", "warnings"]].isna().all() and frame["file"].tolist() == ["p.pdf", "old.txt", "t.txt"]
    # a text file has no pages: its page columns are empty, not 0
    assert frame.loc[2, ["pages", "running lines dropped"]].isna().all()
    assert frame.loc[2, ["words", "sentences"]].tolist() == [900, 40]


def test_tables_are_tables_and_captions_find_theirs():
    rows = (("Method", "F1"), (SCRIPT, "55.0"), ("Dense", "53.1"))
    html = table_html(rows, mark=f"{SCRIPT}  55.0")
    assert html.count("<tr") == 3 and html.count("<td>") == 6 and "<script>" not in html
    assert '<tr class="kg-here"><td>&lt;script&gt;' in html and html.count("kg-here") == 1
    table = Paragraph("Method F1 ...", "table", table=rows)
    below = [Paragraph("Body.", "body"), table, Paragraph("Table 2: Below its table.", "caption")]
    assert caption_table(below, 2) == 1 and caption_table(below, 0) is None and caption_table(below, 9) is None
    assert caption_table([Paragraph("Table 3: No table.", "caption"), Paragraph("x", "table")], 0) is None


def test_references_and_who_cites_escape_document_text():
    assert reference_short(LEWIS) == "[1] Lewis 2020 — Retrieval-augmented generation for knowledge-intensive NLP…"
    html = reference_html(LEWIS)
    assert "<b>Retrieval-augmented generation for knowledge-intensive NLP tasks</b> — Patrick Lewis" in html
    assert "· 2020 · In NeurIPS, 2020 · " in html and 'href="https://arxiv.org/abs/2005.11401"' in html
    hostile = Reference("ref-2", SCRIPT, SCRIPT, title=SCRIPT, doi='10.1/"><script>')
    assert "<script>" not in reference_html(hostile) and "<script>" not in citations_html(["ref-2"], [hostile])
    hits = [Citation("pap", LEWIS, 96.5, ("pap/text_0-7",)), Citation(SCRIPT, hostile, 90.0, ())]
    page = citing_html(hits, "shelf", lambda sid: SCRIPT)
    assert "<script>" not in page and page.count('class="kg-sent"') == 1 and "no sentence marker" in page
    assert 'href="sentence?doc=shelf&amp;sid=pap%2Ftext_0-7"' in page and "score 96" in page
