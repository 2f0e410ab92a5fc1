"""What each block of a paper is: title, authors, abstract, heading, body, list item, caption, table,
equation, figure text, footnote, header/footer, reference entry or appendix.

The rules read fonts, positions and a few words a paper always uses, never
any particular paper: the body font is the size most characters are set
in; a heading is a short line set bold or larger, or numbered ("3.1
Overview"); the title is the largest text at the top of the first page and
the authors what follows it before the abstract; "References" (or
"Bibliography") opens the reference list and a heading after it the
appendix; captions start "Figure 3:" or "Table 2."; footnotes are set
smaller in the lower part of a page; equations are set in math fonts;
tables are lines of several cells with numbers; short fragments that are
none of these are the text of figures.

>>> from kgcore.index.pdf.extract import Block, Line
>>> def block(text, size=10.0, bold=False, y=300.0, page=1):
...     return Block(page, (Line(text, (70, y, 500, y + size), size, bold),), (70, y, 500, y + size))
>>> parts = classify([block("A Tale of Two Retrievers", 17, True, 60), block("Ann Lee, Bo Chen", 11, False, 100),
...                   block("Abstract", 12, True, 150), block("We study retrieval for question answering in detail."),
...                   block("1 Introduction", 12, True, 400), block("Retrieval helps. " * 6, y=420),
...                   block("Figure 1: The model.", y=500), block("References", 12, True, 600),
...                   block("[1] A. Lee. Retrieval. 2020.", y=620)], body_size=10.0)
>>> [(p.role, p.level) for p in parts]  # doctest: +NORMALIZE_WHITESPACE
[('title', 0), ('authors', 0), ('heading', 1), ('abstract', 0), ('heading', 1), ('body', 0), ('caption', 0),
 ('heading', 1), ('reference', 0)]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.core.types import (
    ABSTRACT,
    APPENDIX,
    AUTHORS,
    BODY,
    CAPTION,
    EQUATION,
    FIGURE,
    FOOTNOTE,
    HEADING,
    LIST_ITEM,
    REFERENCE,
    TABLE,
    TITLE,
)
from kgcore.index.pdf.extract import MARK_SYMBOLS, Block

_NUMBERED = re.compile(r"^(?:(\d+(?:\.\d+)*)\.?|([A-Z](?:\.\d+)+|[A-Z]\.)|([IVX]+\.))\s+(?=\S)")
#: A caption's label, opening with a capital ("Figure 2:", "TABLE 1."; "through table 1." is a sentence's tail).
_CAPTION = re.compile(r"^(?=[A-Z])(?i:figure|fig\.|table|tab\.|algorithm|listing)\s*[A-Z]?\d+[.:]")
_LIST = re.compile(r"^(?:[•◦▪●‣–—*-]|\(?[a-z0-9ivx]{1,3}\))\s+\S")
#: A footnote's own mark set against its first word ("†Equal contribution.", "∗Corresponding author"): a bullet
#: or a list mark is followed by a space.
_FOOTNOTE_MARK = re.compile(rf"^[{MARK_SYMBOLS}]{{1,2}}[A-Za-z]")
_REFERENCES = re.compile(r"^(?:\d+\.?\s*)?(?:references|bibliography|literature cited|works cited)\s*$",
                         re.IGNORECASE)
_ABSTRACT = re.compile(r"^abstract\b[\s.:—–-]*", re.IGNORECASE)
_APPENDIX = re.compile(r"^(?:appendix|appendices|supplementary)|^[A-Z](?:\.\d+)*\.?\s+[A-Z]", re.IGNORECASE)
_APPENDIX_OPENS = re.compile(r"^(?:APPENDIX|Appendix)(?:\s+[A-Z]\b|:)?\s+[A-Z]")
#: A journal's or a report series' name set above a paper's title: never the title.
_MASTHEAD = re.compile(r"\b(?:Journal|Proceedings|Transactions|Technical Report|Preprint|Volume|Vol\.|Issue)\b|"
                       r"https?://|arXiv:", re.IGNORECASE)
#: A title set in a font whose size says nothing (Type 3 fonts scale a unit matrix) is this much taller than
#: the first page's typical line.
TITLE_HEIGHT = 1.2
_MATH_FONT = re.compile(r"cmmi|cmsy|cmex|msbm|msam|math|symbol|stix", re.IGNORECASE)
#: Typewriter fonts (Courier, TeX's cmtt/txtt/lmmono, Inconsolata, ... Mono): a block set in one that holds code
#: punctuation is a code listing, read like the text of a figure.
_MONO_FONT = re.compile(r"courier|mono|cmtt|sftt|txtt|lmtt|inconsolata|consola|menlo|typewriter", re.IGNORECASE)
_CODE = re.compile(r"[;=]|(?<!:)//|::|\w\(\w*\)")  # "//" of a comment, not of "https://"
#: Points smaller than the body font that mark a footnote (or an affiliation note set as one).
FOOTNOTE_SMALLER = 0.75
#: A block with this many words or more reads as prose.
PROSE_WORDS = 25


@dataclass(frozen=True)
class Part:
    """A block with its role (and, for headings, the level: 1 = section, 2 = subsection ...)."""

    block: Block
    role: str
    level: int = 0

    @property
    def text(self) -> str:
        return " ".join(line.text for line in self.block.lines)


def body_size(blocks: Sequence[Block]) -> float:
    """The font size most characters of the document are set in."""
    sizes: Counter[float] = Counter()
    for block in blocks:
        for line in block.lines:
            sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def heading_level(text: str, size: float, body: float) -> int:
    """1 for a section, 2 for a subsection ... from the numbering, else from the size.

    >>> heading_level("3.1 Overview", 10, 10), heading_level("4 Experiments", 12, 10), heading_level("Results", 10, 10)
    (2, 1, 2)
    """
    numbered = _NUMBERED.match(text)
    if numbered and (numbered.group(1) or numbered.group(2)):
        return (numbered.group(1) or numbered.group(2)).count(".") + 1
    return 1 if size >= body + 1.0 else 2


def is_heading(block: Block, body: float) -> bool:
    """A short line or two, set bold or larger than the body, or numbered, that does not read as a sentence."""
    text = " ".join(line.text for line in block.lines)
    words = text.split()
    if not words or len(block.lines) > 2 or len(words) > 14 or not (text[0].isupper() or text[0].isdigit()):
        return False
    if _CAPTION.match(text) or text.endswith((",", ";")) or sum(ch.isalpha() for ch in text) < 3:
        return False
    if re.search(r"[a-z]-$", text):
        return False  # a word hyphenated at the line end: prose set bold runs on ("Baichuan2-13b-chat, de-")
    styled = block.bold or block.size >= body + 1.0
    numbered = bool(_NUMBERED.match(text)) and len(words) >= 2 and not text.rstrip().endswith(".")
    return styled and not (text.endswith(".") and len(words) > 6) or (numbered and block.size >= body - 0.5)


def classify(blocks: Sequence[Block], body_size: float) -> list[Part]:
    """Every block (in reading order) with its role (see the module docstring)."""
    state = _State(body_size)
    return [state.part(piece) for block in blocks for cut in caption_cuts(block)
            for piece in front_cuts(cut, body_size)]


def run_in_headings(parts: Sequence[Part]) -> list[Part]:
    """A heading of a line or two followed on its page by prose that starts in lower case is a run-in heading
    ("Positive and negative passages For retrieval" / "problems, it is ..."): one paragraph of the prose's role.

    >>> from kgcore.index.pdf.extract import Line
    >>> def part(text, role, y):
    ...     box = (70, y, 300, y + 10)
    ...     return Part(Block(1, (Line(text, box, 10.0, role == HEADING),), box), role)
    >>> [(p.role, p.text) for p in run_in_headings([part("Training For retrieval", HEADING, 100),
    ...                                             part("problems, we do this.", BODY, 112)])]
    [('body', 'Training For retrieval problems, we do this.')]
    """
    out: list[Part] = []
    for part in parts:
        previous = out[-1] if out else None
        if (previous is not None and previous.role == HEADING and len(previous.block.lines) <= 2
                and part.role in (BODY, APPENDIX, FIGURE) and part.text[:1].islower()
                and previous.block.page == part.block.page):
            lines = previous.block.lines + part.block.lines  # a short line after it is no figure label
            out[-1] = Part(Block.of(part.block.page, lines), BODY if part.role == FIGURE else part.role)
        else:
            out.append(part)
    return out


def caption_cuts(block: Block) -> list[Block]:
    """``block`` cut before every line that opens a caption ("Figure 2: ..."), which layout analysis often
    groups with the paragraph above it."""
    starts = [0] + [i for i, line in enumerate(block.lines) if i and _CAPTION.match(line.text)]
    if len(starts) == 1:
        return [block]
    pieces = [block.lines[a:b] for a, b in zip(starts, starts[1:] + [len(block.lines)])]
    return [Block.of(block.page, lines) for lines in pieces]


#: A line of the front matter that names where an author works, or how to write to one.
_AFFILIATION = re.compile(r"\b(?:University|Universit[äéà]t?|Institute|Institut|College|School|Department|Dept\.|"
                          r"Laborator(?:y|ies)|Research|Inc\.|Corp\.|Ltd\.?|GmbH)\b|@\w")


def front_cuts(block: Block, body: float) -> list[Block]:
    """A page-one block set in a title's size (1.5 points above the ``body`` size or more) cut before a line that
    is an author's affiliation or a lone "Abstract", which layout analysis groups with a title set in the same
    font: "Tide Gauges ... / Helen Marsh, University of St Andrews / Abstract" is a title, an author line and the
    heading that opens the abstract.

    >>> from kgcore.index.pdf.extract import Line
    >>> lines = tuple(Line(t, (70, y, 300, y + 13), 13.0, True) for t, y in (
    ...     ("Tide Gauges and Storm Surges", 30), ("Helen Marsh, University of St Andrews", 54), ("Abstract", 77)))
    >>> [[line.text for line in b.lines] for b in front_cuts(Block.of(1, lines), 11.0)]
    [['Tide Gauges and Storm Surges'], ['Helen Marsh, University of St Andrews'], ['Abstract']]
    """
    if block.page != 1 or len(block.lines) < 2 or block.size < body + 1.5:
        return [block]
    starts = [0] + [i for i, line in enumerate(block.lines) if i and (
        _AFFILIATION.search(line.text) and not _AFFILIATION.search(block.lines[i - 1].text)
        or _ABSTRACT.match(line.text) and len(line.text.split()) <= 2)]
    if len(starts) == 1:
        return [block]
    return [Block.of(block.page, block.lines[a:b]) for a, b in zip(starts, starts[1:] + [len(block.lines)])]


class _State:
    """Where in the paper the walk is: front matter, abstract, body, references or appendix."""

    def __init__(self, body: float) -> None:
        self.body = body
        self.zone = "front"
        self.title_seen = False
        self.title_size = 0.0
        self.reference_size = 0.0  # the size the reference list's entries are set in
        self.float_kind = ""  # TABLE or FIGURE while the content of a float captioned in the list is read
        self.abstract_size = 0.0  # a run-in abstract's size ("Abstract. A purely ..."): its paragraphs share it

    def part(self, block: Block) -> Part:
        text = " ".join(line.text for line in block.lines)
        if is_heading(block, self.body) and (self.zone != "front" or _opens_paper(text) or block.page > 1):
            return self._heading(block, text)
        if len(block.lines) == 1 and _REFERENCES.match(text) and self.zone != "front":
            return self._heading(block, text)  # "REFERENCES" set in small capitals at body size
        if self.zone == "front":
            return self._front(block, text)
        if self.zone == "references" and _APPENDIX_OPENS.match(text):
            self.zone = "appendix"  # "APPENDIX This appendix presents ...": a run-in heading ends the list
        return Part(block, self._content(block, text))

    def _heading(self, block: Block, text: str) -> Part:
        if _REFERENCES.match(text):
            self.zone = "references"
        elif _ABSTRACT.match(text) and len(text.split()) <= 2:
            self.zone = "abstract"
        elif self.zone in ("references", "appendix") and _APPENDIX.match(text):
            self.zone = "appendix"
        elif self.zone != "references" or not _looks_like_reference(text):
            self.zone = "body" if self.zone not in ("references", "appendix") else self.zone
        if self.zone == "references" and not _REFERENCES.match(text) and _looks_like_reference(text):
            return Part(block, REFERENCE)
        return Part(block, HEADING, heading_level(text, block.size, self.body))

    def _front(self, block: Block, text: str) -> Part:
        if block.page == 1 and block.size >= self.body + 1.5 and not _MASTHEAD.search(text) and (
                not self.title_seen or abs(block.size - self.title_size) < 0.5) and not (
                self.title_seen and _AFFILIATION.search(text)):
            self.title_seen, self.title_size = True, block.size
            return Part(block, TITLE)
        if _ABSTRACT.match(text) and len(text.split()) > 3:
            self.zone, self.abstract_size = "abstract", block.size  # its next paragraphs, in its size, are abstract
            return Part(block, ABSTRACT)
        if len(text.split()) >= PROSE_WORDS and not block.bold:
            self.zone = "body"
            return Part(block, self._content(block, text))
        return Part(block, AUTHORS if block.page == 1 else self._content(block, text))

    def _content(self, block: Block, text: str) -> str:
        if self.zone == "abstract" and self.abstract_size and abs(block.size - self.abstract_size) > 0.3:
            self.zone, self.abstract_size = "body", 0.0  # a run-in abstract ends where its size does
        kind = _kind(block, text, self.body)
        if kind == FOOTNOTE and self.zone == "abstract":
            kind = BODY  # abstracts are often set a point smaller
        if self.zone == "references":
            return self._in_references(block, kind)
        if kind != BODY:
            return kind
        return {"abstract": ABSTRACT, "appendix": APPENDIX}.get(self.zone, BODY)

    def _in_references(self, block: Block, kind: str) -> str:
        """A block's role inside the reference list: an entry (lists are often set small, in fragments a figure
        rule would claim), a caption, or the content of the float it captions -- blocks set in another size than
        the entries after a caption ("Table 1: Summary of all the works ..." and its cells at 6 pt, after entries
        at 10 pt), until an entry's size comes back."""
        if kind == CAPTION:
            self.float_kind = TABLE if block.lines[0].text.lower().startswith("tab") else FIGURE
            return CAPTION
        if self.float_kind and self.reference_size and abs(block.size - self.reference_size) > 0.5:
            return self.float_kind
        self.float_kind = ""
        if kind in (BODY, FOOTNOTE, FIGURE, TABLE, LIST_ITEM):
            self.reference_size = self.reference_size or block.size
            return REFERENCE
        return kind


