"""Number and ordinal words as figures, so that a book's "thirty years" meets a reader's "30 years".

>>> NUMBER_WORDS["nineteen"], ORDINAL_WORDS["seventeenth"], as_figure("Thirty"), as_figure("cabbage")
('19', '17th', '30', None)
"""

from __future__ import annotations

import re

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


#: An ordinal written with figures ("3rd", "21st").
ORDINAL_FIGURE = re.compile(r"^(\d+)(?:st|nd|rd|th)$")


def as_figure(word: str) -> str | None:
    """The figure a number or ordinal word says (lower-cased first), an ordinal figure ending in "th" as the
    ordinal words' do ("3rd" and "third": "3th"), else None.

    >>> as_figure("third") == as_figure("3rd"), as_figure("21st")
    (True, '21th')
    """
    word = word.lower()
    if ordinal := ORDINAL_FIGURE.match(word):
        return f"{ordinal.group(1)}th"
    return NUMBER_WORDS.get(word) or ORDINAL_WORDS.get(word)
