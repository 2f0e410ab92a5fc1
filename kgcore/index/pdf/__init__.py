"""Papers read like papers: a PDF's layout turned into paragraphs with roles, sections, pages and line boxes.

    pdftext (kgcore.index.pdf.extract) -> running headers out, reading order (layout)
        -> roles (roles) -> lines joined, hyphenation undone where the document says so (words)
        -> paragraphs with section paths; reference entries parsed (references); report

:func:`read_pdf` returns the paragraphs a :class:`~kgcore.core.document.Document`
is built from, the reference list and an :class:`~kgcore.core.document.IngestReport`.
A paragraph broken by a column, page or figure (no sentence end, the next
prose starting in lower case, in the same size) is joined again (:mod:`kgcore.index.pdf.flow`).
Citations are resolved per sentence when sentences are split (:mod:`kgcore.index.pdf.citations`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kgcore.core.document import IngestReport, LineBox, Paragraph, Reference
from kgcore.core.errors import InputError
from kgcore.core.types import HEADING, REFERENCE, TABLE
from kgcore.index.pdf.extract import Block, Page, read_pages
from kgcore.index.pdf.flow import Flow
from kgcore.index.pdf.guard import DEFAULT_LIMITS, PdfLimits
from kgcore.index.pdf.layout import reading_order, running_lines
from kgcore.index.pdf.references import parse_entries, split_entries
from kgcore.index.pdf.roles import Part, body_size, classify, run_in_headings, title_by_height
from kgcore.index.pdf.words import Vocabulary, join_lines

SECTION_SEPARATOR = " › "


@dataclass(frozen=True)
class PdfText:
    """What :func:`read_pdf` found in one PDF."""

    paragraphs: list[Paragraph]
    references: list[Reference]
    report: IngestReport


def read_pdf(data: bytes, filename: str, progress: Callable[[int, int], None] | None = None,
             limits: PdfLimits = DEFAULT_LIMITS) -> PdfText:
    """The paragraphs, references and report of the PDF ``data`` (see the module docstring);
    ``progress(pages done, pages)`` while pages are read; ``limits`` bound the pages, inflated content and text
    (:mod:`kgcore.index.pdf.guard`)."""
    pages = read_pages(data, filename, progress, limits)
    if all(p.problem.startswith("no text layer") for p in pages):
        raise InputError(filename, f"PDF has no text layer ({len(pages)} pages, no extractable text); "
                                   "it needs OCR first")
    if all(p.problem for p in pages):
        raise InputError(filename, f"the text layer is unusable on every page ({pages[0].problem} on page 1); "
                                   "it needs OCR first")
    pages = [p if not p.problem else replace(p, blocks=()) for p in pages]  # reported, never indexed as text
    running = running_lines(pages)
    blocks = [b for page in pages for b in reading_order(_without(page, running), page.width)]
    if not blocks and running:  # every line repeats on every page: they are the text, not headers
        running = set()
        blocks = [b for page in pages for b in reading_order(page.blocks, page.width)]
    vocab = Vocabulary.of(line.text for block in blocks for line in block.lines)
    body = body_size(blocks)
    parts = title_by_height(run_in_headings(classify(blocks, body)))
    entries = split_entries([p.block for p in parts if p.role == REFERENCE])
    references = parse_entries(entries)
    paragraphs = _paragraphs(parts, vocab, entries, body)
    gaps, ligatures = pages[0].restored
    report = IngestReport(
        pages=len(pages), words=sum(len(p.text.split()) for p in paragraphs),
        roles=dict(Counter(p.kind for p in paragraphs)), header_footer_lines=len(running),
        references=len(references), gaps_restored=gaps, ligatures_restored=ligatures,
        warnings=tuple(f"page {p.number}: {p.problem or p.note}" for p in pages if p.problem or p.note)
        + ((f"{gaps} word gaps and {ligatures} ligatures restored from glyph positions (the text layer lacks "
            "them)",) if gaps or ligatures else ()) + glued_pages(pages),
    )
    return PdfText(paragraphs, references, report)


#: A page looks glued when this share of its words are long runs of letters no line break explains.
GLUED_SHARE = 0.02
_LONG_RUN = re.compile(r"^[a-z]{17,}[.,;:]?$")


def glued_pages(pages: Sequence[Page]) -> tuple[str, ...]:
    """A warning for each page whose words still look glued after the gaps were restored ("chunkreplicasare").

    >>> from kgcore.index.pdf.extract import Line
    >>> line = Line("the chunkreplicasarestored on eachchunkserverinthecell " * 5, (0, 0, 1, 1), 10.0, False)
    >>> glued_pages([Page(2, 600, 800, (Block.of(2, (line,)),))])
    ('page 2: words look glued (10 of 20 words are long runs of letters, e.g. chunkreplicasarestored)',)
    """
    out = []
    for page in pages:
        words = [w for block in page.blocks for line in block.lines for w in line.text.split()]
        long = [w for w in words if _LONG_RUN.match(w)]
        if len(words) >= 20 and len(long) > GLUED_SHARE * len(words):
            out.append(f"page {page.number}: words look glued ({len(long)} of {len(words)} words are long runs of "
                       f"letters, e.g. {long[0].rstrip('.,;:')})")
    return tuple(out)


def _without(page: Page, running: set[tuple[int, str]]) -> list[Block]:
    """The page's blocks with running headers, footers and page numbers taken out."""
    kept = []
    for block in page.blocks:
        lines = tuple(line for line in block.lines if (page.number, line.text) not in running)
        if lines:
            kept.append(replace(block, lines=lines))
    return kept


def _paragraphs(parts: Sequence[Part], vocab: Vocabulary, entries: Sequence[str], body: float) -> list[Paragraph]:
    flow = Flow(vocab, body)
    path: list[tuple[int, str]] = []
    for part in parts:
        if part.role == HEADING:
            path = [(level, text) for level, text in path if level < part.level] + [(part.level, part.text)]
        section = SECTION_SEPARATOR.join(text for _, text in path)
        if part.role == REFERENCE:
            if entries and not any(p.kind == REFERENCE for p in flow.out):
                for entry in entries:
                    flow.append(Paragraph(entry, REFERENCE, section, part.block.page), part.block.size)
            continue
        flow.add(part.role, _paragraph(part, vocab, section), part.block.size)
    return [p for p in flow.out if p.text]


def _paragraph(part: Part, vocab: Vocabulary, section: str) -> Paragraph:
    starts: list[int] = []
    text = join_lines([line.text for line in part.block.lines], vocab, starts)
    lines = tuple(LineBox(part.block.page, line.box, start) for line, start in zip(part.block.lines, starts))
    table = tuple(line.cells or (line.text,) for line in part.block.lines) if part.role == TABLE else ()
    return Paragraph(text, part.role, section, part.block.page, -1, lines, table)
