"""The coreference contract shared by every backend: the protocol, the link record and text helpers.

Every backend turns a sequence of :class:`~kgcore.core.types.Sentence` into new
sentences whose ``resolved`` text has third-person pronouns replaced by
their antecedents.  Resolution may look across sentence boundaries, but
sentence order, ids and count never change: each output is still one
sentence.

Backends import these helpers from here, never from the factory in
:mod:`kgcore.index.coref`.

>>> apply_replacements("she gave a dose of it", [(0, 3, "Peter's mother"), (19, 21, "tea")])
"Peter's mother gave a dose of tea"
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from kgcore.core.errors import InputError
from kgcore.core.types import Sentence

# Words that only start a mention because it is grammar, not a name: when such a
# mention moves into the middle of a sentence its capital letter must go.
DETERMINERS = frozenset(
    "a an the some any this that these those his her its their my our your no every each".split()
)
INDEFINITE = frozenset(("a", "an", "some", "any"))


@dataclass(frozen=True)
class CorefLink:
    """One pronoun replacement, kept so the app can show why a word changed.

    ``start``/``end`` are character offsets of the pronoun in the sentence's
    ``normalized`` text; ``antecedent`` is the mention it was resolved to,
    found in sentence ``antecedent_sentence_id``; ``replacement`` is the text
    that was written in place of the pronoun.
    """

    sentence_id: str
    pronoun: str
    start: int
    end: int
    antecedent: str
    antecedent_sentence_id: str
    replacement: str = ""


class CorefResolver(Protocol):
    """What every coreference backend provides."""

    name: str

    def resolve(self, sentences: Sequence[Sentence]) -> list[Sentence]:
        """Return new sentences with ``resolved`` set; same order, ids and count."""
        ...

    def resolve_with_links(self, sentences: Sequence[Sentence]) -> tuple[list[Sentence], list[CorefLink]]:
        """:meth:`resolve` plus one :class:`CorefLink` per replaced pronoun (why each word changed)."""
        ...


class NoCoref:
    """The ``none`` backend: ``resolved`` is the normalized text.

    >>> s = Sentence("text_0-0", 0, 0, 0, "She ran.", "She ran.", "x")
    >>> NoCoref().resolve([s])[0].resolved
    'She ran.'
    """

    name = "none"

    def resolve(self, sentences: Sequence[Sentence]) -> list[Sentence]:
        return self.resolve_with_links(sentences)[0]

    def resolve_with_links(self, sentences: Sequence[Sentence]) -> tuple[list[Sentence], list[CorefLink]]:
        return [dataclasses.replace(s, resolved=s.normalized) for s in sentences], []


def apply_replacements(text: str, replacements: list[tuple[int, int, str]]) -> str:
    """Replace character spans ``(start, end, new)`` of ``text``; spans may not overlap.

    Applied right to left so earlier offsets stay valid.

    >>> apply_replacements("his hat and her hat", [(12, 15, "Ann's"), (0, 3, "Bob's")])
    "Bob's hat and Ann's hat"
    >>> apply_replacements("abc", [(0, 2, "x"), (1, 3, "y")])
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: coref: overlapping replacements (0, 2) and (1, 3)
    """
    ordered = sorted(replacements, key=lambda r: (r[0], r[1]))
    for (s1, e1, _), (s2, e2, _) in zip(ordered, ordered[1:]):
        if s2 < e1:
            raise InputError("coref", f"overlapping replacements ({s1}, {e1}) and ({s2}, {e2})")
    for start, end, _ in ordered:
        if not 0 <= start <= end <= len(text):
            raise InputError("coref", f"replacement ({start}, {end}) outside text of length {len(text)}")
    for start, end, new in reversed(ordered):
        text = text[:start] + new + text[end:]
    return text


def possessive(mention: str, plural: bool = False) -> str:
    """The possessive form of a mention, an indefinite determiner made definite.

    >>> possessive("Peter"), possessive("Peter's mother"), possessive("the rabbits", plural=True)
    ("Peter's", "Peter's mother's", "the rabbits'")
    >>> possessive("an old mouse"), possessive("Some camomile tea")
    ("the old mouse's", "The camomile tea's")
    """
    first, _, rest = mention.partition(" ")
    if rest and first.lower() in INDEFINITE:
        mention = ("The " if first[0].isupper() else "the ") + rest
    if plural and mention.endswith("s"):
        return mention + "'"
    return mention + "'s"


def starts_sentence(text: str, start: int) -> bool:
    """Whether position ``start`` of ``text`` begins a sentence (or a quoted one).

    >>> starts_sentence('She ran.', 0), starts_sentence('and she ran', 4)
    (True, False)
    >>> starts_sentence('he said, "She ran."', 10), starts_sentence('by His word', 3)
    (True, False)
    """
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?:\"\u201c\u2018'([]"


def fit_case(replacement: str, at_start: bool, lower_first: bool) -> str:
    """Match the replacement's first letter to where the pronoun stood.

    At a sentence start the replacement is capitalised; elsewhere a first
    word that was only capitalised by its own sentence start
    (``lower_first``) or is a determiner is lower-cased.

    >>> fit_case("some camomile tea", True, False)
    'Some camomile tea'
    >>> fit_case("The gate", False, False), fit_case("Old Mrs. Rabbit", False, True)
    ('the gate', 'old Mrs. Rabbit')
    >>> fit_case("Peter", False, False)
    'Peter'

    A first word written in capitals (an antecedent from a heading, a shout or an acronym) is lower-cased whole
    when it is a determiner and kept otherwise, never turned into "mY HAND" or "aDGM":

    >>> fit_case("MY HAND", False, False), fit_case("ADGM", False, True)
    ('my HAND', 'ADGM')
    """
    if not replacement:
        return replacement
    if at_start:
        return replacement[0].upper() + replacement[1:]
    first = replacement.split(" ", 1)[0]
    if len(first) > 1 and first.isupper():
        return first.lower() + replacement[len(first):] if first.lower() in DETERMINERS else replacement
    if lower_first or first.lower() in DETERMINERS:
        return replacement[0].lower() + replacement[1:]
    return replacement
