"""A PDF's text layer with its layout: pages of blocks of lines, each line with its box and font.

pdftext (Apache-2.0, on pypdfium2/PDFium) reads the characters with their
boxes and fonts and groups them into lines and blocks; this module turns
its output into small frozen value types with ligatures expanded and
whitespace normalised, and says which pages have no text layer or a
garbled one (a broken font encoding gives "ob vious tec hniques" or
private-use code points).  Coordinates are PDF points from the page's
top-left corner.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kgcore.core.errors import InputError
from kgcore.core.limits import limit_error
from kgcore.index.pdf.glyphs import ligature_codes, line_text
from kgcore.index.pdf.guard import (
    DEFAULT_LIMITS,
    PdfLimits,
    check_pages,
    check_pdf,
    page_count,
    pdfium_module,
)
from kgcore.index.pdf.vocab import glued_pages, restore_lines

Box = tuple[float, float, float, float]
#: Pages extracted per pdftext call (progress is reported after each).
PAGE_BATCH = 16
#: Raw ligature codes inside words (a symbol font's code standing apart does not count) that make a document be
#: read from its glyphs.
CODED = 1
#: Presentation forms (ligatures ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ) expand by NFKC; nothing else is changed here.
_LIGATURES = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}
_LIGATURE_TABLE = str.maketrans(_LIGATURES)
#: The symbols papers mark footnotes with (besides numbers).
MARK_SYMBOLS = "*∗†‡§¶"
#: A footnote mark alone: a number or one or two of :data:`MARK_SYMBOLS` (also a stray sentence, see
#: :func:`kgcore.index.sentences.merge_false_splits`).
FOOTNOTE_MARK = re.compile(rf"^(?:\d{{1,2}}|[{MARK_SYMBOLS}]{{1,2}})$")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b\u202f]+")
#: A page is garbled when this share of its words are single letters (broken font spacing) ...
GARBLED_SINGLE_LETTERS = 0.25
#: ... or this share of its characters are private-use or replacement characters.
GARBLED_ODD_CHARS = 0.05


@dataclass(frozen=True)
class Line:
    """One line of text: its words, box, dominant font size and whether it is bold (by character count)."""

    text: str
    box: Box
    size: float
    bold: bool
    font: str = ""
    #: The line cut where its spans leave a gap wider than the font size (table cells).
    cells: tuple[str, ...] = ()


@dataclass(frozen=True)
class Block:
    """A block of lines as PDFium's layout grouped them, on a 1-based page."""

    page: int
    lines: tuple[Line, ...]
    box: Box

    @classmethod
    def of(cls, page: int, lines: tuple[Line, ...]) -> Block:
        """The block of ``lines`` on ``page``, its box their union."""
        return cls(page, lines, union([line.box for line in lines]))

    @property
    def size(self) -> float:
        """The block's dominant font size (of its longest line)."""
        return max(self.lines, key=lambda line: len(line.text)).size if self.lines else 0.0

    @property
    def bold(self) -> bool:
        bold = sum(len(x.text) for x in self.lines if x.bold)
        return bool(self.lines) and bold * 2 > sum(len(x.text) for x in self.lines)


@dataclass(frozen=True)
class Page:
    """A page: its size, its blocks and what is wrong with its text layer, if anything."""

    number: int
    width: float
    height: float
    blocks: tuple[Block, ...]
    #: Why the page's text cannot be used (no text layer, broken spacing): reported, never indexed.
    problem: str = ""
    #: Something reported about a page whose text is used (unmapped characters removed).
    note: str = ""
    #: Word gaps and ligatures restored from glyph positions and the document's vocabulary (all pages, on page 1).
    restored: tuple[int, int] = (0, 0)
    #: Raw ligature codes in its text layer (a font without a text mapping): the document is read from its glyphs.
    coded: int = 0


def clean_text(text: str) -> str:
    """Ligatures expanded, control characters and odd spaces normalised, soft hyphens dropped, and
    characters no font maps to text (private use, U+FFFD) removed.

    >>> clean_text("e\\ufb03cient \\ufb01ne-tuning\\u00ad and\\tmore \\ue001\\ufffd1")
    'efficient fine-tuning and more 1'
    """
    text = text.translate(_LIGATURE_TABLE).replace("\u00ad", "")
    text = "".join(ch for ch in text if (ch >= " " or ch == "\t") and not unmapped(ch))
    return _SPACES.sub(" ", text).strip()


