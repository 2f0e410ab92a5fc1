"""Which documents of a collection cite a work: their parsed reference lists searched by title, author or id.

A query that looks like an arXiv id or a DOI matches those fields exactly;
anything else is compared with each entry's title (and its authors and full
text, for "Lewis et al." style queries) by rapidfuzz's token-set ratio, which
ignores word order and extra words ("the RAG paper by Lewis").  Every hit
names the sentences of the citing document whose markers resolved to that
entry, so the claim "document X cites Y" is itself grounded.

>>> from kgcore.core.document import Reference
>>> ref = Reference("ref-3", "[3]", "P. Lewis et al. 2020. Retrieval-augmented generation ...",
...                 authors="P. Lewis et al.", first_author="Lewis", year="2020",
...                 title="Retrieval-augmented generation for knowledge-intensive NLP tasks", arxiv="2005.11401")
>>> match_score("retrieval augmented generation knowledge intensive", ref) >= MIN_SCORE
True
>>> match_score("arXiv:2005.11401", ref), match_score("2104.00001", ref)
(100.0, 0.0)
>>> match_score("dense passage retrieval", ref) < MIN_SCORE
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, utils

from kgcore.core.document import Reference
from kgcore.core.errors import InputError
from kgcore.core.types import AUTHORS, TITLE, Sentence
from kgcore.index.views.crossrefs import arxiv_id, cited_documents

#: The least token-set ratio (0-100) for a title or author match.
MIN_SCORE = 85.0
_ARXIV_RE = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?")
_DOI_RE = re.compile(r"10\.\d{4,9}/\S+")


@dataclass(frozen=True)
class Citation:
    """A document of the collection citing a work: the matching reference entry and the sentences citing it."""

    document: str
    reference: Reference
    score: float
    sentences: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"document": self.document, "reference": self.reference.to_dict(), "score": round(self.score, 1),
                "sentences": list(self.sentences)}


def match_score(query: str, reference: Reference) -> float:
    """How well ``query`` names ``reference`` (0-100): exact on arXiv ids and DOIs, fuzzy on titles and authors."""
    arxiv, doi = _ARXIV_RE.search(query), _DOI_RE.search(query)
    if arxiv or doi:
        same = (arxiv and arxiv.group(1) == reference.arxiv.split("v")[0]) or (
            doi and doi.group(0).lower().rstrip(".") == reference.doi.lower())
        return 100.0 if same else 0.0
    fields = [reference.title or reference.text, reference.authors]
    return max((fuzz.token_set_ratio(query, f, processor=utils.default_process) for f in fields if f), default=0.0)


def find_citing(documents: Iterable[tuple[str, list[Reference], dict[str, list[str]]]], query: str,
                min_score: float = MIN_SCORE) -> list[Citation]:
    """Hits for ``query`` over (document id, its references, reference key -> citing sentence ids); best first.

    One hit per document (its best-matching entry).
    """
    if not query.strip():
        raise InputError("query", "empty: give a title, an author, an arXiv id or a DOI")
    hits = []
    for doc_id, references, cited_by in documents:
        scored = [(match_score(query, r), r) for r in references]
        best = max(scored, key=lambda pair: pair[0], default=None)
        if best and best[0] >= min_score:
            hits.append(Citation(doc_id, best[1], best[0], tuple(cited_by.get(best[1].key, ()))))
    return sorted(hits, key=lambda c: (-c.score, c.document))


def collection_citing(index, query: str, min_score: float = MIN_SCORE) -> list[Citation]:
    """:func:`find_citing` over every document of a loaded collection (:class:`kgcore.index.store.in_memory.Index`)."""
    cited_by: dict[str, dict[str, list[str]]] = {}
    for s in index.sentences:
        for key in s.citations:
            cited_by.setdefault(s.doc_id, {}).setdefault(key, []).append(s.id)
    rows = ((e.doc_id, index.references(e.doc_id), cited_by.get(e.doc_id, {})) for e in index.manifest.documents)
    return find_citing(rows, query, min_score)


@dataclass(frozen=True)
class CitingDocument:
    """What the citation graph reads of one document: its title, arXiv id and front matter (to be found as a
    cited work), its reference list and, per entry, the sentences citing it (to cite)."""

    doc_id: str
    title: str
    arxiv: str = ""
    #: The authors' lines and the years printed on the first page (evidence against near-miss titles).
    front: str = ""
    references: tuple[Reference, ...] = ()
    #: Reference key -> ids of the sentences whose markers resolved to it.
    cited_by: dict[str, tuple[str, ...]] | None = None

    @classmethod
    def of(cls, doc_id: str, sentences: Iterable[Sentence], references: Iterable[Reference],
           source_file: str = "") -> CitingDocument:
        """A document from its sentences (in order) and reference list; ``source_file`` may hold an arXiv id."""
        title: list[str] = []
        front: list[str] = []
        cited_by: dict[str, list[str]] = {}
        title_open = True  # the title: the first run of title sentences
        for s in sentences:
            if s.role == TITLE and title_open:
                title.append(s.original)
            elif title:
                title_open = False
            if s.role == AUTHORS or s.page == 1 and re.search(r"\b(?:19|20)\d{2}\b", s.original):
                front.append(s.original)
            for key in s.citations:
                cited_by.setdefault(key, []).append(s.id)
        return cls(doc_id, " ".join(title), arxiv_id(source_file), " ".join(front)[:2000], tuple(references),
                   {k: tuple(v) for k, v in cited_by.items()})


@dataclass(frozen=True)
class CitationEdge:
    """Document ``citing`` cites document ``cited``: through these reference entries, in these sentences."""

    citing: str
    cited: str
    references: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"citing": self.citing, "cited": self.cited, "references": list(self.references),
                "sentences": list(self.sentences)}


def citation_graph(documents: Sequence[CitingDocument]) -> list[CitationEdge]:
    """One edge per (citing, cited) pair of ``documents``: an entry of the citing document's reference list
    names the cited document (:func:`kgcore.index.views.crossrefs.cited_documents`); never a self-citation.

    >>> gfs = CitingDocument("gfs", "The Google File System", front="Sanjay Ghemawat")
    >>> ref = Reference("ref-7", "7", "", authors="GHEMAWAT, S.", title="The Google file system", year="2003")
    >>> bigtable = CitingDocument("bigtable", "Bigtable: A Distributed Storage System for Structured Data",
    ...                           references=(ref,), cited_by={"ref-7": ("bigtable/s12",)})
    >>> [e.to_dict() for e in citation_graph([gfs, bigtable])]
    [{'citing': 'bigtable', 'cited': 'gfs', 'references': ['ref-7'], 'sentences': ['bigtable/s12']}]
    """
    targets = [(d.doc_id, d.title, d.arxiv, d.front) for d in documents]
    edges: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for doc in documents:
        for ref in doc.references:
            for cited in cited_documents(ref, targets):
                if cited != doc.doc_id:
                    keys, sentences = edges.setdefault((doc.doc_id, cited), ([], []))
                    keys.append(ref.key)
                    sentences += (doc.cited_by or {}).get(ref.key, ())
    return [CitationEdge(a, b, tuple(keys), tuple(dict.fromkeys(sentences)))
            for (a, b), (keys, sentences) in sorted(edges.items())]


def collection_citation_graph(index) -> list[CitationEdge]:
    """:func:`citation_graph` over every document of a loaded collection."""
    by_doc: dict[str, list[Sentence]] = {}
    for s in index.sentences:
        by_doc.setdefault(s.doc_id, []).append(s)
    return citation_graph([CitingDocument.of(e.doc_id, by_doc.get(e.doc_id, []), index.references(e.doc_id),
                                             e.manifest.source_file) for e in index.manifest.documents])
