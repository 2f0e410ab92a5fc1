"""Prose cut by figures, code listings and floats after a reference list, on real PDFs written by fpdf2.

Each test writes its own small paper with tests/pdfs.Writer (two columns, DejaVu Serif) and reads it with
kgcore.index.pdf: the roles and joins the layout rules give, and which pages are read from their glyphs.
"""

from __future__ import annotations

import pdftext.extraction

from kgcore.core.types import ABSTRACT, BODY, CAPTION, FIGURE, HEADING, REFERENCE, TABLE
from kgcore.index.pdf import read_pdf
from kgcore.index.pdf.extract import Block, Line
from kgcore.index.pdf.roles import classify, is_heading
from tests.pdfs import NUMBERED_REFERENCES, Writer, numbered_paper


def _find(paragraphs, start):
    return next(p for p in paragraphs if p.text.startswith(start))


def _paper_with_a_figure() -> bytes:
    """A sentence cut by a figure whose own text (set at 5 pt) starts in lower case, as a scaled diagram's does."""
    w = Writer()
    w.page(top=60)
    w.full_width(["Prompting Closed Models"], 16, bold=True, gap=4)
    w.full_width(["Grace Hopper", "Institute of Examples"], 10, gap=14)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    w.lines(["Retrieval helps a reader that cannot see the corpus. We ask the",
             "model to search whenever it is unsure of a fact. When working",
             "with large language models that"], gap=18)
    w.lines(["the university, where he earned a law degree"], 5, gap=2)
    w.lines(["[Search(Joe Biden degree)]"], 5, gap=12)
    w.lines(["Figure 1: The model asks for a search while it writes."], 8, gap=12)
    w.lines(["offer only API access, we prompt them with a few examples",
             "of searches instead of training them."])
    return w.bytes()


def test_figure_text_in_its_own_size_never_continues_the_prose_it_interrupts():
    paragraphs = read_pdf(_paper_with_a_figure(), "figure.pdf").paragraphs
    prose = _find(paragraphs, "Retrieval helps a reader")
    assert prose.kind == BODY
    assert "When working with large language models that offer only API access, we prompt them" in prose.text
    assert "university" not in prose.text
    label = _find(paragraphs, "the university, where he earned")
    assert label.kind == FIGURE  # a figure's text: never retrieved as a sentence
    assert _find(paragraphs, "Figure 1:").kind == CAPTION


def _code_paper() -> bytes:
    w = Writer()
    w.page(top=60)
    w.full_width(["Attack Probabilities"], 16, bold=True, gap=4)
    w.full_width(["Grace Hopper", "Institute of Examples"], 10, gap=14)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    w.lines(["We compute the probability that an attacker catches up. Converting", "it to C code gives:"], gap=12)
    w.pdf.set_font("Courier", "", 8)
    column = w.columns[w.current]
    for line in ["double p = 1.0 - q;", "double sum = 1.0; int i, k;", "for (k = 0; k <= z; k++) {",
                 "    sum -= poisson * (1 - pow(q / p, z - k));", "}"]:
        column.y += 10
        w.pdf.text(column.x, column.y, line)
    column.y += 14
    w.lines(["The probability drops exponentially with the number of blocks."])
    return w.bytes()


def test_a_code_listing_in_a_typewriter_font_is_read_as_figure_text():
    paragraphs = read_pdf(_code_paper(), "code.pdf").paragraphs
    code = _find(paragraphs, "double p = 1.0 - q;")
    assert code.kind == FIGURE and "k <= z; k++" in code.text
    assert _find(paragraphs, "The probability drops").kind == BODY


