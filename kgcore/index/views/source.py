"""Where a sentence comes from: its paragraph in the cleaned document and, for PDFs, the page it is printed on.

:func:`passage` gives the paragraph around a sentence (with the sentence's
span in it), its section heading, its page and the paragraphs before and
after.  :func:`render_page` draws a PDF page with the sentence's words
highlighted, using pypdfium2 (PDFium, a permissive licence; no network): the
sentence is searched in the page's own text layer, whole or, where
extraction differs (ligatures, hyphenation), in runs of a few words.

>>> from kgcore.core.types import Sentence
>>> from kgcore.core.document import Paragraph
>>> paragraphs = [Paragraph("CHAPTER I", "heading", "CHAPTER I", 0, 0),
...               Paragraph("He ran. He hid.", "body", "CHAPTER I", 0, 11)]
>>> s = Sentence("d/text_0-2", 0, 2, 2, "He hid.", "He hid.", "He hid.", "d", 1, "CHAPTER I", 0, 19, 26)
>>> p = passage_of(s, paragraphs, "d.txt")
>>> p.paragraph[p.start:p.end], p.section, p.before
('He hid.', 'CHAPTER I', 'CHAPTER I')
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kgcore.core.document import Paragraph
from kgcore.core.errors import InputError, ModelUnavailableError
from kgcore.core.types import Sentence
from kgcore.index.pdf.extract import union
from kgcore.index.store.in_memory import Index

log = logging.getLogger(__name__)

#: Words per fragment when the whole sentence is not found on the page.
FRAGMENT_WORDS = 5
HIGHLIGHT = (255, 214, 0, 110)
Box = tuple[float, float, float, float]
Colour = tuple[int, int, int, int]


@dataclass(frozen=True)
class Passage:
    """A sentence in its paragraph: ``paragraph[start:end]`` is the sentence (start -1: not located)."""

    sentence_id: str
    doc_id: str
    source_file: str
    paragraph: str
    start: int
    end: int
    section: str
    page: int
    kind: str
    before: str = ""
    after: str = ""


@dataclass(frozen=True)
class PageImage:
    """A rendered PDF page (PNG) and the highlighted boxes (image pixels: left, top, right, bottom)."""

    png: bytes
    width: int
    height: int
    boxes: tuple[tuple[float, float, float, float], ...]

    @property
    def found(self) -> bool:
        return bool(self.boxes)


def passage(index: Index, sentence_id: str) -> Passage:
    """The source passage of a sentence of ``index`` (a document indexed by kgcore 0.1 has no paragraphs)."""
    sentence = index.sentence(sentence_id)
    return passage_of(sentence, index.paragraphs(sentence.doc_id), index.document(sentence.doc_id).manifest.source_file)


def passage_of(sentence: Sentence, paragraphs: Sequence[Paragraph], source_file: str) -> Passage:
    """:func:`passage` from the document's paragraphs."""
    if not 0 <= sentence.paragraph < len(paragraphs):
        return Passage(sentence.id, sentence.doc_id, source_file, sentence.original, 0, len(sentence.original),
                       sentence.section, sentence.page, sentence.role)
    paragraph = paragraphs[sentence.paragraph]
    start = sentence.start - paragraph.start if sentence.start >= 0 and paragraph.start >= 0 else -1
    if start < 0 or paragraph.text[start:start + len(sentence.original)] != sentence.original:
        start = paragraph.text.find(sentence.original)
    end = start + len(sentence.original) if start >= 0 else -1
    number = sentence.paragraph
    return Passage(sentence.id, sentence.doc_id, source_file, paragraph.text, start, end, paragraph.section,
                   paragraph.page, paragraph.kind, paragraphs[number - 1].text if number > 0 else "",
                   paragraphs[number + 1].text if number + 1 < len(paragraphs) else "")


