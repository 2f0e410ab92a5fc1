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

_LABEL = re.compile(r"^\s*(?:\[(\d{1,4})\]|(\d{1,4})\.(?=\s+[A-Z]))\s*")
_YEAR = re.compile(r"\b((?:19|20)\d{2})[a-z]?\b")
_ARXIV = re.compile(r"arxiv[:\s/]*(?:abs/)?(\d{4}\.\d{4,5})", re.IGNORECASE)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s,;]+[^\s,;.])")
_NAME_WORD = re.compile(r"[A-Z][A-Za-zÀ-ÿ'’-]+")
#: arXiv ids, DOIs and URLs, whose digits look like years.
_IDS = re.compile(r"arxiv[:\s/]*(?:abs/)?\d{4}\.\d{4,5}(?:v\d+)?|\b10\.\d{4,9}/\S+|https?://\S+|\b\d{4}\.\d{4,5}\b",
                  re.IGNORECASE)
_SPLIT = re.compile(r"(?<=[a-z0-9)?\]])\.\s+(?=[A-Z0-9])")


def split_entries(blocks: Sequence[Block]) -> list[str]:
    """The reference section's blocks cut into one text per entry."""
    entries: list[str] = []
    for block in blocks:
        left = min(line.box[0] for line in block.lines)
        hanging = any(line.box[0] > left + 3 for line in block.lines)
        for i, line in enumerate(block.lines):
            starts = bool(_LABEL.match(line.text)) or (hanging and line.box[0] <= left + 1.5 and i > 0)
            if not entries or i == 0 and _opens_entry(line.text, entries[-1]) or starts:
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
    label_match = _LABEL.match(text)
    label = (label_match.group(1) or label_match.group(2)) if label_match else ""
    body = text[label_match.end():] if label_match else text
    year = _YEAR.search(_IDS.sub(" ", body))  # not the "1907" of arXiv:1907.11692
    pieces = [p.strip() for p in _SPLIT.split(body) if p.strip()]
    if year and pieces and re.fullmatch(r"\(?(?:19|20)\d{2}[a-z]?\)?", pieces[1] if len(pieces) > 1 else ""):
        authors, title, venue = pieces[0], _piece(pieces, 2), _piece(pieces, 3)  # author-year: "Names. 2020. Title."
    else:
        authors, title, venue = _piece(pieces, 0), _piece(pieces, 1), _piece(pieces, 2)
    authors = _YEAR.sub("", authors).strip(" .,()") if year and authors.endswith(year.group(0)) else authors
    first = _first_author(authors)
    arxiv, doi = _ARXIV.search(body), _DOI.search(body)
    key = f"ref-{label}" if label else f"ref-{first.lower() or 'anon'}-{year.group(1) if year else 'nd'}"
    return Reference(key, label, text, authors, first, year.group(1) if year else "", title.rstrip("."),
                     venue.rstrip("."), arxiv.group(1) if arxiv else "", doi.group(1) if doi else "")


def _piece(pieces: list[str], i: int) -> str:
    return pieces[i] if i < len(pieces) else ""


def _first_author(authors: str) -> str:
    """The first author's surname: "Lewis, P." -> Lewis; "Patrick Lewis, Ethan Perez" -> Lewis."""
    segment = re.split(r",|\s+and\s+|\s*&\s*", authors, maxsplit=1)[0]
    words = [w for w in _NAME_WORD.findall(segment) if len(w) > 1 and w not in ("Jr", "Sr")]
    return words[-1] if words else ""