def _kind(block: Block, text: str, body: float) -> str:
    """The role a block has wherever it stands: caption, list item, footnote, equation, table, figure or body."""
    if _CAPTION.match(text):
        return CAPTION
    if _math_share(block) > 0.5:
        return EQUATION
    if _font_share(block, _MONO_FONT) > 0.5 and _CODE.search(text):
        return FIGURE  # a code listing: "double p = 1.0 - q;", "def relvar Property :: {...}"
    if _is_table(block):
        return TABLE
    if block.size <= body - FOOTNOTE_SMALLER and len(text.split()) >= 3 and not text[:1].islower():
        # a footnote opens with its mark, a digit or a capital (lower case runs on from prose); a diagram's label
        # is set as small
        return FIGURE if _figure_label(text) else FOOTNOTE
    if _FOOTNOTE_MARK.match(text):
        return FOOTNOTE  # set in the body's size, but marked as a footnote: not the prose it interrupts
    if _LIST.match(text):
        return LIST_ITEM
    words = text.split()
    broken = re.search(r"[a-z]-$", text.rstrip()) is not None  # a word hyphenated at the line end: prose runs on
    if len(words) <= 6 and not text.rstrip().endswith((".", "?", "!", ":")) and not broken:
        return TABLE if _digit_share(text) > 0.3 else FIGURE
    return BODY