def unmapped(ch: str) -> bool:
    """A private-use or replacement character: a glyph whose font gives no text for it."""
    return "\ue000" <= ch <= "\uf8ff" or ch == "\ufffd"


def garbled(text: str) -> str:
    """Why a page's text looks garbled, or "" (single-letter fragments, private-use characters).

    >>> garbled("It is ob vious to try to apply standard citation analysis tec hniques")
    ''
    >>> bool(garbled("I t i s o b v i o u s t o t r y t h i s a p p r o a c h h e r e"))
    True
    """
    words = text.split()
    if len(words) < 20:
        return ""
    singles = sum(1 for w in words if len(w) == 1 and w.isalpha() and w.lower() not in "ai")
    if singles / len(words) > GARBLED_SINGLE_LETTERS:
        return f"{singles} of {len(words)} words are single letters (a broken font encoding)"
    odd = sum(1 for ch in text if unmapped(ch))
    if odd / max(len(text), 1) > GARBLED_ODD_CHARS:
        return f"{odd} private-use or unknown characters (a font without a text mapping)"
    return ""


def read_pages(data: bytes, filename: str, progress: Callable[[int, int], None] | None = None,
               limits: PdfLimits = DEFAULT_LIMITS) -> list[Page]:
    """Every page of the PDF in ``data``; an unreadable or encrypted PDF is an :class:`InputError`.

    The page count and each page's inflated content are checked against ``limits`` before any page is read
    (:mod:`kgcore.index.pdf.guard`), the text's characters as pages come in.  Pages are read
    :data:`PAGE_BATCH` at a time (memory stays bounded by a batch's characters, not the file's),
    ``progress(done, total)`` after each batch.  Pages that look glued (:func:`~kgcore.index.pdf.vocab.glued_pages`),
    and every page of a document whose fonts leave glyphs without a text mapping (raw ligature codes), are read
    again from their glyphs (:mod:`kgcore.index.pdf.glyphs`); the others keep PDFium's word gaps.  Nothing in the
    file is executed: PDFium only reads text and boxes (JavaScript and forms are ignored).
    """
    total = page_count(pdfium_module(), data, filename)
    check_pages(total, filename, limits)
    check_pdf(data, filename, limits)
    coded = _coded(data)  # raw ligature codes on the first pages: every page is read from its glyphs at once
    pages = _read(data, filename, range(total), coded, progress, limits)
    again = [] if coded else (range(total) if sum(p.coded for p in pages) >= CODED
                              else glued_pages([" ".join(x.text for b in p.blocks for x in b.lines) for p in pages]))
    for page in _read(data, filename, again, True, None, limits) if again else ():
        pages[page.number - 1] = page
    return restore_pages(pages)


def _coded(data: bytes, pages: int = 2) -> bool:
    """Whether the first ``pages`` pages' text (PDFium's own, no layout) holds raw TeX ligature codes in words;
    0x0D ("fl" in OT1) is also PDFium's line end there, so a document coded only so is found by the first reading."""
    document = pdfium_module().PdfDocument(data)
    try:
        text = "".join(document[k].get_textpage().get_text_range() for k in range(min(pages, len(document))))
    finally:
        document.close()
    return ligature_codes(text.replace("\r", "")) >= CODED


def _read(data: bytes, filename: str, numbers: Sequence[int], glyphs: bool,
          progress: Callable[[int, int], None] | None, limits: PdfLimits) -> list[Page]:
    """The pages ``numbers`` (0-based), read from their glyphs or not, :data:`PAGE_BATCH` at a time."""
    pdfium_module()
    from pdftext.extraction import dictionary_output

    pages: list[Page] = []
    chars = 0
    for first in range(0, len(numbers), PAGE_BATCH):
        batch = list(numbers[first:first + PAGE_BATCH])
        try:
            raw = dictionary_output(data, page_range=batch, keep_chars=glyphs, disable_links=True, workers=1)
        except Exception as exc:  # noqa: BLE001 - PDFium and pdftext raise many types on hostile input
            raise InputError(filename, f"unreadable page {batch[0] + 1}-{batch[-1] + 1} "
                                       f"({type(exc).__name__}: {exc})") from None
        pages += [_page(number, page) for number, page in zip(batch, raw)]
        chars += sum(len(line.text) + 1 for page in pages[-len(batch):] for block in page.blocks
                     for line in block.lines)
        if chars > limits.max_chars:
            raise limit_error(filename, "max_text_chars", chars, limits.max_chars)
        if progress:
            progress(len(pages), len(numbers))
    return pages


