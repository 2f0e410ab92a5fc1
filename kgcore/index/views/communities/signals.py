"""What a community's grounding says about it being a topic: how much of it is main text, and how close its members
are to what its documents are about.

Two signals, computed once per build and stored in each :class:`~.summaries.Summary` (the listing reads them,
:mod:`~kgcore.index.views.communities.listed`):

* **Main-text sentences**: the grounding sentences that are neither *peripheral* -- a footnote or a caption (the
  role the PDF reader gives them), or a sentence under an acknowledgements, funding or author-contribution
  heading -- nor out of retrieval's scope.  On the 24 arXiv papers the one-sentence communities of footnotes were
  quoted dataset examples ("Arya Stark · Winterfell", "Rishi Sunak · politician") or affiliations
  ("Chinese University · Yan Liu · Tsung-Yi Ho"), and those of acknowledgements thanked a grant or reviewers.
* **Topicality**: the largest cosine between a member's node vector and the centroid of the sentence vectors of a
  document the community's main text is in (MiniLM space).  A member naming something the paper is about ("query
  encoder", "vector database") sits near its paper's centroid; a quoted example, a funding body or a pair of
  generic words ("gap · large") does not.

>>> is_peripheral("footnote", "2 Methods"), is_peripheral("body", "Acknowledgments"), is_peripheral("body", "3 Model")
(True, True, False)
>>> is_peripheral("body", "7 ACKNOWLEDGMENTS › Funding"), is_peripheral("caption", "")
(True, True)
"""

from __future__ import annotations

import re

import numpy as np

from kgcore.core.types import CAPTION, FOOTNOTE
from kgcore.index.store.in_memory import CacheKey, Index

#: Roles of sentences that are not a document's main text.
PERIPHERAL_ROLES = frozenset({FOOTNOTE, CAPTION})
#: Top-level headings whose sentences thank people or name funding and affiliations.
PERIPHERAL_HEADING = re.compile(r"acknowledg|funding|author contributions?\b|competing interests", re.IGNORECASE)


def is_peripheral(role: str, section: str) -> bool:
    """Whether a sentence of this role under this section heading (``"top › sub"``) is not main text."""
    return role in PERIPHERAL_ROLES or bool(PERIPHERAL_HEADING.search(section.split("›")[0]))


_MAIN = CacheKey[np.ndarray]("community-main-rows")
_CENTROIDS = CacheKey[tuple[np.ndarray, np.ndarray]]("community-document-centroids")


def main_rows(index: Index) -> np.ndarray:
    """Per sentence row, whether it is main text in retrieval's scope (computed once per loaded index)."""
    def build() -> np.ndarray:
        mask = np.array([not is_peripheral(s.role, s.section) for s in index.sentences], dtype=bool)
        scope = index.sentence_scope(())
        return mask if scope is None else mask & scope

    return index.cache.get(_MAIN, build)


def document_centroids(index: Index) -> tuple[np.ndarray, np.ndarray]:
    """(per sentence row, its document's number; documents x dim, each document's normalised mean sentence vector)."""
    def build() -> tuple[np.ndarray, np.ndarray]:
        docs = index.sentence_documents
        names, number = np.unique(docs, return_inverse=True)
        vectors = index.sentence_vectors.astype(np.float32)
        sums = np.zeros((len(names), vectors.shape[1]), dtype=np.float32)
        np.add.at(sums, number, vectors)
        return number, sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)

    return index.cache.get(_CENTROIDS, build)


def topicality(index: Index, node_rows: np.ndarray, sentence_rows: np.ndarray) -> float:
    """The largest cosine of a member (``node_rows``) to the centroid of a document of ``sentence_rows``; 0.0
    without sentences."""
    if len(sentence_rows) == 0 or len(node_rows) == 0:
        return 0.0
    number, centroids = document_centroids(index)
    members = index.node_vectors[node_rows].astype(np.float32)
    members /= np.maximum(np.linalg.norm(members, axis=1, keepdims=True), 1e-12)
    docs = np.unique(number[sentence_rows])
    return round(float((members @ centroids[docs].T).max()), 4)
