"""What kind of thing a noun names, from WordNet's lexicographer files (its *supersenses*): ``chum`` names a person,
``excitement`` a feeling, ``kitchen`` an artifact.

The answer kinds read it where a closed word list cannot reach: a locative phrase whose object names a person, a
feeling, an act or a state ("wrote to a Queen's Academy *chum*", "in his *excitement*") holds no place
(:mod:`kgcore.query.answer.places`), and a noun below the asked one in WordNet's hierarchy (:func:`is_a`) names
what "what punishment" or "what injury" asks for (:mod:`kgcore.query.answer.spans`).  Respelling a question's
misspelt names (:mod:`kgcore.query.spelling`) asks :func:`known` whether a word is English at all, in any part of
speech.

WordNet 3.0 is read from its database files (``index.noun``, ``data.noun``, ``noun.exc``, and for :func:`known` the
other parts of speech's ``index.*`` and ``*.exc``; the format of ``wndb(5WN)``), as Debian's ``wordnet-base``
installs them in ``/usr/share/wordnet`` (``KGCORE_WORDNET`` names another folder).  A word is found by binary search
in the sorted index, as WordNet's own library does, so nothing is loaded whole.  Where the noun files are missing or
unreadable the functions return None and the callers keep their word lists (respelling does nothing): nothing is
fetched.  A missing or unreadable file of another part of speech counts as listing no word.

>>> supersenses("chum")  # commonest sense first: a friend, chopped fish for bait, a salmon
('person', 'artifact', 'animal')
>>> supersenses("excitement")[0], supersenses("kitchens"), supersenses("mice")[0]
('feeling', ('artifact',), 'animal')
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

#: Where WordNet's database files are looked for (Debian's ``wordnet-base``).
DEFAULT_DIR = "/usr/share/wordnet"
#: WordNet's noun lexicographer files by number (``lexnames(5WN)``), without the ``noun.`` prefix.
NOUN_FILES = {3: "Tops", 4: "act", 5: "animal", 6: "artifact", 7: "attribute", 8: "body", 9: "cognition",
              10: "communication", 11: "event", 12: "feeling", 13: "food", 14: "group", 15: "location", 16: "motive",
              17: "object", 18: "person", 19: "phenomenon", 20: "plant", 21: "possession", 22: "process",
              23: "quantity", 24: "relation", 25: "shape", 26: "state", 27: "substance", 28: "time"}
#: The regular plural endings and their singulars, tried in turn (WordNet's own detachment rules for nouns).
PLURALS = (("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
           ("ies", "y"), ("s", ""))
#: Synsets at and above a noun's commonest sense, at least, for it to say a kind of thing (:func:`specific`) ...
SPECIFIC_DEPTH = 6
#: ... and nouns that say no kind whatever their place in WordNet: "what kind", "what sort of thing".
GENERAL = frozenset("thing things kind kinds sort sorts type types form forms manner way part parts".split())
_ERRORS = (OSError, ValueError, IndexError, UnicodeDecodeError)


def folder() -> Path:
    """The folder WordNet's files are read from (``KGCORE_WORDNET``, else :data:`DEFAULT_DIR`)."""
    return Path(os.environ.get("KGCORE_WORDNET") or DEFAULT_DIR)


def forget() -> None:
    """Forget what was read, so that the next look-up reads :func:`folder` again (after ``KGCORE_WORDNET`` changed)."""
    for cached in (_exceptions, _index_senses, _ancestors, _supersenses, _irregular):
        cached.cache_clear()


def available() -> bool:
    """Whether WordNet's noun files are there to read."""
    return _exceptions(str(folder())) is not None


@lru_cache(maxsize=4)
def _exceptions(root: str) -> dict[str, str] | None:
    """``noun.exc``: irregular plurals and their singulars ("mice" -> "mouse"); None when WordNet's noun files are
    not all there."""
    path = Path(root)
    if not all((path / name).is_file() for name in ("index.noun", "data.noun", "noun.exc")):
        return None
    try:
        lines = (path / "noun.exc").read_text(encoding="utf-8").splitlines()
    except _ERRORS:
        return None
    return {fields[0]: fields[1] for fields in map(str.split, lines) if len(fields) >= 2}


