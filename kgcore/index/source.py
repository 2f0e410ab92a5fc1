"""Where a sentence comes from: its paragraph in the cleaned document and, for PDFs, the page it is printed on.

:func:`passage` gives the paragraph around a sentence (with the sentence's
span in it), its section heading, its page and the paragraphs before and
after.  :func:`render_page` draws a PDF page with the sentence's words
highlighted, using pypdfium2 (PDFium, a permissive licence; no network): the
sentence is searched in the page's own text layer, whole or, where
extraction differs (ligatures, hyphenation), in runs of a few words.

>>> from kgcore.core.types import Paragraph, Sentence
>>> paragraphs = [Paragraph("CHAPTER I", "heading", "CHAPTER I", 0, 0),
...               Paragraph("He ran. He hid.", "body", "CHAPTER I", 0, 11)]
>>> s = Sentence("d/text_0-2", 0, 2, 2, "He hid.", "He hid.", "He hid.", "d", 1, "CHAPTER I", 0, 19, 26)
>>> p = passage_of(s, paragraphs, "d.txt")
>>> p.paragraph[p.start:p.end], p.section, p.before
('He hid.', 'CHAPTER I', 'CHAPTER I')
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kgcore.core.errors import InputError, ModelUnavailableError
from kgcore.core.types import Paragraph, Sentence
from kgcore.index.loaded import Index

#: Words per fragment when the whole sentence is not found on the page.
FRAGMENT_WORDS = 5
HIGHLIGHT = (255, 214, 0, 110)


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


def render_page(pdf: Path, page: int, text: str, scale: float = 1.5) -> PageImage:
    """Page ``page`` (1-based) of ``pdf`` as PNG, with the words of ``text`` highlighted where the page has them."""
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
        rects = _find(pdf_page.get_textpage(), text)
        image = pdf_page.render(scale=scale).to_pil().convert("RGBA")
    finally:
        document.close()
    boxes = tuple((x0 * scale, (height - y1) * scale, x1 * scale, (height - y0) * scale) for x0, y0, x1, y1 in rects)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for box in boxes:
        draw.rectangle(box, fill=HIGHLIGHT)
    buffer = io.BytesIO()
    Image.alpha_composite(image, overlay).convert("RGB").save(buffer, format="PNG")
    return PageImage(buffer.getvalue(), image.width, image.height, boxes)


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