def render_page(pdf: Path, page: int, text: str = "", scale: float = 1.5, boxes: Sequence[Box] = (),
                regions: Sequence[tuple[Box, Colour]] = ()) -> PageImage:
    """Page ``page`` (1-based) of ``pdf`` as PNG with a sentence highlighted.

    ``boxes`` are the sentence's stored line boxes on this page (points from the top-left, as
    :attr:`Sentence.boxes` has them, without the page): a line shared with the sentences before or after it is
    highlighted only where ``text`` is printed when the page's text layer holds ``text`` whole on those lines
    (PDFium's search, across line ends), else whole.  Without boxes the words of ``text`` are searched in the
    page's text layer (documents indexed before kgcore 0.3).  ``regions`` are outlined in their colour (RGBA),
    e.g. every paragraph's box coloured by role.
    """
    try:
        import pypdfium2 as pdfium
        from PIL import Image, ImageDraw
    except ImportError as exc:
        raise ModelUnavailableError("PDF pages need pypdfium2 and Pillow: pip install pypdfium2 pillow") from exc
    document = pdfium.PdfDocument(str(pdf))
    try:
        if not 1 <= page <= len(document):
            raise InputError("page", f"{pdf.name} has {len(document)} pages, not a page {page}")
        pdf_page = document[page - 1]
        height = pdf_page.get_height()
        textpage = pdf_page.get_textpage()
        needle = " ".join(text.split())
        from_top = [(x0, height - y1, x1, height - y0) for x0, y0, x1, y1 in (
            (_search(textpage, needle) or _search_chars(textpage, needle)) if boxes else _find(textpage, text))]
        image = pdf_page.render(scale=scale).to_pil().convert("RGBA")
    finally:
        document.close()
    if boxes:
        exact = [r for r in from_top if any(_on_line(r, b) for b in boxes)]
        from_top = exact if len(exact) == len(from_top) else []
    found = tuple(_scaled(b, scale) for b in (from_top or boxes))
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for box, colour in regions:
        draw.rectangle(_scaled(box, scale), outline=colour, fill=(*colour[:3], 28), width=2)
    for box in found:
        draw.rectangle(box, fill=HIGHLIGHT)
    buffer = io.BytesIO()
    Image.alpha_composite(image, overlay).convert("RGB").save(buffer, format="PNG")
    return PageImage(buffer.getvalue(), image.width, image.height, found)


def _scaled(box: Box, scale: float) -> Box:
    return (box[0] * scale - 1, box[1] * scale - 1, box[2] * scale + 1, box[3] * scale + 1)


def _on_line(rect: Box, line: Box) -> bool:
    """Whether a found rectangle (points from the top-left) lies on a stored line: its middle within the line's
    height, and the two overlapping across.

    >>> _on_line((180, 584, 473, 594), (31, 583, 563, 595)), _on_line((180, 600, 473, 611), (31, 583, 563, 595))
    (True, False)
    """
    middle = (rect[1] + rect[3]) / 2
    return line[1] - 1 <= middle <= line[3] + 1 and rect[0] < line[2] and rect[2] > line[0]


def _find(textpage, text: str) -> list[tuple[float, float, float, float]]:
    """Rectangles (PDF points) of ``text`` on the page: the whole text, else runs of :data:`FRAGMENT_WORDS` words."""
    words = text.split()
    pieces = [" ".join(words)] if words else []
    found = _search(textpage, pieces[0]) if pieces else []
    if found:
        return found
    for start in range(0, len(words), FRAGMENT_WORDS):
        found += _search(textpage, " ".join(words[start:start + FRAGMENT_WORDS]))
    return found


def _search(textpage, needle: str) -> list[tuple[float, float, float, float]]:
    if len(needle) < 4:
        return []
    searcher = textpage.search(needle, match_case=False)
    hit = searcher.get_next()
    if hit is None:
        return []
    first, count = hit
    return [textpage.get_rect(i) for i in range(textpage.count_rects(first, count))]


