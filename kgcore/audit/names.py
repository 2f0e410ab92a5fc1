"""Reviewer names: one identity per person, and the spellings of one person found among label authors.

A reviewer's **key** is the name case-folded with its whitespace collapsed:
two names with one key are one reviewer (``"Ada  Lovelace"`` and
``"ada lovelace"``).  Spellings that only *look* alike (accents, dots,
a typo) have different keys; :func:`spelling_groups` finds them so an
analyst can merge them on request (:func:`~kgcore.audit.reviewers.merge_authors`),
never silently.

>>> reviewer_key("  Ada   LOVELACE "), loose_key("Adá L."), loose_key("ada l")
('ada lovelace', 'adal', 'adal')
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from rapidfuzz import fuzz

from kgcore.core.errors import InputError, clean_field

MAX_REVIEWER_CHARS = 100
#: Two loose keys at least this similar (rapidfuzz ratio, 0-100) are offered as one person.
SIMILAR_RATIO = 90


def reviewer_key(name: str) -> str:
    """The identity of a reviewer name: case-folded, whitespace collapsed."""
    return " ".join(str(name).split()).casefold()


def loose_key(name: str) -> str:
    """A name without accents, case, spaces or punctuation (to find spellings of one person)."""
    decomposed = unicodedata.normalize("NFKD", str(name))
    return "".join(ch for ch in decomposed if ch.isalnum()).casefold()


def clean_reviewer(name: str | None, field: str = "reviewer") -> str:
    """A reviewer name as stored (whitespace collapsed); empty, over-long or control characters are refused.

    >>> clean_reviewer("  Ada  ")
    'Ada'
    >>> clean_reviewer("")
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: reviewer: is empty: choose who is reviewing
    """
    return clean_field(field, name, MAX_REVIEWER_CHARS, "choose who is reviewing")


@dataclass(frozen=True)
class SpellingGroup:
    """Author spellings that look like one person: merge ``spellings`` into ``into``.

    ``labels`` counts the human labels of each spelling (``into`` included).
    """

    into: str
    spellings: tuple[str, ...]
    labels: Mapping[str, int]

    @property
    def labels_changed(self) -> int:
        return sum(self.labels[s] for s in self.spellings)


def _similar(a: str, b: str) -> bool:
    ka, kb = loose_key(a), loose_key(b)
    return bool(ka) and (ka == kb or fuzz.ratio(ka, kb) >= SIMILAR_RATIO)


def spelling_groups(label_counts: Mapping[str, int], registered: tuple[str, ...] = ()) -> list[SpellingGroup]:
    """Groups of author names that look like one person, each to be merged into one name.

    The name kept is a registered reviewer when one is in the group, else
    the spelling with the most labels (then the alphabetically first).

    >>> [(g.into, g.spellings) for g in spelling_groups({"Ada": 5, "ada ": 1, "Adà": 2, "Bob": 3, "Rob": 1})]
    [('Ada', ('Adà', 'ada '))]
    >>> [(g.into, g.spellings) for g in spelling_groups({"Ada": 5, "ada.": 1}, registered=("ada.",))]
    [('ada.', ('Ada',))]
    """
    names = sorted(label_counts, key=lambda n: (n not in registered, -label_counts[n], n))
    groups: list[list[str]] = []
    for name in names:
        home = next((g for g in groups if any(_similar(name, other) for other in g)), None)
        if home is None:
            groups.append([name])
        else:
            home.append(name)
    return [SpellingGroup(g[0], tuple(sorted(g[1:])), {n: label_counts[n] for n in g}) for g in groups if len(g) > 1]


def check_merge(into: str, spellings, known: Mapping[str, int]) -> tuple[str, tuple[str, ...]]:
    """The cleaned target and spellings of a merge; unknown spellings or merging a name into itself are refused.

    >>> check_merge("Ada", ["ada", "Adà"], {"Ada": 1, "ada": 2, "Adà": 1})
    ('Ada', ('ada', 'Adà'))
    >>> check_merge("Ada", ["Eve"], {"Ada": 1})
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: from: 'Eve' is not the author of any label (known: Ada)
    """
    target = clean_reviewer(into, "into")
    chosen = tuple(dict.fromkeys(" ".join(str(s).split()) for s in spellings))
    if not chosen:
        raise InputError("from", "name at least one spelling to merge")
    for name in chosen:
        if name not in known:
            raise InputError("from", f"{name!r} is not the author of any label (known: {', '.join(sorted(known))})")
        if name == target:
            raise InputError("from", f"{name!r} is the name kept; it cannot be merged into itself")
    return target, chosen
