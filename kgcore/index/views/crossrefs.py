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
  (rapidfuzz token-set ratio, :data:`MIN_TITLE_SCORE`).

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

#: The least token-set ratio (0-100) between a reference entry's title and a document's title.
MIN_TITLE_SCORE = 90.0
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


def cited_documents(reference: Reference, documents: Sequence[tuple[str, str, str]]) -> list[str]:
    """The documents of the collection a reference entry names: (doc id, title, arXiv id) triples in.

    >>> docs = [("rag", "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", "2005.11401"),
    ...         ("dpr", "Dense Passage Retrieval for Open-Domain Question Answering", "")]
    >>> ref = Reference("ref-1", "[1]", "", title="Dense passage retrieval for open-domain question answering")
    >>> cited_documents(ref, docs)
    ['dpr']
    >>> cited_documents(Reference("ref-2", "[2]", "", arxiv="2005.11401"), docs)
    ['rag']
    """
    out = []
    for doc_id, title, arxiv in documents:
        if reference.arxiv and arxiv and reference.arxiv == arxiv:
            out.append(doc_id)
        elif reference.title and title and fuzz.token_set_ratio(
                reference.title, title, processor=utils.default_process) >= MIN_TITLE_SCORE \
                and min(len(reference.title), len(title)) >= 15:
            out.append(doc_id)
    return out


def citation_pairs(citing: Iterable[tuple[int, Sequence[str]]], references: dict[str, Reference],
                   documents: Sequence[tuple[str, str, str]], own: str) -> list[tuple[int, str]]:
    """(citing sentence row, cited doc id) for one document's sentences and reference list.

    ``citing`` gives each sentence row with its reference keys; a document
    never cites itself.
    """
    cited = {key: [d for d in cited_documents(ref, documents) if d != own] for key, ref in references.items()}
    return [(row, doc) for row, keys in citing for key in keys for doc in cited.get(key, [])]
