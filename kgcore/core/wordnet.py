"""What kind of thing a noun names, from WordNet's lexicographer files (its *supersenses*): ``chum`` names a person,
``excitement`` a feeling, ``garden`` a place or an artifact.

The answer kinds read it where a closed word list cannot reach: a locative phrase whose object names a person, a
feeling, an act or a state ("wrote to a Queen's Academy *chum*", "in his *excitement*") holds no place
(:mod:`kgcore.query.answer.places`), and a noun below the asked one in WordNet's hierarchy (:func:`is_a`) names
what "what punishment" or "what injury" asks for (:mod:`kgcore.query.answer.spans`).

WordNet 3.0 is read from its database files (``index.noun``, ``data.noun``; the format of ``wndb(5WN)``), as
Debian's ``wordnet-base`` installs them in ``/usr/share/wordnet`` (``KGCORE_WORDNET`` names another folder).  Where
the files are missing :func:`supersenses` returns None and the callers keep their word lists: nothing is fetched.

>>> supersenses("chum")  # commonest sense first: a friend, chopped fish for bait, a salmon
('person', 'artifact', 'animal')
>>> supersenses("excitement")[0], supersenses("garden")[0]
('feeling', 'artifact')
"""

from __future__ import annotations

import os
from functools import cache, lru_cache
from pathlib import Path

#: Where WordNet's database files are looked for (Debian's ``wordnet-base``).
DEFAULT_DIR = "/usr/share/wordnet"
#: WordNet's noun lexicographer files by number (``lexnames(5WN)``), without the ``noun.`` prefix.
NOUN_FILES = {3: "Tops", 4: "act", 5: "animal", 6: "artifact", 7: "attribute", 8: "body", 9: "cognition",
              10: "communication", 11: "event", 12: "feeling", 13: "food", 14: "group", 15: "location", 16: "motive",
              17: "object", 18: "person", 19: "phenomenon", 20: "plant", 21: "possession", 22: "process",
              23: "quantity", 24: "relation", 25: "shape", 26: "state", 27: "substance", 28: "time"}


def folder() -> Path:
    """The folder WordNet's files are read from (``KGCORE_WORDNET``, else :data:`DEFAULT_DIR`)."""
    return Path(os.environ.get("KGCORE_WORDNET") or DEFAULT_DIR)


def forget() -> None:
    """Forget what was read, so that the next look-up reads :func:`folder` again (after ``KGCORE_WORDNET`` changed)."""
    for cached in (_offsets, _ancestors, supersenses):
        cached.cache_clear()


def available() -> bool:
    """Whether WordNet's noun files are there to read."""
    return _offsets() is not None


@cache
def _offsets() -> dict[str, tuple[int, ...]] | None:
    """Every noun lemma of ``index.noun`` with the byte offsets of its senses in ``data.noun``, commonest first."""
    index = folder() / "index.noun"
    if not index.is_file() or not (folder() / "data.noun").is_file():
        return None
    out = {}
    with index.open(encoding="utf-8") as lines:
        for line in lines:
            if line.startswith(" "):
                continue  # the licence at the top of the file
            fields = line.split()
            senses = int(fields[2])
            out[fields[0]] = tuple(int(f) for f in fields[-senses:])
    return out


def _line(data, offset: int) -> list[str]:
    data.seek(offset)
    return data.readline().decode("utf-8").split()


def _parents(fields: list[str]) -> list[int]:
    """The offsets a ``data.noun`` line points to as its hypernyms (``@``) and instance hypernyms (``@i``): after
    the offset, file number, type, word count (hex) and the words with their ids, the pointer count, then each
    pointer as symbol, offset, part of speech and source/target."""
    words = int(fields[3], 16)
    at = 4 + 2 * words
    return [int(fields[at + 1 + 4 * k + 1]) for k in range(int(fields[at]))
            if fields[at + 1 + 4 * k] in ("@", "@i") and fields[at + 1 + 4 * k + 2] == "n"]


@lru_cache(maxsize=65536)
def _ancestors(offset: int) -> frozenset[int]:
    """The synset at ``offset`` and every synset above it."""
    with (folder() / "data.noun").open("rb") as data:
        seen, todo = {offset}, [offset]
        while todo:
            for parent in _parents(_line(data, todo.pop())):
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
    return frozenset(seen)


def is_a(noun: str, kind: str) -> bool | None:
    """Whether a sense of ``noun`` is a kind of ``kind`` (a sense of it, or below one): "theft" is a crime,
    "execution" a punishment; None without WordNet.  WordNet decides: its murder is a kind of killing, not of
    crime.

    >>> is_a("theft", "crime"), is_a("crime", "theft"), is_a("Thefts", "crime"), is_a("murder", "crime")
    (True, False, True, False)
    """
    offsets = _offsets()
    if offsets is None:
        return None
    kinds = set(_senses(kind))
    return bool(kinds) and any(kinds & _ancestors(o) for o in _senses(noun))


#: Synsets at and above a noun's commonest sense, at least, for it to say a kind of thing (:func:`specific`).
SPECIFIC_DEPTH = 6


def specific(noun: str) -> bool:
    """Whether ``noun``'s commonest sense lies deep enough in WordNet to say a kind of thing: a crime (below act,
    activity, wrongdoing ...), not an event or a part, of which nearly anything is one.

    >>> specific("crime"), specific("event"), specific("part")
    (True, False, False)
    """
    offsets = _senses(noun)
    return bool(offsets) and len(_ancestors(offsets[0])) >= SPECIFIC_DEPTH


def _senses(noun: str) -> tuple[int, ...]:
    """The offsets of ``noun``'s senses, commonest first; a plural not in the index is looked up as its singular
    ("rumors", "injuries", "wolves" have none of their own, "glasses" has)."""
    offsets, key = _offsets() or {}, noun.strip().lower().replace(" ", "_")
    if key in offsets:
        return offsets[key]
    singular = (key[:-3] + "y" if key.endswith("ies") else key[:-3] + "f" if key.endswith("ves") else
                key[:-2] if key.endswith(("ches", "shes", "sses", "xes")) else key[:-1] if key.endswith("s") else key)
    return offsets.get(singular, ())


@lru_cache(maxsize=65536)
def supersenses(noun: str) -> tuple[str, ...] | None:
    """The lexicographer file of each sense of ``noun`` (a lemma: "freckle"; words joined by ``_`` or spaces),
    commonest sense first, e.g. ``("person", "artifact", "animal")`` for "chum" (a friend, bait, a salmon); empty for a
    word WordNet lacks; None without WordNet."""
    offsets = _offsets()
    if offsets is None:
        return None
    files = []
    with (folder() / "data.noun").open("rb") as data:
        for offset in _senses(noun):
            data.seek(offset)
            files.append(NOUN_FILES.get(int(data.read(16).split()[1]), "Tops"))
    return tuple(files)
