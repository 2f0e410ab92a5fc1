"""Content words: the lexical unit of citation support, diagnosis and answer-token recall.

>>> sorted(content_words("Peter's shoes were lost among the cabbages!"))
['cabbage', 'lost', 'peter', 'shoe']
"""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing done don didn doesn down during each either else ever few for
    from further get got had has have having he her here hers herself him himself his how however i if in into is
    isn it its itself just ll me might more most much must my myself neither no nor not now of off on once only or
    other our ours ourselves out over own re said same says she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up upon us ve very was wasn we
    were what when where which while who whom whose why will with won would wouldn yes yet you your yours
    yourself yourselves among amongst around behind beside between beyond inside near onto outside round toward
    towards underneath within without across along according answer content context question text""".split()
)

_WORD = re.compile(r"[a-z0-9]+")
_POSSESSIVE = re.compile(r"['’]s\b")


def content_words(text: str) -> set[str]:
    """Lower-cased words without stopwords, possessives and plural ``s`` (no lemmatiser needed).

    >>> sorted(content_words("Peter's shoes were lost among the cabbages!"))
    ['cabbage', 'lost', 'peter', 'shoe']
    """
    words = _WORD.findall(_POSSESSIVE.sub("", text.lower()))
    return {_singular(w) for w in words if len(w) > 1 and w not in STOPWORDS}


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
