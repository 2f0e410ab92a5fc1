"""Sentence ids: the GroundedKG-RAG paper's ``text_{chunk}-{sentence}``, behind the document id in a collection
(``peter-rabbit/text_0-1``), so that they stay unique across its documents.
"""

from __future__ import annotations

#: A sentence id in text: the paper's ``text_{chunk}-{n}``, behind a document id (a file-name slug) when there is one.
SENTENCE_ID_PATTERN = r"(?:[a-z0-9][a-z0-9_-]*/)?text_\d+-\d+"


def sentence_id(chunk: int, index: int, doc_id: str = "") -> str:
    """The paper's sentence id, behind its document id when one is given.

    >>> sentence_id(1, 9), sentence_id(1, 9, "crusoe")
    ('text_1-9', 'crusoe/text_1-9')
    """
    local = f"text_{chunk}-{index}"
    return f"{doc_id}/{local}" if doc_id else local


def split_sentence_id(sid: str) -> tuple[str, str]:
    """(document id, the paper's local id) of a sentence id; the document is "" for an unprefixed id.

    >>> split_sentence_id("crusoe/text_1-9"), split_sentence_id("text_0-3")
    (('crusoe', 'text_1-9'), ('', 'text_0-3'))
    """
    doc, _, local = sid.rpartition("/")
    return doc, local