def _survey_with_a_table_after_its_references() -> bytes:
    """A numbered reference list, then an appendix table (caption at the entries' size, cells at 6 pt) whose
    cells hold titles, years and author names, as a survey's summary table does."""
    w = Writer()
    w.page(top=60)
    w.full_width(["A Survey of Retrieval"], 16, bold=True, gap=4)
    w.full_width(["Grace Hopper", "Institute of Examples"], 10, gap=14)
    w.lines(["1 Introduction"], 11, bold=True, gap=3)
    w.lines(["Retrieval-augmented generation [1] and dense retrieval [2] are surveyed here."])
    w.lines(["References"], 11, bold=True, gap=3)
    for entry in NUMBERED_REFERENCES:
        w.lines(entry, 8.5, gap=3)
    w.next_column()
    w.lines(["Table 3: Summary of the works surveyed, with their datasets."], 8.5, gap=4)
    w.cells([["Title", "Task", "Year"], ["Self-Reflection (Ji et al., 2023)", "QA", "2023"],
             ["Chain-of-Verification (Dhuliawala et al., 2023)", "QA", "2023"],
             ["UPRISE: Universal Prompt Retrieval", "QA", "2023"]], size=6)
    return w.bytes()


def test_a_table_after_the_reference_list_is_not_read_as_references():
    doc = read_pdf(_survey_with_a_table_after_its_references(), "survey.pdf")
    assert len(doc.references) == len(NUMBERED_REFERENCES)
    assert all(r.title and r.first_author and r.year for r in doc.references)
    assert _find(doc.paragraphs, "Table 3:").kind == CAPTION
    cells = [p for p in doc.paragraphs if "Chain-of-Verification" in p.text]
    assert cells and all(p.kind != REFERENCE for p in cells)


def _block(text, size=10.0, bold=False):
    box = (70, 300, 500, 300 + size)
    return Block(1, (Line(text, box, size, bold),), box)


def test_a_sentence_tail_is_no_caption_and_a_bold_line_broken_by_a_hyphen_is_no_heading():
    parts = classify([_block("1 Introduction", 12, True), _block("table 1.")], body_size=10.0)
    assert [p.role for p in parts] == [HEADING, BODY]  # "... comprehensible through" + "table 1.": prose
    assert classify([_block("1 Introduction", 12, True), _block("Table 1: Results.")], 10.0)[1].role == CAPTION
    assert not is_heading(_block("Baichuan2-13b-chat, de-", 10.0, True), 10.0)
    assert is_heading(_block("4.2 Ablations", 10.0, True), 10.0)


def test_rows_of_numbers_without_cell_gaps_are_a_table():
    """A text layer without space glyphs gives a table's row as one span: no cells, but numbers and no sentence."""
    rows = ["yod mod dod hod cod", "2008 1 1 1 B20", "2008 1 2 4 I67", "2008 1 3 8 I50"]
    box = (70, 300, 300, 340)
    table = Block(1, tuple(Line(row, (70, 300 + 10 * k, 300, 309 + 10 * k), 10.0, False)
                           for k, row in enumerate(rows)), box)
    prose = _block("In 2008 there were 1,203 deaths in 31 states, 17 of them in 12 counties of 4 regions.")
    parts = classify([_block("1 Introduction", 12, True), table, prose], body_size=10.0)
    assert [p.role for p in parts] == [HEADING, TABLE, BODY]


def test_only_a_text_layer_that_looks_glued_is_read_from_its_glyphs(monkeypatch):
    """A paper whose word gaps PDFium reads right is read once, without its characters (2-3 times faster)."""
    calls = []
    original = pdftext.extraction.dictionary_output

    def counted(*args, **kwargs):
        calls.append(kwargs.get("keep_chars"))
        return original(*args, **kwargs)

    monkeypatch.setattr(pdftext.extraction, "dictionary_output", counted)
    doc = read_pdf(numbered_paper(), "numbered.pdf")
    assert calls == [False] and doc.report.gaps_restored == 0
    assert "grounded graph" in " ".join(p.text for p in doc.paragraphs)


