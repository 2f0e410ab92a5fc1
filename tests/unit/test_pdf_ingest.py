"""Layout-aware PDF ingestion on real PDFs written by fpdf2 (tests/pdfs.py): roles, order, words, references.

No models: this is kgcore.index.pdf and the loader up to paragraphs; sentences and collections are in
tests/models/test_pdf_models.py.
"""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.generic import DictionaryObject, NameObject, TextStringObject

from kgcore.core.errors import InputError
from kgcore.core.types import ABSTRACT, AUTHORS, BODY, CAPTION, FOOTNOTE, HEADING, REFERENCE, TABLE, TITLE
from kgcore.index.load import load_bytes
from kgcore.index.pdf import read_pdf
from kgcore.index.pdf.citations import resolve
from tests.pdfs import (
    HEADER,
    author_year_paper,
    image_only_page,
    numbered_paper,
    plain_pages,
    same_font_front_matter,
)

PROSE = "The grounded graph keeps every sentence it was built from, so an answer can be traced to its source."


@pytest.fixture(scope="module")
def numbered():
    return read_pdf(numbered_paper(), "numbered.pdf")


def _find(paragraphs, start):
    return next(p for p in paragraphs if p.text.startswith(start))


def test_every_block_gets_its_role(numbered):
    roles = [(p.kind, p.text[:14]) for p in numbered.paragraphs]
    assert roles[:4] == [(TITLE, "Grounded Graph"), (AUTHORS, "Ada Lovelace a"), (HEADING, "Abstract"),
                         (ABSTRACT, "We study retri")]
    kinds = {p.text[:9]: p.kind for p in numbered.paragraphs}
    assert kinds["Figure 1:"] == CAPTION and kinds["Table 1: "] == CAPTION
    assert kinds["1 Code an"] == FOOTNOTE and kinds["Method EM"] == TABLE
    assert [p.kind for p in numbered.paragraphs].count(REFERENCE) == 4
    assert [p.kind for p in numbered.paragraphs].count(BODY) == 5


def test_running_header_and_page_numbers_are_dropped(numbered):
    texts = [p.text for p in numbered.paragraphs]
    assert not any(HEADER in t for t in texts)
    assert not any(t.strip() in ("1", "2") for t in texts)
    assert numbered.report.header_footer_lines == 4  # a header and a page number on each of 2 pages


def test_reading_order_follows_columns_with_a_heading_mid_column(numbered):
    headings = [p.text for p in numbered.paragraphs if p.kind == HEADING]
    assert headings == ["Abstract", "1 Introduction", "2 Method", "3 Results", "3.1 Ablation", "References"]
    method = _find(numbered.paragraphs, "The graph links")
    assert method.section == "2 Method" and method.page == 1
    assert _find(numbered.paragraphs, "Without coreference").section == "3 Results › 3.1 Ablation"


def test_ligatures_expanded_and_line_end_hyphenation_joined(numbered):
    text = " ".join(p.text for p in numbered.paragraphs)
    assert not any("\ufb00" <= ch <= "\ufb06" for ch in text)
    assert "no fine-tuning" in text and "is efficient and" in text and "finds" in text
    assert "a good language model" in text and "lan-" not in text
    assert "multi-hop questions" in text and "Retrieval-augmented generation [1]" in text  # real hyphens kept


def test_table_is_rows_of_cells(numbered):
    table = _find(numbered.paragraphs, "Method EM").table
    assert table == (("Method", "EM", "F1"), ("Graph", "41.2", "55.0"), ("Dense", "39.8", "53.1"),
                     ("BM25", "33.0", "47.4"))


def test_line_boxes_locate_every_paragraph(numbered):
    for p in numbered.paragraphs:
        if p.kind == REFERENCE:
            continue  # entries are cut out of their block's lines; the block keeps its page
        assert p.lines and all(line.page == p.page or line.page == p.page + 1 for line in p.lines)
        assert all(0 <= line.start < len(p.text) for line in p.lines)
    method = _find(numbered.paragraphs, "The graph links")
    assert method.lines[0].box[0] < 100 and method.lines[0].start == 0  # left column


def test_numbered_references_parsed_and_markers_resolved(numbered):
    refs = {r.key: r for r in numbered.references}
    assert list(refs) == ["ref-1", "ref-2", "ref-3", "ref-4"]
    assert (refs["ref-1"].first_author, refs["ref-1"].year) == ("Lewis", "2020")
    assert refs["ref-1"].title == "Retrieval-augmented generation for knowledge-intensive NLP tasks"
    assert refs["ref-4"].arxiv == "2002.08909" and refs["ref-3"].year == "2009"
    body = _find(numbered.paragraphs, "Large language").text
    assert resolve(body, numbered.references) == ("ref-1", "ref-2", "ref-3")
    assert numbered.report.references == 4


