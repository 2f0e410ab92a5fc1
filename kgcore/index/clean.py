"""Cleaning raw text into paragraphs: Project Gutenberg boilerplate, markdown, hard wraps, headings, front matter.

    text -> strip Project Gutenberg header/footer -> (strip markdown) -> reflow paragraphs
         -> kinds (body, heading, front matter) and the section each paragraph belongs to

>>> reflow("He went down\\nthe lane\\n\\n[Illustration]\\n\\nTo gather blackberries.")
['He went down the lane To gather blackberries.']
>>> text = ("THE TALE\\n\\nBy B. Potter\\n\\nOnce upon a time there were four little Rabbits, and their names "
...         "were Flopsy and Peter.\\n\\nCHAPTER I\\n\\nThey ran.")
>>> [(p.kind, p.section) for p in clean_paragraphs(text)]
[('front_matter', ''), ('front_matter', ''), ('body', ''), ('heading', 'CHAPTER I'), ('body', 'CHAPTER I')]
"""

from __future__ import annotations

import re

from kgcore.core.document import Paragraph
from kgcore.core.nlp import TITLE_ABBREVIATIONS
from kgcore.core.types import BODY, FRONT_MATTER, HEADING

#: Front matter ends at the first paragraph that reads like prose: at least this many words ...
BODY_MIN_WORDS = 12
#: ... or a finished sentence of at least this many words.
BODY_MIN_SENTENCE_WORDS = 5
#: A table of contents among the first this many blocks is front matter, with everything before it: a transcriber's
#: note that reads like prose ("The footnotes have been incrementally numbered ...") no longer starts the body.
CONTENTS_WITHIN = 40
#: ... when at most this many prose blocks come before it (a document whose text runs on before a contents list
#: keeps that text).
PROSE_BEFORE_CONTENTS = 2
_CONTENTS_RE = re.compile(r"^(?:table of )?contents\.?$", re.IGNORECASE)
_FRONT_MATTER_RE = re.compile(
    r"^(?:by|illustrat|with illustrations|copyright|all rights reserved|contents|table of contents|published|"
    r"printed|first published|edition|translated|author of|frontispiece|list of illustrations)\b", re.IGNORECASE)


#: A reflowed block: (text, kind, page).
Block = tuple[str, str, int]


def clean_paragraphs(text: str, markdown: bool = False) -> list[Paragraph]:
    """The paragraphs of ``text`` after boilerplate removal and reflow, with their kind and section.

    Offsets (``start``) are left at -1; the loader sets them when it joins the paragraphs.
    """
    return clean_text(text, markdown)[0]


def clean_text(text: str, markdown: bool = False) -> tuple[list[Paragraph], int]:
    """:func:`clean_paragraphs`, and how many words the Project Gutenberg boilerplate took out with it.

    >>> paragraphs, dropped = clean_text("Licence a b c\\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\\nStory.")
    >>> [p.text for p in paragraphs], dropped
    (['Story.'], 13)
    """
    body = strip_gutenberg(text)
    return classify(reflow_pages([(0, body)], markdown=markdown)), len(text.split()) - len(body.split())


def classify(blocks: list[Block]) -> list[Paragraph]:
    """Paragraphs from (text, kind, page) blocks; each heading opens the section of what follows it.

    >>> [(p.kind, p.section) for p in classify([("CONTENTS", FRONT_MATTER, 0), ("It rained all day long.", BODY, 0),
    ...                                         ("The End", HEADING, 0), ("Fin.", BODY, 0)])]
    [('front_matter', ''), ('body', ''), ('heading', 'The End'), ('body', 'The End')]
    """
    out: list[Paragraph] = []
    section = ""
    for text, kind, page in blocks:
        if kind == HEADING:
            section = text
        out.append(Paragraph(text, kind, section, page))
    return out


