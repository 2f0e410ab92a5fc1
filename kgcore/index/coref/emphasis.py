"""How a document writes a word tells whether it is a name: capitals written for emphasis ("FOR HIM!", "THE
GHOST'S ATTACKS"), which spaCy's tagger reads as names, told apart from acronyms ("ADGM", "CDD"), and ordinary words
the tagger calls proper nouns ("Doubtless", "Admit!", "jam in heaven", "stretches of green"), told apart from names
("Anne", "Judge Pyncheon") -- each by how the document writes the same words elsewhere.

>>> emphasised = emphasised_words(["It was FOR HIM!", "She sang for him.", "He waved to him.", "Ask him."])
>>> is_emphasis("HIM", "It was FOR HIM!", emphasised), is_emphasis("ADGM", "The ADGM rules.", emphasised)
(True, False)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

#: A word a document writes in capitals in at least this share of its uses is an acronym there ("ADGM", "CDD"); under
#: it, emphasis ("HIM", "BOX").  Entity typing reads names by the same share (:mod:`kgcore.index.views.entities.names`).
ACRONYM_SHARE = 1 / 3
_CAPITAL_WORD = re.compile(r"\b[A-Z][A-Z'\u2019-]*[A-Z]\b")
_WORD = re.compile(r"\b[A-Za-z][A-Za-z'\u2019-]*\b")
#: A sentence shouts when at least this share of its letters are capitals and it writes function words in capitals
#: ("SHE IS SINGING TO-NIGHT ..."; not a rulebook's "29) MARKETS RULES - OFFERS OF SECURITIES TO THE PUBLIC
#: Prospectus content for ...", nor "HE, HC, HS and HFX", where "HE" is a haircut).
SHOUTED_SHARE = 0.6
_SHOUTED = frozenset("THE AND HIS HER HIM SHE THEY WAS WERE THAT WITH FROM".split())


def emphasised_words(texts: Sequence[str]) -> frozenset[str]:
    """The words (lower-cased) that ``texts`` write in capitals in under :data:`ACRONYM_SHARE` of their uses.

    >>> sorted(emphasised_words(["Sell HIS BOX.", "Not his box, his box or his box.", "The ADGM rules; ADGM."]))
    ['box', 'his']
    """
    capital: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    for text in texts:
        for word in _WORD.findall(text):
            if len(word) > 1 and word.isupper():
                capital[word.lower()] += 1
            elif word.islower():
                lower[word] += 1
    return frozenset(w for w, n in capital.items() if n < ACRONYM_SHARE * (n + lower[w]))


#: A possessive ending, left off before a word is counted ("Hope's" is "hope").
_POSSESSIVE = re.compile(r"['\u2019]s$", re.IGNORECASE)


def _inside(text: str, start: int) -> bool:
    """Whether the word at ``start`` stands inside a sentence, where only a name is capitalised: after spaces, a
    letter, a digit or a comma (not a full stop, a quotation mark, a dash or a colon, after which anything may
    be)."""
    at = start
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return 0 < at < start and (text[at - 1].isalnum() or text[at - 1] == ",")


#: How many times more often a word must be written in lower case than capitalised inside a document's sentences
#: to be a common word there: a surname that is also a word ("Little", "Brown", "Young") is capitalised inside
#: sentences wherever it names someone.
COMMON_RATIO = 4


def common_words(texts: Sequence[str]) -> frozenset[str]:
    """The words (lower-cased) that ``texts`` write in lower case inside a sentence more than
    :data:`COMMON_RATIO` times as often as capitalised there: ordinary words, whatever the tagger calls them where
    they open a sentence ("Doubtless, God did forgive her") or stand alone ("plenty of jam in heaven").  One use
    is enough: many such words are written once ("kindheartedness", "enamel paint").  A name
    is capitalised wherever it stands ("Anne"), so it is not one; a name that is also a word ("Will", "Rose",
    "Little") stays a name where the document capitalises it inside its sentences.  A possessive counts as its
    word ("Will's" as "Will").

    >>> common = common_words(["Doubtless it was so.", "He was doubtless right, and doubtless wise.",
    ...                        "Anne saw Anne.", "In heaven, said Anne, in heaven.",
    ...                        "Will came, as he will, then Will's hat fell."])
    >>> [w in common for w in ("doubtless", "heaven", "anne", "will")]
    [True, True, False, False]
    """
    lower: Counter[str] = Counter()
    capital: Counter[str] = Counter()
    for text in texts:
        for match in _WORD.finditer(text):
            word = _POSSESSIVE.sub("", match.group())
            if len(word) < 2 or word.isupper() or not _inside(text, match.start()):
                continue
            (lower if word.islower() else capital)[word.lower()] += 1
    return frozenset(w for w, n in lower.items() if n > COMMON_RATIO * capital[w])


def is_emphasis(mention_text: str, sentence: str, emphasised: frozenset[str]) -> bool:
    """Whether a mention is capitals written for emphasis, which spaCy's tagger reads as a name ("HIM", "the
    GHOST'S ATTACKS"): it has a word in capitals, and each is an :func:`emphasised_words` word or stands in a
    sentence that shouts (writes function words in capitals).  Such a mention is no antecedent.

    >>> is_emphasis("HIM", "It is FOR HIM!", frozenset({"him"})), is_emphasis("ADGM", "ADGM rules.", frozenset())
    (True, False)
    >>> is_emphasis("the GHOST'S ATTACKS", "THEY WERE UNDER THE GHOST'S ATTACKS.", frozenset())
    True
    """
    words = _CAPITAL_WORD.findall(mention_text)
    if not words:
        return False
    return shouts(sentence) or all(w.lower() in emphasised for w in words)


def shouts(sentence: str) -> bool:
    """Whether ``sentence`` is written in capitals (see :data:`SHOUTED_SHARE`).

    >>> shouts("THEY WERE UNDER THE GHOST'S ATTACKS."), shouts("29) RULES TO THE PUBLIC Prospectus content for a")
    (True, False)
    """
    letters = [ch for ch in sentence if ch.isalpha()]
    capitals = sum(ch.isupper() for ch in letters)
    return capitals >= SHOUTED_SHARE * max(len(letters), 1) and any(
        w in _SHOUTED for w in _CAPITAL_WORD.findall(sentence))