def restore_pages(pages: list[Page]) -> list[Page]:
    """The pages with the word gaps and ligature codes their lines marked decided by the document's own words
    (:mod:`kgcore.index.pdf.vocab`); the counts go on the first page."""
    lines = [line for page in pages for block in page.blocks for line in block.lines]
    restored = restore_lines([line.text for line in lines])
    if not restored.gaps and not restored.ligatures and restored.texts == [line.text for line in lines]:
        return pages
    texts = iter(restored.texts)
    out = []
    for page in pages:
        blocks = tuple(replace(block, lines=tuple(replace(line, text=_SPACES.sub(" ", next(texts)).strip())
                                                  for line in block.lines)) for block in page.blocks)
        out.append(replace(page, blocks=blocks))
    out[0] = replace(out[0], restored=(restored.gaps, restored.ligatures))
    return out


def _page(index: int, raw: dict) -> Page:
    number = index + 1
    raw_blocks = [[line for line in (_line(raw_line) for raw_line in raw_block.get("lines", [])) if line.text]
                  for raw_block in raw.get("blocks", [])]
    blocks = [Block.of(number, run) for lines in join_rows(raw_blocks) for run in style_runs(tuple(lines))]
    raw_text = " ".join(s.get("text", "") for b in raw.get("blocks", []) for x in b.get("lines", [])
                        for s in x.get("spans", []))
    problem = "no text layer (a scanned page needs OCR)" if not raw_text.strip() else garbled(raw_text)
    odd = sum(1 for ch in raw_text if unmapped(ch))
    if problem.endswith("(a font without a text mapping)") or not problem and odd:
        note, problem = f"{odd} characters without a text mapping removed (formulas may read incompletely)", ""
    else:
        note = ""
    coded = ligature_codes(raw_text)
    return Page(number, float(raw.get("width", 0)), float(raw.get("height", 0)), tuple(blocks), problem, note,
                coded=coded)


def join_rows(blocks: Sequence[Sequence[Line]]) -> list[list[Line]]:
    """Blocks with the pieces of one printed row joined again, in PDFium's order.

    PDFium ends a line, and often a block, wherever a sub- or superscript
    starts ("p(z" / "i" / "|x) ..."), so inline mathematics would cut its
    sentence in two.  A line that :func:`continues` the line before it is
    joined to it; when it opens a block, that block's other lines join the
    block before it too (they are the same paragraph).

    >>> a = Line("posterior p(z", (100, 140, 160, 151), 10.0, False)
    >>> i = Line("i", (160.5, 145, 163, 152), 7.0, False)
    >>> b = Line("|x) for each token", (163.5, 140, 250, 151), 10.0, False)
    >>> c = Line("of the input.", (100, 152, 160, 163), 10.0, False)
    >>> [[x.text for x in block] for block in join_rows([[a], [i], [b, c]])]
    [['posterior p(z i|x) for each token', 'of the input.']]
    """
    out: list[list[Line]] = []
    for lines in blocks:
        for k, line in enumerate(lines):
            if out and out[-1] and continues(out[-1][-1], line):
                out[-1][-1] = joined(out[-1][-1], line)
            elif k == 0:
                out.append([line])
            else:
                out[-1].append(line)
    return out


def continues(a: Line, b: Line) -> bool:
    """Whether ``b`` goes on ``a``'s printed row: it starts where ``a`` ends (within half a font size either
    way) and their boxes share at least 30 % of the smaller one's height (a sub- or superscript does; the
    next line, the other column or a table cell a gutter away does not).

    >>> row = Line("p(z", (100, 140, 130, 151), 10.0, False)
    >>> continues(row, Line("i", (130.5, 145, 133, 152), 7.0, False))
    True
    >>> continues(row, Line("next line", (100, 152, 160, 163), 10.0, False))
    False
    >>> continues(row, Line("other column", (150, 140, 260, 151), 10.0, False))
    False
    """
    size = max(a.size, b.size, 1.0)
    gap = b.box[0] - a.box[2]
    overlap = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    height = min(a.box[3] - a.box[1], b.box[3] - b.box[1])
    return b.box[0] > a.box[0] and abs(gap) <= 0.5 * size and height > 0 and overlap >= 0.3 * height