def front_matter_blocks(blocks: list[str]) -> int:
    """How many leading blocks are front matter: everything before the first prose block.

    Prose is a block of :data:`BODY_MIN_WORDS` words, or a finished sentence of
    :data:`BODY_MIN_SENTENCE_WORDS`, that is not a title-page line ("By ...",
    "Illustrated by ...", "Contents") nor written in capitals (a list of chapter titles).  A document whose prose
    never starts has no front matter.  A "Contents" block among the first :data:`CONTENTS_WITHIN`, after at most
    :data:`PROSE_BEFORE_CONTENTS` prose blocks, is front matter with all before it: the body starts at the first
    prose after it.

    >>> front_matter_blocks(["THE TALE", "By B. Potter", "Once upon a time there were four little rabbits."])
    2
    >>> front_matter_blocks(["The footnotes have been numbered in [ ] marks and placed after their paragraph",
    ...                      "THE GHOST", "Contents", "I IS IT A GHOST? II THE NEW MARGARITA III THE MYSTERIOUS "
    ...                      "REASON IV BOX FIVE", "The Opera ghost really existed. He was not imagined."])
    4
    """
    # lazily: only the first prose blocks are ever needed, not a judgement of every block of the book
    prose = (i for i, block in enumerate(blocks) if _is_prose(block.removeprefix(_MD_HEADING))
             and not block.startswith(_MD_HEADING))
    first = next(prose, None)
    if first is None:
        return 0
    contents = next((i for i, block in enumerate(blocks[:CONTENTS_WITHIN])
                     if _CONTENTS_RE.match(block.removeprefix(_MD_HEADING).strip())), None)
    if contents is None or contents < first:
        return first
    before = 1  # prose blocks before the contents list
    for i in prose:
        if i > contents:
            return i if before <= PROSE_BEFORE_CONTENTS else first
        before += 1
    return first


def _is_prose(text: str) -> bool:
    words = len(text.split())
    if _FRONT_MATTER_RE.match(text) or _capitals(text):
        return False
    return words >= BODY_MIN_WORDS or (words >= BODY_MIN_SENTENCE_WORDS and _ends_sentence(text))


def _capitals(text: str) -> bool:
    """Written in capitals: nine in ten of its letters (a list of chapter titles, not a sentence).

    >>> _capitals("I IS IT A GHOST? II THE NEW MARGARITA"), _capitals("He said: I AM HERE. Then he left.")
    (True, False)
    """
    letters = [ch for ch in text if ch.isalpha()]
    return len(letters) >= 20 and sum(ch.isupper() for ch in letters) >= 0.9 * len(letters)


_START_RE = re.compile(r"^\s*\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK", re.IGNORECASE)
_END_RE = re.compile(
    r"^\s*(?:\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG|End of (?:the )?Project Gutenberg)", re.IGNORECASE
)
_CREDIT_RE = re.compile(r"^\s*(?:Produced by|Transcribed from|E-?text prepared by|This e-?text was)", re.IGNORECASE)


def strip_gutenberg(text: str) -> str:
    """Remove the Project Gutenberg header, licence footer and production credits.

    The START marker may wrap over two lines; text without markers is
    returned unchanged.

    >>> raw = "Licence blah\\n***START OF THE PROJECT GUTENBERG EBOOK A\\nLONG TITLE***\\n\\n"
    >>> raw += "Produced by Someone.\\n\\nStory.\\n\\n*** END OF THIS PROJECT GUTENBERG EBOOK A ***\\nMore licence."
    >>> strip_gutenberg(raw).strip()
    'Story.'
    >>> strip_gutenberg("No markers here.")
    'No markers here.'
    """
    lines = text.splitlines(keepends=True)
    start = _body_start(lines)
    end = next((i for i in range(start, len(lines)) if _END_RE.match(lines[i])), len(lines))
    if start == 0 and end == len(lines):
        return text
    return "".join(lines[start:end])


def _body_start(lines: list[str]) -> int:
    """Index of the first line after the START marker and any credit paragraphs (0 if no marker)."""
    marker = next((i for i, line in enumerate(lines) if _START_RE.match(line)), None)
    if marker is None:
        return 0
    start = marker + 1
    closed = lines[marker].rstrip().endswith("***") and lines[marker].count("*") >= 6
    if not closed and start < len(lines) and lines[start].rstrip().endswith("***"):
        start += 1  # the title wrapped onto a second line ending in ***
    while True:
        while start < len(lines) and not lines[start].strip():
            start += 1
        if start >= len(lines) or not _CREDIT_RE.match(lines[start]):
            return start
        while start < len(lines) and lines[start].strip():
            start += 1


