"""Explicit links between sentences: cross-references ("see Section 3", "Table 2", "Rule 9.2.1") and citations.

Pure functions over sentence texts and parsed reference lists, used by
:mod:`kgcore.index.views.contextual` to add the contextual graph's
``cross-reference`` and ``citation`` edges (LeSeGR's explicit
intra- and inter-document links).

* A **cross-reference** names a numbered part of a document: a section,
  chapter, appendix, table, figure, equation or rule.  Its **target** is
  the sentence that *is* that part: a heading or caption whose text starts
  with the same name or number ("3 Method", "Table 2: Results", "9.2.1 An
  Authorised Person must ...").
* A **citation** is a reference-list entry (resolved from in-text markers
  at ingestion, :mod:`kgcore.index.pdf.citations`) that names another
  document of the collection, by arXiv id or by a title match
  (rapidfuzz edit similarity with a guard against near-miss titles, :func:`cited_documents`).

>>> mentions("As shown in Table 2 and Section 3.1, see also Rule 9.2.1.")
[('table', '2'), ('section', '3.1'), ('rule', '9.2.1')]
>>> target_key("Table 2: Accuracy on NQ.")
('table', '2')
>>> target_key("3.1 Retrieval")
('number', '3.1')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rapidfuzz import fuzz, utils

from kgcore.core.document import Reference

#: A reference entry's title this alike to a document's title (:func:`title_score`, 0-100) names it ...
SURE_TITLE_SCORE = 95.0
#: ... and from this score on, it does when an author's surname or the year agrees too.
MIN_TITLE_SCORE = 85.0
#: A part named in more places than this is too ambiguous to link (e.g. "Table 1" of twenty papers).
MAX_TARGETS = 3

_KINDS = {
    "section": "section", "sec": "section", "sections": "section", "chapter": "section", "appendix": "section",
    "table": "table", "tables": "table", "tab": "table", "figure": "figure", "fig": "figure", "equation": "equation",
    "eq": "equation", "rule": "rule", "rules": "rule",
}
#: A part number: "3", "9.2.1", a rule with a letter suffix "9.3.1A", an appendix "A" or "B.2".
_NUMBER = r"(\d+(?:\.\d+)*[A-Z]?|[A-Z](?:\.\d+)*)"
#: Spaces, and the invisible direction marks regulatory texts put before numbers ("Rule \u200e14.2.2").
_GAP = r"[\s\u200e\u200f]+"
_MENTION_RE = re.compile(r"\b(Sections?|Sec|Chapter|Appendix|Tables?|Tab|Figure|Fig|Equation|Eq|Rules?)\.?" + _GAP
                         + _NUMBER + r"\b")
_CAPTION_RE = re.compile(r"^\s*(Table|Figure|Fig)\.?\s+(\d+)\b", re.IGNORECASE)
_HEADING_RE = re.compile(r"^\s*(?:(?:Section|Chapter|Appendix)\s+)?(\d+(?:\.\d+)*[A-Z]?|[A-Z](?:\.\d+)+)\.?\s+\S")
_ARXIV_RE = re.compile(r"(\d{4}\.\d{4,5})")


def mentions(text: str) -> list[tuple[str, str]]:
    """The numbered parts a sentence refers to, as (kind, number) in order of appearance.

    Sections, chapters and appendices share the kind ``section``; rules are
    ``rule``.  "Figure 3" and "Fig. 3" are the same part.

    >>> mentions("Results (Fig. 3) confirm Appendix A.")
    [('figure', '3'), ('section', 'A')]
    >>> mentions("under Rule \u200e\u200e14.2.2 and Rule 9.3.1A")
    [('rule', '14.2.2'), ('rule', '9.3.1A')]
    >>> mentions("as Tables 2 and 3 show")
    [('table', '2')]
    """
    return [(_KINDS[m.group(1).lower()], m.group(2)) for m in _MENTION_RE.finditer(text)]


def target_key(text: str) -> tuple[str, str] | None:
    """What part a heading, caption or numbered rule *is*: (kind, number), or None.

    Captions give ``table``/``figure``; a text starting with a number
    ("3.1 Retrieval", "9.2.1 A Person must") gives ``number``, which
    matches section, equation and rule mentions alike.

    >>> target_key("Fig. 4. Pipeline"), target_key("In 2020 we ran"), target_key("Results")
    (('figure', '4'), None, None)
    >>> target_key("9.3.1A Prior to appointing a service provider ...")
    ('number', '9.3.1A')
    """
    caption = _CAPTION_RE.match(text)
    if caption:
        kind = caption.group(1).lower()
        return ("table" if kind == "table" else "figure", caption.group(2))
    heading = _HEADING_RE.match(text)
    if heading and not re.match(r"^\s*(1[5-9]|20)\d\d\b", text):  # "2020 saw ..." is a year, not Section 2020
        return ("number", heading.group(1))
    return None


def resolve(kind: str, number: str, targets: dict[tuple[str, str], list[int]]) -> list[int]:
    """The target rows of a mention (section, equation and rule mentions find ``number`` targets).

    >>> resolve("section", "3", {("number", "3"): [7]}), resolve("table", "3", {("number", "3"): [7]})
    ([7], [])
    """
    key = (kind, number) if kind in ("table", "figure") else ("number", number)
    rows = targets.get(key, [])
    return rows if len(rows) <= MAX_TARGETS else []


def arxiv_id(text: str) -> str:
    """The first arXiv id in a file name or text, without version ('' when none).

    >>> arxiv_id("2005.11401_retrieval-augmented-generation.pdf"), arxiv_id("notes.md")
    ('2005.11401', '')
    """
    found = _ARXIV_RE.search(text)
    return found.group(1) if found else ""


def cited_documents(reference: Reference, documents: Sequence[Sequence[str]]) -> list[str]:
    """The documents of the collection a reference entry names: (doc id, title, arXiv id[, front matter]) in.

    An arXiv id names a document exactly.  A title names it when the two
    read alike (:func:`title_score`): at :data:`SURE_TITLE_SCORE` or more
    outright; from :data:`MIN_TITLE_SCORE` only with evidence besides the
    title -- one of the entry's author surnames or its year printed in the
    document's front matter (its authors, its first page) -- so a near-miss
    title ("The Gobal File System") never links without it.

    >>> docs = [("rag", "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", "2005.11401"),
    ...         ("dpr", "Dense Passage Retrieval for Open-Domain Question Answering", ""),
    ...         ("gfs", "The Google File System", "", "Sanjay Ghemawat Howard Gobioff Shun-Tak Leung 2003")]
    >>> ref = Reference("ref-1", "[1]", "", title="Dense passage retrieval for open-domain question answering")
    >>> cited_documents(ref, docs)
    ['dpr']
    >>> cited_documents(Reference("ref-2", "[2]", "", arxiv="2005.11401"), docs)
    ['rag']
    >>> near_miss = Reference("ref-3", "[3]", "", authors="S. Soltis, T. Ruwart, M. O'Keefe",
    ...                       title="The Gobal File System", first_author="Soltis", year="1996")
    >>> cited_documents(near_miss, docs)
    []
    >>> cited_documents(Reference("ref-4", "[4]", "", authors="GHEMAWAT, S., GOBIOFF, H.", title="The Google file "
    ...                           "system", first_author="Ghemawat", year="2003"), docs)
    ['gfs']
    """
    out = []
    for doc in documents:
        doc_id, title, arxiv = doc[0], doc[1], doc[2]
        if reference.arxiv and arxiv and reference.arxiv == arxiv:
            out.append(doc_id)
        elif reference.title and title and min(len(reference.title), len(title)) >= 15:
            score = title_score(reference.title, title)
            if score >= SURE_TITLE_SCORE or score >= MIN_TITLE_SCORE and _vouched(reference, doc[3] if
                                                                                  len(doc) > 3 else ""):
                out.append(doc_id)
    return out


def title_score(cited: str, title: str) -> float:
    """How alike a reference entry's title and a document's title read (0-100): the edit similarity of the two,
    or of the shorter with the longer's main title (before a colon), whichever is higher -- a reference may drop
    a subtitle, never swap words in.

    >>> title_score("The PageRank citation ranking", "The PageRank Citation Ranking: Bringing Order to the Web")
    100.0
    >>> title_score("The Gobal File System", "The Google File System") < SURE_TITLE_SCORE
    True
    """
    a, b = utils.default_process(cited), utils.default_process(title)
    scores = [fuzz.ratio(a, b)]
    for long, short in ((cited, b), (title, a)):
        main = utils.default_process(long.split(":")[0]) if ":" in long else ""
        if len(main.split()) >= 2:
            scores.append(fuzz.ratio(main, short))
    return float(max(scores))


def _vouched(reference: Reference, front: str) -> bool:
    """Whether the document's front matter names one of the entry's authors or prints its year."""
    if not front:
        return False
    words = {w.lower() for w in re.findall(r"[^\W\d_]{3,}", front)}
    surnames = {w.lower() for w in re.findall(r"[^\W\d_]{3,}", reference.authors or reference.first_author)}
    surnames -= {"and", "others", "the"}
    return bool(words & surnames) or bool(reference.year and reference.year in front)


def citation_pairs(citing: Iterable[tuple[int, Sequence[str]]], references: dict[str, Reference],
                   documents: Sequence[Sequence[str]], own: str) -> list[tuple[int, str]]:
    """(citing sentence row, cited doc id) for one document's sentences and reference list.

    ``citing`` gives each sentence row with its reference keys; a document
    never cites itself.
    """
    cited = {key: [d for d in cited_documents(ref, documents) if d != own] for key, ref in references.items()}
    return [(row, doc) for row, keys in citing for key in keys for doc in cited.get(key, [])]