#: What a text layer writes where a word is hyphenated across lines (PDFium's mark, a soft hyphen) and the hyphen:
#: both are left out on either side when a sentence is matched character by character.
_HYPHENS = frozenset("\ufffe\u00ad\u0002-")


def _search_chars(textpage, needle: str) -> list[tuple[float, float, float, float]]:
    """The line rectangles (PDF points) of ``needle`` found character by character in the page's text, hyphens and
    line breaks aside: the sentence as the reader joined it ("information", "multi-document") where PDFium's own
    search fails on a word hyphenated across a line end ("infor-/mation", "multi-/document")."""
    text = textpage.get_text_range()
    if len(text) != textpage.count_chars():  # characters left out or added: positions are not char indices
        return []
    kept: list[int] = []
    chars: list[str] = []
    for i, c in enumerate(text):
        if c in _HYPHENS or (c.isspace() and (not chars or chars[-1] == " ")):
            continue
        lower = c.lower()
        chars.append(" " if c.isspace() else lower if len(lower) == 1 else c)  # "İ" lowers to two characters
        kept.append(i)
    wanted = " ".join(needle.translate({ord(h): None for h in _HYPHENS}).split()).lower()
    at = "".join(chars).find(wanted) if len(wanted) >= 4 else -1
    if at < 0:
        return []
    import pypdfium2 as pdfium

    try:
        return _lines([textpage.get_charbox(kept[k]) for k in range(at, at + len(wanted)) if chars[k] != " "])
    except pdfium.PdfiumError as exc:  # a character PDFium cannot place: the stored lines are highlighted instead
        log.warning("no character boxes for a sentence: %s", exc)
        return []


def _lines(boxes: Sequence[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Character boxes in reading order joined into line rectangles: a box that goes on rightwards and overlaps the
    line's height joins it; one back at the left (the next line) or in another column starts a new one.

    >>> _lines([(10, 100, 14, 108), (15, 99, 19, 110), (10, 80, 14, 90), (300, 700, 304, 710)])
    [(10, 99, 19, 110), (10, 80, 14, 90), (300, 700, 304, 710)]
    """
    lines: list[tuple[float, float, float, float]] = []
    previous = 0.0
    for left, bottom, right, top in boxes:
        if lines and left >= previous - 1 and bottom <= lines[-1][3] and top >= lines[-1][1]:
            x0, y0, x1, y1 = lines[-1]
            lines[-1] = (min(x0, left), min(y0, bottom), max(x1, right), max(y1, top))
        else:
            lines.append((left, bottom, right, top))
        previous = left
    return lines


def sentence_boxes(sentence: Sentence, page: int) -> list[Box]:
    """The stored line boxes of ``sentence`` on ``page`` (empty for text sources and older indexes).

    >>> s = Sentence("d/text_0-0", 0, 0, 0, "Hi.", "Hi.", "Hi.", "d", boxes=((2, 1.0, 2.0, 3.0, 4.0),))
    >>> sentence_boxes(s, 2), sentence_boxes(s, 3)
    ([(1.0, 2.0, 3.0, 4.0)], [])
    """
    return [(x0, y0, x1, y1) for p, x0, y0, x1, y1 in sentence.boxes if p == page]


def page_regions(paragraphs: Sequence[Paragraph], page: int) -> list[tuple[str, Box]]:
    """(role, box) of every paragraph printed on ``page``: the union of its lines there.

    >>> from kgcore.core.document import LineBox
    >>> p = Paragraph("A b.", "caption", lines=(LineBox(1, (10, 20, 90, 30), 0), LineBox(1, (10, 31, 60, 41), 2)))
    >>> page_regions([p], 1), page_regions([p], 2)
    ([('caption', (10, 20, 90, 41))], [])
    """
    regions = []
    for paragraph in paragraphs:
        boxes = [line.box for line in paragraph.lines if line.page == page]
        if boxes:
            regions.append((paragraph.kind, union(boxes)))
    return regions