def _find_line(path: Path, key: bytes) -> bytes | None:
    """The line of the sorted file ``path`` that starts with ``key`` and a space, by binary search over bytes."""
    with path.open("rb") as f:
        lo, hi = 0, path.stat().st_size
        while lo < hi:
            mid = (lo + hi) // 2
            f.seek(max(mid - 1, 0))
            if mid > 0:
                f.readline()  # to the first line starting at or after mid
            start, line = f.tell(), f.readline()
            word = line.split(b" ", 1)[0]  # b"" for the licence lines at the top, which sort first
            if line and word == key:
                return line
            if line and word < key:
                lo = start + len(line)
            else:
                hi = mid
    return None


@lru_cache(maxsize=65536)
def _index_senses(root: str, key: str, pos: str = "noun") -> tuple[int, ...]:
    """The ``data.<pos>`` offsets of ``key``'s senses (an index lemma), commonest first; () when it is not there."""
    try:
        line = _find_line(Path(root) / f"index.{pos}", key.encode("utf-8"))
        if line is None:
            return ()
        fields = line.decode("utf-8").split()
        return tuple(int(f) for f in fields[-int(fields[2]):])
    except _ERRORS:
        return ()


def _senses(noun: str) -> tuple[int, ...]:
    """The offsets of ``noun``'s senses, commonest first: the noun itself, else its singular (an irregular plural
    of ``noun.exc``, else the first regular one the index holds: "injuries", "churches", "kitchens")."""
    root = str(folder())
    if _exceptions(root) is None:
        return ()
    key = noun.strip().lower().replace(" ", "_")
    return next((found for c in _lemmas(root, key, "noun") if (found := _index_senses(root, c))), ())


def _lemmas(root: str, key: str, pos: str) -> list[str]:
    """The lemmas an index of part of speech ``pos`` may list ``key`` under, in the order to try them: the word
    itself, its irregular base (``<pos>.exc``), then each base its regular endings give (:data:`_DETACH`)."""
    forms = [key, _irregular(root, pos).get(key, "")]
    forms += [key[: -len(end)] + base for end, base in _DETACH[pos] if key.endswith(end) and len(key) > len(end) + 1]
    return [form for form in forms if form]


def _parents(fields: list[str]) -> list[int]:
    """The offsets a ``data.noun`` line points to as its hypernyms (``@``) and instance hypernyms (``@i``): after
    the offset, file number, type, word count (hex) and the words with their ids, the pointer count, then each
    pointer as symbol, offset, part of speech and source/target."""
    at = 4 + 2 * int(fields[3], 16)
    return [int(fields[at + 2 + 4 * k]) for k in range(int(fields[at]))
            if fields[at + 1 + 4 * k] in ("@", "@i") and fields[at + 3 + 4 * k] == "n"]


@lru_cache(maxsize=65536)
def _ancestors(root: str, offset: int) -> frozenset[int]:
    """The synset at ``offset`` and every synset above it (only itself when ``data.noun`` cannot be read there)."""
    seen, todo = {offset}, [offset]
    try:
        with (Path(root) / "data.noun").open("rb") as data:
            while todo:
                data.seek(todo.pop())
                for parent in _parents(data.readline().decode("utf-8").split()):
                    if parent not in seen:
                        seen.add(parent)
                        todo.append(parent)
    except _ERRORS:
        pass
    return frozenset(seen)


def is_a(noun: str, kind: str) -> bool | None:
    """Whether a sense of ``noun`` is a kind of ``kind`` (a sense of it, or below one): "theft" is a crime,
    "execution" a punishment; None without WordNet.  WordNet decides: its murder is a kind of killing, not of
    crime.

    >>> is_a("theft", "crime"), is_a("crime", "theft"), is_a("Thefts", "crime"), is_a("murder", "crime")
    (True, False, True, False)
    """
    if not available():
        return None
    kinds, root = set(_senses(kind)), str(folder())
    return bool(kinds) and any(kinds & _ancestors(root, o) for o in _senses(noun))


