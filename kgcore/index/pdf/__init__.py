"""Papers read like papers: a PDF's layout turned into paragraphs with roles, sections, pages and line boxes.

    pdftext (kgcore.index.pdf.extract) -> running headers out, reading order (layout)
        -> roles (roles) -> lines joined, hyphenation undone where the document says so (words)
        -> paragraphs with section paths; reference entries parsed (references); report

:func:`read_pdf` returns the paragraphs a :class:`~kgcore.core.document.Document`
is built from, the reference list and an :class:`~kgcore.core.document.IngestReport`.
A paragraph broken by a column, page or figure (no sentence end, the next
prose starting in lower case) is joined again.  Citations are resolved per
sentence when sentences are split (:mod:`kgcore.index.pdf.citations`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kgcore.core.document import IngestReport, LineBox, Paragraph, Reference
from kgcore.core.errors import InputError
from kgcore.core.types import ABSTRACT, APPENDIX, BODY, HEADING, LIST_ITEM, REFERENCE, TABLE, TITLE
from kgcore.index.pdf.extract import Block, Page, read_pages
from kgcore.index.pdf.layout import reading_order, running_lines
from kgcore.index.pdf.references import parse_entries, split_entries
from kgcore.index.pdf.roles import Part, body_size, classify, run_in_headings
from kgcore.index.pdf.words import Vocabulary, join_lines

#: Roles of prose that may run on across a column, page or figure break.
PROSE = frozenset({BODY, ABSTRACT, APPENDIX, LIST_ITEM})
SECTION_SEPARATOR = " › "
_SENTENCE_END = (".", "?", "!", ":", '."', ".”", ".)")
#: A prose fragment starting with one of these runs on from before (text after inline math, a footnote mark).
_RUNS_ON = ",;:)]"


@dataclass(frozen=True)
class PdfText:
    """What :func:`read_pdf` found in one PDF."""

    paragraphs: list[Paragraph]
    references: list[Reference]
    report: IngestReport


def read_pdf(data: bytes, filename: str, progress: Callable[[int, int], None] | None = None) -> PdfText:
    """The paragraphs, references and report of the PDF ``data`` (see the module docstring);
    ``progress(pages done, pages)`` while pages are read."""
    pages = read_pages(data, filename, progress)
    if all(p.problem.startswith("no text layer") for p in pages):
        raise InputError(filename, f"PDF has no text layer ({len(pages)} pages, no extractable text); "
                                   "it needs OCR first")
    if all(p.problem for p in pages):
        raise InputError(filename, f"the text layer is unusable on every page ({pages[0].problem} on page 1); "
                                   "it needs OCR first")
    pages = [p if not p.problem else replace(p, blocks=()) for p in pages]  # reported, never indexed as text
    running = running_lines(pages)
    blocks = [b for page in pages for b in reading_order(_without(page, running), page.width)]
    vocab = Vocabulary.of(line.text for block in blocks for line in block.lines)
    parts = run_in_headings(classify(blocks, body_size(blocks)))
    entries = split_entries([p.block for p in parts if p.role == REFERENCE])
    references = parse_entries(entries)
    paragraphs = _paragraphs(parts, vocab, entries)
    report = IngestReport(
        pages=len(pages), words=sum(len(p.text.split()) for p in paragraphs),
        roles=dict(Counter(p.kind for p in paragraphs)), header_footer_lines=len(running),
        references=len(references),
        warnings=tuple(f"page {p.number}: {p.problem or p.note}" for p in pages if p.problem or p.note),
    )
    return PdfText(paragraphs, references, report)


def _without(page: Page, running: set[tuple[int, str]]) -> list[Block]:
    """The page's blocks with running headers, footers and page numbers taken out."""
    kept = []
    for block in page.blocks:
        lines = tuple(line for line in block.lines if (page.number, line.text) not in running)
        if lines:
            kept.append(replace(block, lines=lines))
    return kept


def _paragraphs(parts: Sequence[Part], vocab: Vocabulary, entries: Sequence[str]) -> list[Paragraph]:
    out: list[Paragraph] = []
    path: list[tuple[int, str]] = []
    open_prose: int | None = None  # a prose paragraph whose sentence runs on past a break
    for part in parts:
        if part.role == HEADING:
            path = [(level, text) for level, text in path if level < part.level] + [(part.level, part.text)]
        section = SECTION_SEPARATOR.join(text for _, text in path)
        if part.role == REFERENCE:
            if entries and not any(p.kind == REFERENCE for p in out):
                out += [Paragraph(entry, REFERENCE, section, part.block.page) for entry in entries]
            continue
        paragraph = _paragraph(part, vocab, section)
        if part.role in PROSE and open_prose is not None and (paragraph.text[:1].isalnum()
                                                                or paragraph.text[:1] in _RUNS_ON):
            out[open_prose] = _continued(out[open_prose], paragraph, vocab)
        elif part.role == TITLE and out and out[-1].kind == TITLE:
            out[-1] = _continued(out[-1], paragraph, vocab)  # a title set over several lines
        else:
            out.append(paragraph)
            if part.role in PROSE:
                open_prose = len(out) - 1
            elif part.role == HEADING:
                open_prose = None
        if open_prose is not None and out[open_prose].text.endswith(_SENTENCE_END):
            open_prose = None
    return [p for p in out if p.text]


def _paragraph(part: Part, vocab: Vocabulary, section: str) -> Paragraph:
    starts: list[int] = []
    text = join_lines([line.text for line in part.block.lines], vocab, starts)
    lines = tuple(LineBox(part.block.page, line.box, start) for line, start in zip(part.block.lines, starts))
    table = tuple(line.cells or (line.text,) for line in part.block.lines) if part.role == TABLE else ()
    return Paragraph(text, part.role, section, part.block.page, -1, lines, table)


def _continued(first: Paragraph, rest: Paragraph, vocab: Vocabulary) -> Paragraph:
    """``first`` with ``rest`` (its continuation after a break) appended, a word hyphenated across the break
    joined like one across a line end, line boxes shifted."""
    text = join_lines([first.text, rest.text], vocab)
    shift = len(text) - len(rest.text)
    lines = first.lines + tuple(replace(line, start=line.start + shift) for line in rest.lines)
    return replace(first, text=text, lines=lines)
