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
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, utils

from kgcore.core.document import Reference
from kgcore.core.errors import InputError

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