def test_author_year_references_and_markers():
    paper = read_pdf(author_year_paper(), "authoryear.pdf")
    assert [r.key for r in paper.references] == ["ref-karpukhin-2020", "ref-lewis-2020", "ref-robertson-2009"]
    assert paper.references[1].title == "Retrieval-augmented generation for knowledge-intensive NLP tasks"
    body = _find(paper.paragraphs, "Retrieval-augmented").text
    assert resolve(body, paper.references) == ("ref-lewis-2020", "ref-karpukhin-2020", "ref-robertson-2009")


def test_loader_keeps_references_and_report():
    doc = load_bytes(numbered_paper(), "Grounded Graphs.pdf")
    assert doc.name == "grounded-graphs" and len(doc.references) == 4
    assert doc.report.pages == 2 and doc.report.roles[REFERENCE] == 4 and doc.report.words > 250
    starts = [p.start for p in doc.paragraphs]
    assert all(doc.text[s:s + len(p.text)] == p.text for s, p in zip(starts, doc.paragraphs))


def test_markdown_and_text_get_sections_from_headings():
    doc = load_bytes(b"# Methods\n\nWe ran it.\n\n## Data\n\nWe used books.", "notes.md")
    assert [(p.kind, p.section) for p in doc.paragraphs][-1] == (BODY, "Data")
    assert doc.report.pages == 0 and doc.report.roles == {HEADING: 2, BODY: 2}


# ---------------------------------------------------------------- bad input


def _refusal(data: bytes, name: str) -> str:
    with pytest.raises(InputError) as caught:
        load_bytes(data, name)
    return str(caught.value)


def test_scanned_page_needs_ocr():
    message = _refusal(image_only_page(), "scan.pdf")
    assert message.startswith("scan.pdf:") and "no text layer" in message and "OCR" in message


def test_a_scanned_page_among_text_pages_is_reported_and_the_rest_indexed():
    writer = PdfWriter()
    for data in (plain_pages([[PROSE]]), image_only_page()):
        writer.append(PdfReader(io.BytesIO(data)))
    out = io.BytesIO()
    writer.write(out)
    doc = load_bytes(out.getvalue(), "mixed.pdf")
    assert doc.paragraphs[0].text == PROSE
    assert doc.report.warnings == ("page 2: no text layer (a scanned page needs OCR)",)


def test_garbled_text_layer_is_reported_not_indexed():
    garbage = " ".join("Itisobvioustotrythisapproachhereandnowwithmanyletters")
    data = plain_pages([[PROSE], [garbage[i:i + 80] for i in range(0, len(garbage), 80)]])
    doc = load_bytes(data, "garbled.pdf")
    assert [p.text for p in doc.paragraphs] == [PROSE]
    assert len(doc.report.warnings) == 1 and doc.report.warnings[0].startswith("page 2:")
    assert "single letters" in doc.report.warnings[0]
    message = _refusal(plain_pages([[garbage[:80]] * 4]), "allgarbled.pdf")
    assert "allgarbled.pdf" in message and "unusable on every page" in message


def test_zero_pages_encrypted_and_broken_files_are_refused_by_name():
    empty = io.BytesIO()
    PdfWriter().write(empty)
    assert "empty.pdf" in _refusal(empty.getvalue(), "empty.pdf")
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(plain_pages([[PROSE]]))))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    locked = io.BytesIO()
    writer.write(locked)
    assert "encrypted" in _refusal(locked.getvalue(), "locked.pdf")
    assert "malformed" in _refusal(numbered_paper()[: 300], "cut.pdf")


def test_broken_cross_reference_table_is_repaired():
    data = numbered_paper()
    xref = data.rindex(b"startxref")
    broken = data[:xref] + b"startxref\n999999\n%%EOF\n"  # points nowhere: PDFium rebuilds the table
    doc = load_bytes(broken, "broken-xref.pdf")
    assert any(p.text.startswith("Large language models") for p in doc.paragraphs)


def test_javascript_is_never_run_and_text_is_read():
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(plain_pages([[PROSE]]))))
    writer._root_object[NameObject("/OpenAction")] = DictionaryObject({
        NameObject("/S"): NameObject("/JavaScript"), NameObject("/JS"): TextStringObject("app.alert('pwned');")})
    out = io.BytesIO()
    writer.write(out)
    doc = load_bytes(out.getvalue(), "script.pdf")
    assert [p.text for p in doc.paragraphs] == [PROSE] and "alert" not in doc.text


def test_one_enormous_line_is_loaded():
    line = "word " * 3000
    doc = load_bytes(plain_pages([[line.strip()]]), "wide.pdf")
    assert doc.report.pages == 1 and doc.report.words > 0


def test_many_pages_report_progress_per_batch():
    seen = []
    pages = [[f"Page {n} says that the grounded graph keeps its sentences."] for n in range(40)]
    doc = load_bytes(plain_pages(pages), "long.pdf", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(16, 40), (32, 40), (40, 40)]
    assert doc.report.pages == 40 and doc.paragraphs[-1].page == 40


