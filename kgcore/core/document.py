"""A loaded document: its cleaned text in paragraphs, where each paragraph is on the page, and what was found.

>>> p = Paragraph("He ran.", lines=(LineBox(2, (70.0, 100.0, 300.0, 110.0), 0),))
>>> Paragraph.from_dict(p.to_dict()) == p
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kgcore.core.types import BODY

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class LineBox:
    """Where a printed line of a paragraph is: its page, its box (points from the top-left) and its offset."""

    page: int
    box: Box
    start: int


@dataclass(frozen=True)
class Paragraph:
    """One block of a cleaned document.

    ``kind`` is its role (:data:`kgcore.core.types.ROLES`); ``section`` the
    heading path above it ("4 Experiments › 4.2 Results"); ``page`` the
    1-based PDF page it starts on (0 for sources without pages); ``start``
    its offset in :attr:`Document.text`; ``lines`` the printed lines of a
    PDF paragraph; ``table`` a table's rows of cells.
    """

    text: str
    kind: str = BODY
    section: str = ""
    page: int = 0
    start: int = -1
    lines: tuple[LineBox, ...] = ()
    table: tuple[tuple[str, ...], ...] = ()

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Paragraph:
        lines = tuple(LineBox(int(x["page"]), tuple(x["box"]), int(x["start"])) for x in data.get("lines", ()))
        table = tuple(tuple(row) for row in data.get("table", ()))
        simple = {k: data[k] for k in ("text", "kind", "section", "page", "start") if k in data}
        return cls(**simple, lines=lines, table=table)


@dataclass(frozen=True)
class Reference:
    """One entry of a document's reference list; ``key`` is its id in the document (``ref-12``)."""

    key: str
    label: str
    text: str
    authors: str = ""
    first_author: str = ""
    year: str = ""
    title: str = ""
    venue: str = ""
    arxiv: str = ""
    doi: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class IngestReport:
    """What reading a file found: pages, words, paragraphs and sentences per role, running lines dropped,
    references parsed, sentences whose citations resolved, and warnings (no text layer, garbled pages)."""

    pages: int = 0
    words: int = 0
    roles: dict[str, int] = field(default_factory=dict)
    sentences: dict[str, int] = field(default_factory=dict)
    header_footer_lines: int = 0
    #: Words taken out of a plain-text file as Project Gutenberg's header, licence and production credits.
    boilerplate_words: int = 0
    references: int = 0
    citations_resolved: int = 0
    #: Word gaps put back where a PDF's text layer has no space glyph (read from glyph positions).
    gaps_restored: int = 0
    #: Ligatures put back where a PDF's font gives no text for them ("di?erent" -> "different").
    ligatures_restored: int = 0
    warnings: tuple[str, ...] = ()
    #: The version of the reading (loading and sentence splitting) that produced the sentences
    #: (``kgcore.index.load.READER_VERSION``); 0 before it was recorded.
    reader: int = 0

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IngestReport:
        return cls(**{**data, "warnings": tuple(data.get("warnings", ()))})


@dataclass(frozen=True)
class Document:
    """A loaded, cleaned document before sentence splitting.

    ``text`` is the paragraphs' texts joined by blank lines; each
    :class:`Paragraph` knows its offset in it.  ``source_name`` is the file
    name as given (an upload's name, or the file's).
    """

    name: str
    text: str
    paragraphs: tuple[Paragraph, ...]
    source_path: str = ""
    source_sha256: str = ""
    source_name: str = ""
    references: tuple[Reference, ...] = ()
    report: IngestReport = field(default_factory=IngestReport)


@dataclass(frozen=True)
class Narrator:
    """Who "I" is in a book, how it was found, and how much text it touched.

    ``name`` is empty when the book is first-person but never names its
    narrator; ``source`` is ``"text"`` (self-naming found), ``"user"``
    (given in the index options) or ``"none"``; ``evidence`` quotes the
    self-naming phrase; ``resolved`` counts the pronouns rewritten.
    """

    name: str
    first_person_share: float
    source: str
    evidence: str = ""
    resolved: int = 0

    def to_dict(self) -> dict:
        return asdict(self)