def _figure_label(text: str) -> bool:
    """Small text that is a diagram's label, not a footnote: a few words, no sentence end, no address, no mark.

    >>> [_figure_label(t) for t in ("Owner 2's Private Key Owner 1's Private Key", "Prev Hash Nonce Tx Tx ...",
    ...                            "1 http://example.org/code", "Work done at Google.", "*Equal contribution")]
    [True, True, False, False, False]
    """
    words = text.split()
    return (len(words) <= 8 and not text.rstrip().endswith((".", "?", "!", ":")) or text.rstrip().endswith("...")) \
        and not re.search(r"https?://|www\.|@", text) and not words[0][:1].isdigit() and not _FOOTNOTE_MARK.match(text)


def _math_share(block: Block) -> float:
    return _font_share(block, _MATH_FONT)


def _font_share(block: Block, fonts: re.Pattern) -> float:
    """The share of the block's characters in lines set in one of ``fonts``."""
    chars = sum(len(line.text) for line in block.lines)
    return sum(len(line.text) for line in block.lines if fonts.search(line.font)) / max(chars, 1)


def _digit_share(text: str) -> float:
    return sum(ch.isdigit() for ch in text) / max(sum(not ch.isspace() for ch in text), 1)


def _is_table(block: Block) -> bool:
    """Several lines of several cells, with numbers in them; or, where the text layer gives no cell gaps (one
    span a line), lines of numbers none of which ends a sentence ("yod mod dod hod cod 2008 1 1 1 B20 ...")."""
    celled = [line for line in block.lines if len(line.cells) >= 2]
    text = " ".join(line.text for line in block.lines)
    if len(celled) >= 2 and len(celled) * 2 >= len(block.lines) and _digit_share(text) > 0.15:
        return True
    digits = _digit_share(text)
    return (digits >= 0.5 or digits >= 0.2 and len(block.lines) >= 2) and not any(
        line.text.rstrip().endswith((".", "?", "!")) for line in block.lines)