def test_a_book_as_pdf_reads_as_a_book():
    from tests.pdfs import book

    doc = load_bytes(book(), "Peter Rabbit.pdf")
    kinds = [(p.kind, p.text[:20], p.section) for p in doc.paragraphs]
    assert kinds[0] == (TITLE, "The Tale of Peter Ra", "")
    assert kinds[1] == (AUTHORS, "By Beatrix Potter", "")
    assert kinds[2] == (HEADING, "CHAPTER I", "CHAPTER I")
    assert kinds[3][0] == BODY and kinds[3][2] == "CHAPTER I"
    assert "Cotton-tail, and Peter" in doc.paragraphs[3].text and not doc.references


def test_a_sentence_cut_by_an_authors_note_or_a_quoted_gap_is_joined():
    from tests.pdfs import interrupted_paper

    paragraphs = read_pdf(interrupted_paper(), "interrupted.pdf").paragraphs
    adam = _find(paragraphs, "We train the reader")
    assert "Adam optimizer (Kingma & Ba, 2015) with a learning rate" in adam.text and adam.kind == BODY
    assert _find(paragraphs, "†Equal contribution.").kind == FOOTNOTE  # the note, not the prose it interrupts
    masked = _find(paragraphs, "A masked example")
    assert "y = (“pound”, “of”)). The reader fills every gap" in masked.text


def _span(text, box, size=9.96, font="NimbusRomNo9L-Regu"):
    return {"text": text, "bbox": list(box), "font": {"name": font, "size": size, "weight": 400}}


def _raw_line(box, *spans):
    return {"bbox": list(box), "spans": list(spans)}


def test_sub_and_superscripts_rejoin_their_printed_row():
    """PDFium ends a line at every raised or lowered glyph of inline mathematics, and often its block too; the
    pieces are joined again before blocks are formed.  The raw lines are pdftext's output for the REALM paper
    (arXiv 2002.08909, page 11, right column; boxes and sizes as read), which fpdf2-written PDFs do not
    reproduce (PDFium keeps their scripts on the line)."""
    from kgcore.index.pdf.extract import _page

    script = 6.97
    raw = {"width": 612, "height": 792, "blocks": [
        {"lines": [_raw_line((307.4, 69.6, 419.5, 79.5), _span("zero accuracy (i.e., p (y | z\n",
                                                                (307.4, 69.6, 419.5, 79.5)))]},
        {"lines": [_raw_line((420.0, 68.6, 422.3, 74.0), _span("′\n", (420.0, 68.6, 422.3, 74.0), script, "CMSY7"))]},
        {"lines": [
            _raw_line((422.8, 69.6, 543.1, 79.5), _span(", x) = 0). Under this set-\n", (422.8, 69.6, 543.1, 79.5))),
            _raw_line((307.4, 81.4, 343.3, 91.4), _span("ting, p (z\n", (307.4, 81.4, 343.3, 91.4))),
            _raw_line((343.8, 80.5, 347.9, 85.9), _span("∗\n", (343.8, 80.5, 347.9, 85.9), script, "CMSY7")),
            _raw_line((349.9, 81.4, 468.9, 91.4), _span("| y, x) = 1 (provided that p (z\n",
                                                        (349.9, 81.4, 468.9, 91.4))),
            _raw_line((469.4, 80.5, 473.5, 85.9), _span("∗\n", (469.4, 80.5, 473.5, 85.9), script, "CMSY7")),
            _raw_line((475.6, 81.4, 543.1, 91.4), _span("| x) is non-zero),\n", (475.6, 81.4, 543.1, 91.4))),
            _raw_line((307.1, 94.1, 453.6, 103.1), _span("which causes the gradient to become\n",
                                                         (307.1, 94.1, 453.6, 103.1)))]},
        {"lines": [_raw_line((55.0, 70.0, 289.0, 79.0), _span("the other column on the same row\n",
                                                              (55.0, 70.0, 289.0, 79.0)))]}]}
    blocks = _page(10, raw).blocks
    assert [[line.text for line in block.lines] for block in blocks] == [
        ["zero accuracy (i.e., p (y | z′, x) = 0). Under this set-",
         "ting, p (z∗ | y, x) = 1 (provided that p (z∗ | x) is non-zero),",
         "which causes the gradient to become"],
        ["the other column on the same row"]]
    first = blocks[0].lines[0]
    assert first.size == pytest.approx(9.96, abs=0.1) and first.box == (307.4, 68.6, 543.1, 79.5)


def test_a_title_author_line_and_abstract_heading_in_one_font_get_their_own_roles():
    """A title block that also holds the author line and "Abstract" (one bold font) is cut there: the authors are
    authors, the abstract an abstract -- not a title running on into "Helen Marsh ... Abstract" and an abstract
    read as the author line."""
    paragraphs = read_pdf(same_font_front_matter(), "surges.pdf").paragraphs
    roles = [(p.kind, p.text) for p in paragraphs[:4]]
    assert roles == [(TITLE, "Tide Gauges and Storm Surges on the Fife Coast"),
                     (AUTHORS, "Helen Marsh, University of St Andrews"), (HEADING, "Abstract"),
                     (ABSTRACT, "We study storm surges recorded by tide gauges at Anstruther and Crail.")]

