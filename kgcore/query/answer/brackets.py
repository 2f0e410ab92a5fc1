"""Citations in brackets: "(Lewis et al., 2020)", "[3, 4]", "(Chang and Dean, 2006; Lamport, 1998)".

A citation names the work a sentence leans on, not what the sentence says: its year answers no question about
the text ("When was RAG proposed?" is not answered by "... (Lewis et al., 2020)"), its authors are not the
people the sentence is about and its reference numbers are no quantity.  :func:`in_citation` tells whether a
stretch of a sentence lies inside one, so that no answer span is taken from it.

>>> s = "RAG was proposed in 2020 (Lewis et al., 2020) and handles up to 288 tokens [3, 4]."
>>> [in_citation(s, s.index(w), s.index(w) + len(w)) for w in ("2020", "Lewis", "288", "3,")]
[False, True, False, True]
>>> s = "It was added later (see [3] and Lewis et al., 2020)."
>>> in_citation(s, s.index("Lewis"), s.index("Lewis") + 5)   # the brackets around it, not the inner ones
True

A citation is told by its shape: "et al." anywhere, or every item (split at ";") an author and a year -- a second
author or a comma before the year in round brackets ("(Lamport 1998)" could be "(Windows 2000)"), either in
square ones -- or, in square brackets, reference numbers alone.  Brackets that hold anything else are the sentence's own
words: an acronym, a quantity, a date, an aside.

>>> t = "RAG (retrieval-augmented generation) on chunks (up to 288 tokens) rated on a scale (1-5) [Table 2]"
>>> t += " since the war (in May 1945), in Berlin (Berlin 1936), on (Windows 2000) by the crew (12)."
>>> [in_citation(t, t.index(w), t.index(w) + len(w)) for w in ("RAG", "288", "1-5", "Table", "1945", "1936",
...                                                            "2000", "12")]
[False, False, False, False, False, False, False, False]
>>> u = "as before (Chang and Dean 2006; Lamport, 1998a) or [Lamport 1998] and [12-15]"
>>> [in_citation(u, u.index(w), u.index(w) + len(w)) for w in ("2006", "Lamport", "Lamport 1998", "12")]
[True, True, True, True]
"""

from __future__ import annotations

import re

_NAME = r"[A-Z][A-Za-z'’-]+"
#: One cited work: "Lewis et al., 2020", "Chang and Dean 2006", "Lamport, 1998a" (a leading "see" or "e.g.").
_WORK = re.compile(rf"^(?:(?:see|e\.g\.|cf\.),?\s+)?(?P<first>{_NAME})(?P<joined>\s+et al\.|,?\s+(?:and|&)\s+{_NAME})?"
                   r"(?P<comma>,)?\s+(?:19|20)\d\d[a-z]?(?:,\s*(?:p\.\s*)?\d+)?$")
#: Reference numbers alone: "3", "3, 4", "12-15", "3–5, 9".
_NUMBERS = re.compile(r"^\s*\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\s*$")
#: Capitalised words that stand before a year without naming an author ("May 1945", "Spring 2020").
_NOT_AUTHORS = frozenset(
    """January February March April May June July August September October November December Jan Feb Mar Apr Jun
    Jul Aug Sep Sept Oct Nov Dec Spring Summer Autumn Fall Winter Christmas Easter Since Until In By From Before
    After During""".split())
_CLOSING = {"(": ")", "[": "]"}


def is_citation(inside: str, square: bool) -> bool:
    """Whether the text ``inside`` a pair of brackets (``square`` or round) is a citation (see the module).

    >>> is_citation("Lewis et al., 2020", False), is_citation("Lamport 1998", False), is_citation("3, 4", False)
    (True, False, False)
    >>> is_citation("Lamport 1998", True), is_citation("3, 4", True), is_citation("May 1945", True)
    (True, True, False)
    """
    if (square and _NUMBERS.match(inside)) or "et al." in inside:
        return True
    works = [_WORK.match(part.strip()) for part in inside.split(";")]
    if not works or not all(works):
        return False
    named = [w for w in works if w is not None and w.group("first") not in _NOT_AUTHORS]
    return len(named) == len(works) and (square or all(w.group("joined") or w.group("comma") for w in named))


def in_citation(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` lies inside the brackets that enclose it most closely (nested pairs between
    are skipped) and those hold a citation (:func:`is_citation`)."""
    pair = _enclosing(text, start, end)
    return pair is not None and is_citation(text[pair[0] + 1:pair[1]], text[pair[0]] == "[")


def token_in_citation(tokens, start: int, end: int) -> bool:
    """:func:`in_citation` for the tokens ``tokens[start:end]`` of one sentence (spaCy tokens of one ``Doc``)."""
    first, last = tokens[0], tokens[-1]
    base = first.idx
    text = first.doc.text[base:last.idx + len(last.text)]
    return in_citation(text, tokens[start].idx - base, tokens[end - 1].idx + len(tokens[end - 1].text) - base)


def _enclosing(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Offsets of the opening and closing bracket around ``text[start:end]`` (None when there are none or they do
    not pair up)."""
    depth, opened = 0, -1
    for i in range(start - 1, -1, -1):
        if text[i] in ")]":
            depth += 1
        elif text[i] in "([":
            if depth == 0:
                opened = i
                break
            depth -= 1
    if opened < 0:
        return None
    depth = 0
    for j in range(end, len(text)):
        if text[j] in "([":
            depth += 1
        elif text[j] in ")]":
            if depth == 0:
                return (opened, j) if text[j] == _CLOSING[text[opened]] else None
            depth -= 1
    return None
