"""A paper's reference list: entries split apart and read into authors, year, title, venue, arXiv id and DOI.

Entries are split at their labels ("[12]", "12.") or, for an unnumbered
list, where a line starts at the list's left edge while the entry's other
lines are indented (a hanging indent).  Two styles of entry are read:
numbered ("[3] A. Author and B. Author. Title. In Venue, 2020.") and
author-year ("Author, A., and Author, B. 2020. Title. In Venue.").

>>> (ref,) = parse_entries(["[3] Patrick Lewis, Ethan Perez, and Douwe Kiela. Retrieval-augmented generation for "
...                         "knowledge-intensive NLP tasks. In NeurIPS, 2020. arXiv:2005.11401."])
>>> ref.key, ref.label, ref.first_author, ref.year, ref.arxiv, ref.title
('ref-3', '3', 'Lewis', '2020', '2005.11401', 'Retrieval-augmented generation for knowledge-intensive NLP tasks')
>>> ref = parse_entries(["Lewis, P., Perez, E., and Kiela, D. 2020. Retrieval-augmented generation. In NeurIPS."])[0]
>>> ref.first_author, ref.year, ref.title, ref.venue
('Lewis', '2020', 'Retrieval-augmented generation', 'In NeurIPS')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from kgcore.core.document import Reference
from kgcore.index.pdf.extract import Block
from kgcore.index.pdf.names import author_list, surnames

_LABEL = re.compile(r"^\s*(?:\[(\d{1,4}|[A-Z][A-Za-z+]{0,3}\d{0,4}[a-z]?)\]|(\d{1,3})\.(?=\s+[A-Z]))\s*")
#: A list with this many labelled lines, and this share of its lines, is numbered: a line without a label never
#: opens an entry.
NUMBERED_LINES = 3
NUMBERED_SHARE = 0.15
_YEAR = re.compile(r"\b((?:19|20)\d{2})[a-z]?\b")
_ARXIV = re.compile(r"arxiv[:\s/]*(?:abs/)?(\d{4}\.\d{4,5})", re.IGNORECASE)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s,;]+[^\s,;.])")
_NAME_WORD = re.compile(r"[A-Z][A-Za-zÀ-ÿ'’-]+")
#: arXiv ids, DOIs and URLs, whose digits look like years.
_IDS = re.compile(r"arxiv[:\s/]*(?:abs/)?\d{4}\.\d{4,5}(?:v\d+)?|\b10\.\d{4,9}/\S+|https?://\S+|\b\d{4}\.\d{4,5}\b",
                  re.IGNORECASE)
_SPLIT = re.compile(r"(?:(?<=[a-z0-9)?\]])|(?<=[A-Z]{2}))\.\s+(?=[A-Z0-9])")
#: A title in quotation marks (IEEE: 'S. Author, "Title," in Venue').
_QUOTED = re.compile(r"[\"“”]([^\"“”]{8,300}?)[,.]?[\"”]|``(.{8,300}?)[,.]?''")
#: What opens the rest of an entry after its authors: stops, a colon, an author-year style's year.
_LEAD = re.compile(r"^[\s.:,]*(?:\(?(?:19|20)\d{2}[a-z]?\)?[.,:]?\s*)?")
#: Where a title ends: a full stop or a question mark before the venue, or ", In".
_TITLE_END = re.compile(r"(?<=[\w)\]'’])(?<!\bvs)(?<!\be\.g)[.?!](?:\s+|$)|,\s+(?=[Ii]n:?\s)")


def split_entries(blocks: Sequence[Block]) -> list[str]:
    """The reference section's blocks cut into one text per entry; in a numbered list ("[12]", "12.", "[Lam78]")
    only a label opens an entry, so an entry broken by a column or page break is joined again."""
    entries: list[str] = []
    lines = [line for block in blocks for line in block.lines]
    labelled = sum(1 for line in lines if _LABEL.match(line.text))
    numbered = labelled >= max(NUMBERED_LINES, NUMBERED_SHARE * len(lines))
    for block in blocks:
        left = min(line.box[0] for line in block.lines)
        hanging = not numbered and any(line.box[0] > left + 3 for line in block.lines)
        for i, line in enumerate(block.lines):
            starts = bool(_LABEL.match(line.text)) or (hanging and line.box[0] <= left + 1.5 and i > 0)
            if not entries or i == 0 and not numbered and _opens_entry(line.text, entries[-1]) or starts:
                entries.append(line.text)
            else:
                entries[-1] = _continue(entries[-1], line.text)
    return [" ".join(e.split()) for e in entries if e.strip()]


def _opens_entry(text: str, previous: str) -> bool:
    """A block's first line opens a new entry unless the previous entry clearly runs on (no final period)."""
    return bool(_LABEL.match(text)) or previous.rstrip().endswith(".")