_ILLUSTRATION_RE = re.compile(r"\[Illustration[^\]]*\]", re.IGNORECASE)
_OPENING_QUOTES = "\"'\u201c\u2018"
_SENTENCE_END_RE = re.compile(r"[.!?;:][\"'\u201d\u2019)\]]*$")
_ABBREVIATION_END_RE = re.compile(r"\b(\w+)\.$")
#: A "Chapter 16 ..." line of up to this many words is a heading when it ends without punctuation (a rulebook's
#: "Part 5.Chapter 1.23. Circumstances in which ..." stays as it was read).
LONG_HEADING_WORDS = 24
_CHAPTER_RE = re.compile(r"^chapter\s+[\divxlc]+\s", re.IGNORECASE)
_HEADING_RE = re.compile(r"^(?:chapter|book|part|volume|section)\s+[\divxlc]+\b", re.IGNORECASE)
# _italic_ may wrap over lines but never over a blank line (paragraph break)
_UNDERSCORE_EMPHASIS_RE = re.compile(r"(?<!\w)_(?=\S)((?:[^_\n]|\n(?![ \t]*\n))+?)(?<=\S)_(?!\w)")
_MD_HEADING = "\x00h "  # marks markdown headings between markup stripping and merging


def reflow(text: str, markdown: bool = False) -> list[str]:
    """Paragraphs of hard-wrapped text, with illustration captions removed (see :func:`reflow_blocks`).

    Single newlines join with spaces; a paragraph without sentence-final
    punctuation continues into the next one (Gutenberg picture books cut
    sentences around ``[Illustration]``), except short all-caps headings,
    which stand alone.  ``markdown=True`` strips markup first.

    >>> reflow("He\\nAte\\nSome\\nRadishes\\n\\n[Illustration: a\\nrabbit]\\n\\nTHE END\\n\\nFin.")
    ['He Ate Some Radishes', 'THE END', 'Fin.']
    >>> reflow("by Mrs.\\n\\nMcGregor.  Then   more.")
    ['by Mrs. McGregor. Then more.']
    """
    return [block for block, _ in reflow_blocks(text, markdown)]


def reflow_blocks(text: str, markdown: bool = False) -> list[tuple[str, str]]:
    """(paragraph, kind) of hard-wrapped text; headings are markdown headings and short all-caps lines.

    Leading title-page blocks are ``front_matter`` (:func:`front_matter_blocks`) and are never merged
    with the prose that follows.

    >>> reflow_blocks("CHAPTER I\\n\\nHe ran\\nhome.")
    [('CHAPTER I', 'heading'), ('He ran home.', 'body')]
    """
    return [(block, kind) for block, kind, _ in reflow_pages([(0, text)], markdown)]


def reflow_pages(pages: list[tuple[int, str]], markdown: bool = False) -> list[Block]:
    """:func:`reflow_blocks` over (page number, text) pages; a paragraph may run on over a page break."""
    raw: list[tuple[str, int]] = []
    for page, text in pages:
        text = _ILLUSTRATION_RE.sub("", _normalize_characters(text))
        # Gutenberg marks italics as _word_ in plain text too
        text = strip_markdown(text) if markdown else _UNDERSCORE_EMPHASIS_RE.sub(r"\1", text)
        blocks = (_join_lines(block) for block in re.split(r"\n[ \t]*\n", text))
        raw += [(b, page) for b in blocks if any(ch.isalnum() for ch in b)]
    raw = _join_lowercase_continuations(raw)
    front = front_matter_blocks([b for b, _ in raw])
    kinds = [FRONT_MATTER] * front
    if front and (raw[front - 1][0].startswith(_MD_HEADING) or _is_heading(raw[front - 1][0])):
        kinds[-1] = HEADING  # the heading right above the first prose ("CHAPTER I--START IN LIFE")
    return ([(b.removeprefix(_MD_HEADING).strip(), kind, page) for (b, page), kind in zip(raw[:front], kinds)]
            + _merge_continuations(raw[front:]))