def test_prose_read_as_an_equation_for_its_math_runs_on_and_is_prose_again():
    from kgcore.core.document import Paragraph
    from kgcore.core.types import EQUATION
    from kgcore.index.pdf.flow import Flow
    from kgcore.index.pdf.words import Vocabulary

    flow = Flow(Vocabulary.of([]), body_size=10.0)
    flow.add(EQUATION, Paragraph("Multiple-choice QA can be formulated as {(q′, a)i}, where q′ = [q, c0, c1]. "
                                 "c denotes", EQUATION), 10.0)
    flow.add(BODY, Paragraph("the options, generally four for each question.", BODY), 10.0)
    flow.add(EQUATION, Paragraph("y = LM([Dq, x])", EQUATION), 10.0)
    flow.add(BODY, Paragraph("where the query is the input.", BODY), 10.0)
    assert [(p.kind, p.text[-40:]) for p in flow.out] == [
        (BODY, "c denotes the options, generally four for each question."[-40:]),
        (EQUATION, "y = LM([Dq, x])"), (BODY, "where the query is the input.")]


def _paper_with_a_run_in_abstract_and_a_diagram() -> bytes:
    """A run-in abstract of two paragraphs set a point smaller than the body, and a diagram's labels in small type
    (as the Bitcoin paper prints them)."""
    w = Writer()
    w.page(top=60)
    w.full_width(["Electronic Cash Without Banks"], 16, bold=True, gap=4)
    w.full_width(["Grace Hopper", "Institute of Examples"], 10, gap=14)
    w.lines(["Abstract. A purely peer-to-peer version of electronic cash would",
             "allow payments to be sent directly from one party to another."], 8, gap=40)
    w.lines(["The network timestamps transactions by hashing them into an",
             "ongoing chain of proof-of-work, forming a record."], 8, gap=14)
    w.lines(["1. Introduction"], 11, bold=True, gap=3)
    w.lines(["Commerce on the Internet relies on trusted third parties to",
             "process payments, and the costs of mediation grow."], gap=14)
    w.lines(["Transaction Owner 1's Public Key"], 7, gap=30)
    w.lines(["Owner 2's Private Key Owner 1's Private Key"], 7, gap=30)
    w.lines(["We define an electronic coin as a chain of digital signatures",
             "that each owner signs when transferring the coin."])
    return w.bytes()


def test_a_run_in_abstract_keeps_its_paragraphs_and_a_diagram_label_is_no_footnote():
    paragraphs = read_pdf(_paper_with_a_run_in_abstract_and_a_diagram(), "cash.pdf").paragraphs
    assert _find(paragraphs, "Abstract. A purely").kind == ABSTRACT
    second = next(p for p in paragraphs if "The network timestamps" in p.text)
    assert second.kind == ABSTRACT  # not a footnote: it is set in the abstract's size
    assert _find(paragraphs, "Commerce on the Internet").kind == BODY
    assert _find(paragraphs, "Transaction Owner 1's").kind == FIGURE
    assert _find(paragraphs, "Owner 2's Private Key").kind == FIGURE
    assert _find(paragraphs, "We define an electronic coin").kind == BODY


def test_a_sentence_hyphenated_across_lines_is_highlighted_where_it_is_printed(tmp_path):
    """PDFium's own search misses "information" where the page prints "infor-/mation" (its text layer marks the
    line-end hyphen), and the page view had fallen back to the whole lines, neighbours' words and all; matched
    character by character, hyphens and line breaks aside, the sentence is highlighted from "We" to "here."."""
    from kgcore.index.views.source import render_page
    from tests.pdfs import pdf_with_text

    pdf = tmp_path / "hyphens.pdf"
    pdf.write_bytes(pdf_with_text(["Our earlier note came first. We study the infor-", "mation of multi-",
                                   "document collections here. Then more text follows."]))
    lines = [(72, 60, 400, 74), (72, 76, 400, 90), (72, 92, 400, 106)]  # stored line boxes, from the top
    boxes = render_page(pdf, 1, "We study the information of multi-document collections here.", scale=1.0,
                        boxes=lines).boxes
    assert len(boxes) == 3 and boxes[0][0] > 72 + 100 and boxes[2][2] < 400 - 100, boxes  # its part of the lines
    assert boxes[1][0] < 75  # the middle line whole, from its start