def _continue(entry: str, line: str) -> str:
    if entry.endswith("-") and line[:1].islower():
        return entry[:-1] + line
    return f"{entry} {line}"


def parse_entries(texts: Sequence[str]) -> list[Reference]:
    """Each entry read into its fields (see the module docstring); keys are unique in the list."""
    refs: list[Reference] = []
    used: set[str] = set()
    for text in texts:
        ref = parse_entry(text)
        key = ref.key
        for n in range(2, 100):
            if key not in used:
                break
            key = f"{ref.key}-{n}"
        used.add(key)
        refs.append(replace(ref, key=key))
    return refs


def parse_entry(text: str) -> Reference:
    """One entry read into its fields: authors to where the author list ends (:func:`names.author_list`), then
    the year of an author-year style, the title (quoted, IEEE; or up to its full stop) and the venue.

    >>> ref = parse_entry("[17] GHEMAWAT, S., GOBIOFF, H., AND LEUNG, S.-T. The Google file system. In Proc. of "
    ...                   "the 19th ACM SOSP (Dec. 2003), pp. 29-43.")
    >>> ref.first_author, ref.year, ref.title, ref.venue
    ('Ghemawat', '2003', 'The Google file system', 'In Proc. of the 19th ACM SOSP (Dec. 2003), pp. 29-43')
    >>> ref = parse_entry('[4] S. Ghemawat, H. Gobioff, and S.-T. Leung, "The Google file system," in SOSP, 2003.')
    >>> ref.authors, ref.title, ref.year
    ('S. Ghemawat, H. Gobioff, and S.-T. Leung', 'The Google file system', '2003')
    >>> ref = parse_entry("Ghemawat, S., Gobioff, H., & Leung, S.-T. (2003). The Google file system. ACM SIGOPS.")
    >>> ref.first_author, ref.year, ref.title, ref.venue
    ('Ghemawat', '2003', 'The Google file system', 'ACM SIGOPS')
    """
    label_match = _LABEL.match(text)
    label = (label_match.group(1) or label_match.group(2)) if label_match else ""
    body = text[label_match.end():] if label_match else text
    authors, title, venue = _fields(body)
    year = _YEAR.search(_IDS.sub(" ", f"{authors} {venue}")) or _YEAR.search(_IDS.sub(" ", body))
    authors = _YEAR.sub("", authors).strip(" .,()") if year and authors.endswith(year.group(0)) else authors
    found = surnames(authors)
    first = found[0] if found else _first_author(authors)
    if first.isupper() and (len(found) > 1 or re.search(r"\b[A-Z]\.", authors)):
        first = first.title()  # GHEMAWAT, S. (an acronym alone, "NLANR", is an organisation's name)
    arxiv, doi = _ARXIV.search(body), _DOI.search(body)
    key = f"ref-{label}" if label else f"ref-{first.lower() or 'anon'}-{year.group(1) if year else 'nd'}"
    return Reference(key, label, text, authors, first, year.group(1) if year else "", title.strip(" .,"),
                     venue.rstrip("."), arxiv.group(1) if arxiv else "", doi.group(1) if doi else "")


def _fields(body: str) -> tuple[str, str, str]:
    """(authors, title, venue) of an entry without its label."""
    end = author_list(body)
    quoted = _QUOTED.search(body)
    title = (quoted.group(1) or quoted.group(2)) if quoted else ""
    if quoted and quoted.start() >= end and quoted.start() < 400 and len(title.split()) >= 2:
        return body[:quoted.start()].strip(" ,.:"), title, body[quoted.end():].strip(" ,.;")
    if end:
        rest = _LEAD.sub("", body[end:])
        cut = _TITLE_END.search(rest)
        if cut:
            return body[:end].strip(" ,"), rest[:cut.start() + (cut.group() [:1] == "?")], rest[cut.end():].strip()
        return body[:end].strip(" ,"), rest, ""
    pieces = [p.strip() for p in _SPLIT.split(body) if p.strip()]
    if len(pieces) > 1 and re.fullmatch(r"\(?(?:19|20)\d{2}[a-z]?\)?", pieces[1]):
        pieces = [pieces[0]] + pieces[2:]  # author-year: "Names. 2020. Title."
    title = _piece(pieces, 1)
    cut = _TITLE_END.search(title)  # "Title. http://..."
    return _piece(pieces, 0), title[:cut.start()] if cut else title, _piece(pieces, 2)


def _piece(pieces: list[str], i: int) -> str:
    return pieces[i] if i < len(pieces) else ""


def _first_author(authors: str) -> str:
    """The first author's surname: "Lewis, P." -> Lewis; "Patrick Lewis, Ethan Perez" -> Lewis."""
    segment = re.split(r",|\s+and\s+|\s*&\s*", authors, maxsplit=1)[0]
    words = [w for w in _NAME_WORD.findall(segment) if len(w) > 1 and w not in ("Jr", "Sr")]
    return words[-1] if words else ""
