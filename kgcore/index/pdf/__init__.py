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

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kgcore.core.document import IngestReport, LineBox, Paragraph, Reference
from kgcore.core.errors import InputError
from kgcore.core.types import (
    ABSTRACT,
    APPENDIX,
    BODY,
    CAPTION,
    FIGURE,
    FOOTNOTE,
    HEADING,
    LIST_ITEM,
    REFERENCE,
    TABLE,
    TITLE,
)
from kgcore.index.pdf.extract import Block, Page, read_pages
from kgcore.index.pdf.guard import DEFAULT_LIMITS, PdfLimits
from kgcore.index.pdf.layout import reading_order, running_lines
from kgcore.index.pdf.references import parse_entries, split_entries
from kgcore.index.pdf.roles import Part, body_size, classify, run_in_headings, title_by_height
from kgcore.index.pdf.words import Vocabulary, join_lines

#: Roles of prose that may run on across a column, page or figure break.
PROSE = frozenset({BODY, ABSTRACT, APPENDIX, LIST_ITEM})
SECTION_SEPARATOR = " › "
_SENTENCE_END = (".", "?", "!", ":", '."', ".”", ".)")
_NON_FINAL = re.compile(r"\b(?:et al|e\.g|i\.e|cf|vs|Figs?|Eqs?|Secs?|Tab)\.$")


def _finished(text: str) -> bool:
    """Whether ``text`` ends a sentence ("... et al." and "... Fig." do not).

    >>> _finished("It works."), _finished("as shown by Lewis et al."), _finished("It works")
    (True, False, False)
    """
    return text.endswith(_SENTENCE_END) and not _NON_FINAL.search(text)


#: A prose fragment starting with one of these runs on from before (text after inline math, a footnote mark).
_RUNS_ON = ",;:)]"
#: ... and so does one whose first word, inside opening quotes, is in lower case ('“of”)). The model ...').
_QUOTED_LOWER = re.compile(r"^[\"'“‘]+[a-z]")


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
    parts = title_by_height(run_in_headings(classify(blocks, body_size(blocks))))
    entries = split_entries([p.block for p in parts if p.role == REFERENCE])
    references = parse_entries(entries)
    paragraphs = _paragraphs(parts, vocab, entries)
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


def _paragraphs(parts: Sequence[Part], vocab: Vocabulary, entries: Sequence[str]) -> list[Paragraph]:
    flow = _Flow(vocab)
    path: list[tuple[int, str]] = []
    for part in parts:
        if part.role == HEADING:
            path = [(level, text) for level, text in path if level < part.level] + [(part.level, part.text)]
        section = SECTION_SEPARATOR.join(text for _, text in path)
        if part.role == REFERENCE:
            if entries and not any(p.kind == REFERENCE for p in flow.out):
                flow.out += [Paragraph(entry, REFERENCE, section, part.block.page) for entry in entries]
            continue
        flow.add(part.role, _paragraph(part, vocab, section))
    return [p for p in flow.out if p.text]


class _Flow:
    """Paragraphs in reading order, joining what a column, page, figure or display-math break cut apart."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.out: list[Paragraph] = []
        self.open_prose: int | None = None  # a prose paragraph whose sentence runs on past a break
        self.last: dict[str, int] = {}  # the last paragraph of each role (prose under PROSE), even across a heading

    def add(self, role: str, paragraph: Paragraph) -> None:
        first = paragraph.text[:1]
        runs_on = (first.islower() or first in _RUNS_ON or (first in "([" and role != LIST_ITEM)
                   or _QUOTED_LOWER.match(paragraph.text) is not None)
        key = "prose" if role in PROSE else role
        last = self.last.get(key)
        text = self.out[last].text if last is not None else ""
        unfinished = last is not None and (not _finished(text) or key == "prose" and text.endswith(":"))
        if role in PROSE and self.open_prose is None and runs_on and unfinished:
            self.open_prose = last  # no sentence starts in lower case: a figure label or display math came between
        if role in PROSE and self.open_prose is not None and (paragraph.text[:1].isalnum() or runs_on):
            self.join(self.open_prose, paragraph)
        elif role in (FOOTNOTE, CAPTION) and runs_on and unfinished and last is not None:
            self.join(last, paragraph)  # a footnote or caption cut by a column or page break
        elif role in PROSE and first.islower() and self._cut_aside():
            self.join(len(self.out) - 1, paragraph)  # prose set smaller (read as a footnote) runs on in body size
        elif role == TITLE and self.out and self.out[-1].kind == TITLE:
            self.join(len(self.out) - 1, paragraph)  # a title set over several lines
        else:
            self.out.append(paragraph)
            self.last[key] = len(self.out) - 1
            self.open_prose = len(self.out) - 1 if role in PROSE else None if role == HEADING else self.open_prose
        if self.open_prose is not None and _finished(self.out[self.open_prose].text):
            self.open_prose = None

    def _cut_aside(self) -> bool:
        """Whether the paragraph just before is a footnote, caption or figure text whose sentence is unfinished
        (an abstract set small, "... without redoing" / "the proof-of-work.")."""
        return bool(self.out) and self.out[-1].kind in (FOOTNOTE, CAPTION, FIGURE) and not _finished(
            self.out[-1].text) and self.out[-1].text[-1:].isalpha()

    def join(self, at: int, rest: Paragraph) -> None:
        self.out[at] = _continued(self.out[at], rest, self.vocab)


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
