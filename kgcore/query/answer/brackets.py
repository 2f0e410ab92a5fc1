"""Citations in brackets: "(Lewis et al., 2020)", "[3, 4]", "(Chang, 2006)".

A citation names the work a sentence leans on, not what the sentence says: its year answers no question about
the text ("When was RAG proposed?" is not answered by "... (Lewis et al., 2020)"), its authors are not the
people the sentence is about and its reference numbers are no quantity.  :func:`in_citation` tells whether a
stretch of a sentence lies inside one, so that no answer span is taken from it.

>>> s = "RAG was proposed in 2020 (Lewis et al., 2020) and handles up to 288 tokens [3, 4]."
>>> in_citation(s, 20, 24), in_citation(s, 40, 44), in_citation(s, 26, 31), in_citation(s, 66, 69)
(False, True, True, False)
>>> in_citation(s, s.index("3,"), s.index("3,") + 1)
True

Brackets that hold anything else are the sentence's own words: an acronym, a quantity, an aside.

>>> t = "retrieval-augmented generation (RAG) with chunks (up to 288 tokens) in 2020 [Table 2]"
>>> [in_citation(t, t.index(w), t.index(w) + len(w)) for w in ("RAG", "288", "Table")]
[False, False, False]
"""

from __future__ import annotations

import re

#: What a citation in brackets holds: "et al.", an author and year ("Lewis, 2020", "Lewis 2020a"), or reference
#: numbers alone ("3", "3, 4", "12-15").
CITATION = re.compile(r"et al\.|\b[A-Z][A-Za-z-]+,? (?:19|20)\d\d[a-z]?\b|^\s*\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\s*$")
_CLOSING = {"(": ")", "[": "]"}


def in_citation(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` lies inside the innermost brackets around it and those hold a citation
    (:data:`CITATION`)."""
    opened = max(text.rfind("(", 0, start), text.rfind("[", 0, start))
    if opened < 0:
        return False
    closing = _CLOSING[text[opened]]
    if text.find(closing, opened, start) >= 0:  # closed before the span: the span is outside
        return False
    shut = text.find(closing, end)
    return shut >= 0 and bool(CITATION.search(text[opened + 1:shut]))


def token_in_citation(tokens, start: int, end: int) -> bool:
    """:func:`in_citation` for the tokens ``tokens[start:end]`` of one sentence (spaCy tokens of one ``Doc``)."""
    first, last = tokens[0], tokens[-1]
    base = first.idx
    text = first.doc.text[base:last.idx + len(last.text)]
    return in_citation(text, tokens[start].idx - base, tokens[end - 1].idx + len(tokens[end - 1].text) - base)