def _normalize_characters(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    text = text.replace("\u00a0", " ").replace("\t", " ").replace("\u00ad", "")
    # C0/C1 control characters are invisible junk (e.g. a stray 0x81 decoded as latin-1)
    return "".join(ch for ch in text if ch == "\n" or not (ch < " " or "\x7f" <= ch <= "\x9f"))


def _join_lines(block: str) -> str:
    joined = ""
    for line in (line.strip() for line in block.split("\n")):
        if not line:
            continue
        # "gold-\nfish" was one word wrapped at its hyphen; "lippity--\nlippity" keeps its space
        glue = "" if re.search(r"[^\W\d_]-$", joined) and line[:1].islower() else " "
        joined = f"{joined}{glue}{line}" if joined else line
    return re.sub(r" {2,}", " ", joined)


def _join_lowercase_continuations(blocks: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Glue a block that starts in lower case to an unfinished one before it ("I was born" + "in York.").

    >>> _join_lowercase_continuations([("I was born", 0), ("in York.", 0), ("By B. Potter", 0)])
    [('I was born in York.', 0), ('By B. Potter', 0)]
    """
    out: list[tuple[str, int]] = []
    for block, page in blocks:
        if out and block[:1].islower() and not _ends_sentence(out[-1][0]) and not out[-1][0].startswith(_MD_HEADING):
            out[-1] = (f"{out[-1][0]} {block}", out[-1][1])
        else:
            out.append((block, page))
    return out


def _merge_continuations(blocks: list[tuple[str, int]]) -> list[Block]:
    paragraphs: list[Block] = []
    open_paragraph = False
    for block, page in blocks:
        heading = block.startswith(_MD_HEADING) or _is_heading(block)
        block = block.removeprefix(_MD_HEADING).strip()
        if open_paragraph and not heading:
            text, _, first_page = paragraphs[-1]
            paragraphs[-1] = (f"{text} {block}", BODY, first_page)
        elif block:
            paragraphs.append((block, HEADING if heading else BODY, page))
        open_paragraph = not heading and not _ends_sentence(paragraphs[-1][0]) if paragraphs else False
    return paragraphs


def _is_heading(block: str) -> bool:
    """Short all-caps lines ("THE TALE", "CHAPTER I--START IN LIFE") or "Chapter 3"; not a line that opens with a
    quotation mark (a shout in capitals) nor one that ends with a colon (a letter's "DEAR MR. MANAGER:").

    >>> [_is_heading(b) for b in ("CHAPTER IV BOX FIVE", '"BECAUSE I HAD SEEN HIM!"', "GENTLEMEN:", "Chapter 3")]
    [True, False, False, True]

    A "Chapter 16" line may be longer when it ends without punctuation, as a chapter's title does:

    >>> _is_heading("Chapter XVI Mme. Giry's Astounding Revelations as to Her Personal Relations with the Opera Ghost")
    True
    >>> _is_heading("Chapter 3 sets out the method we follow in this report and the reasons why we chose it.")
    False
    """
    words = len(block.split())
    if words > 12:
        return words <= LONG_HEADING_WORDS and bool(_CHAPTER_RE.match(block)) and block[-1:].isalnum()
    if block[:1] in _OPENING_QUOTES or block.endswith(":"):
        return False
    letters = [ch for ch in block if ch.isalpha()]
    return (bool(letters) and all(ch.isupper() for ch in letters)) or bool(_HEADING_RE.match(block))


def _ends_sentence(paragraph: str) -> bool:
    if ends_with_title(paragraph):
        return False  # "... by Mrs." continues with the name
    return bool(_SENTENCE_END_RE.search(paragraph))


def ends_with_title(text: str) -> bool:
    """Whether ``text`` ends with a title abbreviation ("by Mrs."), so the name follows.

    >>> ends_with_title("by Mrs."), ends_with_title("He ran.")
    (True, False)
    """
    found = _ABBREVIATION_END_RE.search(text.rstrip())
    return found is not None and found.group(1).lower() in TITLE_ABBREVIATIONS


_MD_SUBSTITUTIONS = [
    (re.compile(r"<!--.*?-->", re.DOTALL), ""),
    (re.compile(r"^(\S.*)\n[ \t]*(=+|-{2,})[ \t]*$", re.MULTILINE), r"# \1"),  # setext heading
    (re.compile(r"^[ \t]*(```|~~~).*$", re.MULTILINE), ""),
    (re.compile(r"^[ \t]{0,3}\[[^\]]+\]:\s*\S+.*$", re.MULTILINE), ""),  # link reference definition
    (re.compile(r"^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$", re.MULTILINE), ""),  # horizontal rule
    (re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE), "\n\n" + _MD_HEADING + r"\1" + "\n\n"),
    (re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]"), ""),  # images
    (re.compile(r"\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]"), r"\1\2"),  # links
    (re.compile(r"<[^>\n]+>"), ""),  # html tags and autolinks
    (re.compile(r"`+([^`]*)`+"), r"\1"),
    (re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),
    (_UNDERSCORE_EMPHASIS_RE, r"\1"),
    (re.compile(r"^[ \t]*>[ \t>]*", re.MULTILINE), ""),  # blockquote markers
    (re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+", re.MULTILINE), ""),  # list markers
]


def strip_markdown(text: str) -> str:
    """Remove markdown markup, keeping the words (headings stay separate blocks).

    >>> strip_markdown("Read **this** and `code`, see [docs](http://d.org) ![img](a.png)<br>.")
    'Read this and code, see docs .'
    """
    for pattern, replacement in _MD_SUBSTITUTIONS:
        text = pattern.sub(replacement, text)
    return text