def joined(a: Line, b: Line) -> Line:
    """``a`` and ``b`` (which :func:`continues` it) as one line, with a space where a word gap separates them
    or where a change of size would fuse two words or numbers (2 and superscript 22 are not "222"; a footnote
    number before its note), and before a footnote mark set after a sentence's end (the sentence ends there);
    its size, weight and font are those of most of its characters.

    >>> def line(text, x0, x1, size):
    ...     return Line(text, (x0, 100, x1, 110), size, False)
    >>> joined(line("into 2", 100, 130, 10.0), line("22", 130.5, 136, 7.0)).text
    'into 2 22'
    >>> joined(joined(line("p(z", 100, 115, 10.0), line("i", 115, 117, 7.0)), line("|x)", 117, 130, 10.0)).text
    'p(z i|x)'
    >>> joined(line("2", 121, 125, 6.0), line("For example.", 125, 180, 9.0)).text
    '2 For example.'
    >>> joined(line("do not update it.", 100, 180, 10.0), line("3", 180, 183, 7.0)).text
    'do not update it. 3'
    >>> joined(line("it.", 100, 110, 10.0), Line("3 Note that", (110, 97, 160, 110), 10.0, False)).text
    'it. 3 Note that'
    """
    gap = b.box[0] - a.box[2] > 0.15 * max(a.size, b.size, 1.0)
    fused = abs(a.size - b.size) > 0.5 and a.text[-1].isalnum() and b.text[0].isalnum()
    raised = b.size < a.size - 0.5 or b.box[1] < a.box[1] - 1.0
    tail = a.text.rstrip("\"”’)")[-1:]
    mark = raised and FOOTNOTE_MARK.match(b.text.split()[0]) and tail != "" and tail in ".!?"
    space = " " if gap or fused or mark else ""
    main = a if len(a.text) >= len(b.text) else b
    bold = sum(len(x.text) for x in (a, b) if x.bold) * 2 > len(a.text) + len(b.text)
    cells = (a.cells[:-1] + (a.cells[-1] + space + b.cells[0],) + b.cells[1:]) if a.cells and b.cells \
        else a.cells + b.cells
    return Line(a.text + space + b.text, union([a.box, b.box]), main.size, bold, main.font, cells)


def style_runs(lines: tuple[Line, ...]) -> list[tuple[Line, ...]]:
    """A block's lines cut wherever the font size or weight changes (a heading set into the next paragraph,
    a title above its authors); a change of half a point or less is the same style.

    >>> a, b = Line("3 Results", (0, 0, 60, 12), 11.0, True), Line("We won.", (0, 14, 60, 24), 9.0, False)
    >>> [[x.text for x in run] for run in style_runs((a, b, b))]
    [['3 Results'], ['We won.', 'We won.']]
    """
    runs: list[list[Line]] = []
    for line in lines:
        if runs and abs(line.size - runs[-1][-1].size) <= 0.5 and line.bold == runs[-1][-1].bold:
            runs[-1].append(line)
        else:
            runs.append([line])
    return [tuple(run) for run in runs]


def _line(raw: dict) -> Line:
    spans = raw.get("spans", [])
    text = clean_text(line_text(spans).replace("\n", " "))
    weights: Counter[bool] = Counter()
    sizes: Counter[float] = Counter()
    fonts: Counter[str] = Counter()
    for span in spans:
        n = len(span.get("text", "").strip())
        font = span.get("font", {})
        weights[(font.get("weight") or 0) >= 600 or "bold" in str(font.get("name", "")).lower()] += n
        sizes[round(float(font.get("size") or 0), 1)] += n
        fonts[str(font.get("name", ""))] += n
    x0, y0, x1, y1 = (float(v) for v in raw.get("bbox") or (0, 0, 0, 0))
    size = sizes.most_common(1)[0][0] if sizes else 0.0
    return Line(text, (x0, y0, x1, y1), size, weights[True] > weights[False],
                fonts.most_common(1)[0][0] if fonts else "", _cells(spans, size))


def _cells(spans: list[dict], size: float) -> tuple[str, ...]:
    """The span texts grouped into cells wherever a horizontal gap wider than ``size`` separates them."""
    cells: list[str] = []
    right: float | None = None
    for span in spans:
        box = span.get("bbox") or (0, 0, 0, 0)
        text = span.get("text", "").replace("\n", " ")
        if not cells or (right is not None and box[0] - right > max(size, 1.0)):
            cells.append(text)
        else:
            cells[-1] += text
        right = box[2] if right is None else max(right, box[2])
    return tuple(c for c in (clean_text(c) for c in cells) if c)


def union(boxes: Sequence[Box]) -> Box:
    """The smallest box holding ``boxes``."""
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