def same_synset(noun: str, other: str) -> bool:
    """Whether the two nouns share a sense ("penalty" and "punishment"): a synonym names no kind of the other.

    >>> same_synset("penalty", "punishment"), same_synset("theft", "crime")
    (True, False)
    """
    return bool(set(_senses(noun)) & set(_senses(other)))


def same_verb_sense(verb: str, other: str) -> bool | None:
    """Whether two verbs (any inflection) share a sense: "cut" and "reduces" do, "leave" and "arrive" do not; None
    without WordNet.

    >>> same_verb_sense("cut", "reduces"), same_verb_sense("leave", "departed"), same_verb_sense("leave", "arrive")
    (True, True, False)
    """
    if not available():
        return None
    root = str(folder())

    def senses(word: str) -> set[int]:
        key = word.strip().lower().replace(" ", "_")
        return set(next((found for c in _lemmas(root, key, "verb") if (found := _index_senses(root, c, "verb"))), ()))

    return bool(senses(verb) & senses(other))


def specific(noun: str) -> bool:
    """Whether ``noun``'s commonest sense lies deep enough in WordNet to say a kind of thing: a crime (below act,
    activity, wrongdoing ...), not an event or a part, of which nearly anything is one (:data:`GENERAL`).

    >>> specific("crime"), specific("event"), specific("part"), specific("thing")
    (True, False, False, False)
    """
    offsets = _senses(noun)
    return noun.strip().lower() not in GENERAL and bool(offsets) and len(
        _ancestors(str(folder()), offsets[0])) >= SPECIFIC_DEPTH


def supersenses(noun: str) -> tuple[str, ...] | None:
    """The lexicographer file of each sense of ``noun`` (a lemma or a plural; words joined by ``_`` or spaces),
    commonest sense first, e.g. ``("person", "artifact", "animal")`` for "chum" (a friend, bait, a salmon); empty
    for a word WordNet lacks; None without WordNet."""
    return _supersenses(str(folder()), noun) if available() else None


@lru_cache(maxsize=65536)
def _supersenses(root: str, noun: str) -> tuple[str, ...]:
    files = []
    try:
        with (Path(root) / "data.noun").open("rb") as data:
            for offset in _senses(noun):
                data.seek(offset)
                files.append(NOUN_FILES.get(int(data.read(16).split()[1]), "Tops"))
    except _ERRORS:
        return ()
    return tuple(files)


#: WordNet's detachment rules (``morphy(7WN)``) by part of speech: an inflected ending and what replaces it.
_DETACH = {"noun": PLURALS, "verb": (("ies", "y"), ("es", "e"), ("es", ""), ("s", ""), ("ed", "e"), ("ed", ""),
                                     ("ing", "e"), ("ing", "")),
           "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")), "adv": ()}


def known(word: str) -> bool | None:
    """Whether ``word`` (any case, possibly inflected) is an English word WordNet lists, as a noun, verb, adjective
    or adverb; None without WordNet.  A name a reader misspells ("Elliott" for the book's "Elliot") is not.

    >>> known("strapped"), known("Teenagers"), known("happiest"), known("Elliott"), known("nintenth")
    (True, True, True, False, False)
    """
    if not available():
        return None
    key, root = word.strip().lower().replace(" ", "_"), str(folder())
    return any(_index_senses(root, form, pos) for pos in _DETACH for form in _lemmas(root, key, pos))


@lru_cache(maxsize=16)
def _irregular(root: str, pos: str) -> dict[str, str]:
    """``<pos>.exc``: WordNet's inflected forms its rules cannot undo ("strapped" -> "strap"); {} when unreadable."""
    if pos == "noun":
        return _exceptions(root) or {}
    try:
        lines = (Path(root) / f"{pos}.exc").read_text(encoding="utf-8").splitlines()
    except _ERRORS:
        return {}
    return {fields[0]: fields[1] for fields in map(str.split, lines) if len(fields) >= 2}
