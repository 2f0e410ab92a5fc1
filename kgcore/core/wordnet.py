"""What kind of thing a noun names, from WordNet's lexicographer files (its *supersenses*): ``chum`` names a person,
``excitement`` a feeling, ``garden`` a place or an artifact.

The answer kinds read it where a closed word list cannot reach: a locative phrase whose object names only people,
feelings, acts or states ("wrote to a Queen's Academy *chum*", "in his *excitement*") holds no place
(:mod:`kgcore.query.answer.places`).

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
        for offset in offsets.get(noun.strip().lower().replace(" ", "_"), ()):
            data.seek(offset)
            files.append(NOUN_FILES.get(int(data.read(16).split()[1]), "Tops"))
    return tuple(files)