def _opens_paper(text: str) -> bool:
    """A heading that ends the front matter: "Abstract", a numbered section, "Introduction", a chapter."""
    return bool(_ABSTRACT.match(text) and len(text.split()) <= 2 or re.match(r"^\d+(?:\.\d+)*\.?\s+[A-Z]", text)
                or re.match(r"^(?:introduction|chapter|part|preface|prologue)\b", text, re.IGNORECASE))


def _looks_like_reference(text: str) -> bool:
    return bool(re.match(r"^\[\d+\]|^\d+\.\s+[A-Z]", text)) or bool(re.search(r"\b(19|20)\d{2}[a-z]?\b", text))


def title_by_height(parts: Sequence[Part]) -> list[Part]:
    """``parts`` with a title found when no block got the ``title`` role: of the first page's front matter
    (the blocks before its first heading, abstract or prose), the tallest short block whose lines are at least
    :data:`TITLE_HEIGHT` times the page's typical line height, with the blocks right after it set as tall
    (a title over two lines).  Type 3 fonts report one size for every text, so only the glyphs' height tells a
    title from its authors.

    >>> from kgcore.index.pdf.extract import Line
    >>> def part(text, y, height, role=AUTHORS):
    ...     box = (100, y, 400, y + height)
    ...     return Part(Block(1, (Line(text, box, 1.0, False),), box), role)
    >>> parts = [part("The PageRank Citation Ranking:", 100, 15), part("Bringing Order to the Web", 120, 15),
    ...          part("January 29, 1998", 150, 11), part("We rank pages by their links. " * 3, 180, 11, BODY)]
    >>> [(p.role, p.text[:25]) for p in title_by_height(parts)][:3]
    [('title', 'The PageRank Citation Ran'), ('title', 'Bringing Order to the Web'), ('authors', 'January 29, 1998')]
    """
    out = list(parts)
    if any(p.role == TITLE for p in parts):
        return out
    heights = sorted(line.box[3] - line.box[1] for p in parts if p.block.page == 1 for line in p.block.lines)
    if not heights:
        return out
    typical = heights[(len(heights) - 1) // 2]
    front = []
    for k, p in enumerate(parts):
        if p.block.page != 1 or p.role != AUTHORS:
            break
        front.append(k)
    candidates = [k for k in front if len(parts[k].block.lines) <= 2 and len(parts[k].text.split()) <= 20
                  and not _MASTHEAD.search(parts[k].text) and _height(parts[k]) >= TITLE_HEIGHT * typical]
    if not candidates:
        return out
    best = max(candidates, key=lambda k: (_height(parts[k]), -k))
    k = best
    while k in candidates and abs(_height(parts[k]) - _height(parts[best])) <= 0.1 * _height(parts[best]):
        out[k] = Part(parts[k].block, TITLE)
        k += 1
    return out


def _height(part: Part) -> float:
    """The median height of a block's lines."""
    heights = sorted(line.box[3] - line.box[1] for line in part.block.lines)
    return heights[len(heights) // 2]
