"""Number and ordinal words as figures, so that a book's "thirty years" meets a reader's "30 years".

>>> NUMBER_WORDS["nineteen"], ORDINAL_WORDS["seventeenth"], as_figure("Thirty"), as_figure("cabbage")
('19', '17th', '30', None)
"""

from __future__ import annotations

#: Number words, compared as figures ("at nineteen" says the "19" of a reference).
NUMBER_WORDS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())} | {w: str(10 * n) for n, w in enumerate(
    "thirty forty fifty sixty seventy eighty ninety".split(), start=3)}
#: Ordinal words, compared as figures with "th" ("nineteenth" says the "19th" of a reference); not "first" ("at
#: first") nor "second" (the unit), which say other things as often.
ORDINAL_WORDS = {w: f"{n}th" for n, w in enumerate(
    "third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth "
    "sixteenth seventeenth eighteenth nineteenth twentieth".split(), start=3)} | {
    w: f"{10 * n}th" for n, w in enumerate(
        "thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth".split(), start=3)}


def as_figure(word: str) -> str | None:
    """The figure a number or ordinal word says (lower-cased first), else None."""
    word = word.lower()
    return NUMBER_WORDS.get(word) or ORDINAL_WORDS.get(word)
