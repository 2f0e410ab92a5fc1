"""A question's misspelt names read in the collection's own spelling: "William Elliott" asked of a book that writes
"William Elliot".

People ask from memory, and a name they misspell is a word the text never holds: BM25 gives it nothing, the
question's names (:mod:`kgcore.query.names`) find no sentence holding it, and the answer pick cannot match it.  A
search box offers "did you mean"; here the engine asks with the text's spelling and says so in the result's notes
(:class:`Respelled`).  A question word is respelt only when all of these hold, so that a word the book merely
lacks ("teenager", "jail") is left alone:

* it is a word of at least :data:`MIN_LETTERS` letters, and the collection never writes it (any case);
* it is no stop word ("toward"), and WordNet does not list it as an English word
  (:func:`kgcore.core.wordnet.known`), which keeps "slaughter" from becoming the book's "laughter";
* a word the collection writes at least :data:`MIN_COUNT` times starts with the same letter and lies within
  :func:`max_edits` edits (Levenshtein distance, computed by rapidfuzz); of several, the nearest, then the commonest.

>>> vocabulary = Vocabulary.of(["Mr Elliot came.", "Mr Elliot left.", "Captain Harville smiled.",
...                             "Harville sat.", "Laughter."])
>>> respelled = respell("What did William Elliott tell Captain Harvell about slaughter?", vocabulary)
>>> respelled.text
'What did William Elliot tell Captain Harville about slaughter?'
>>> respelled.changes
(('Elliott', 'Elliot'), ('Harvell', 'Harville'))
>>> respelled.note()
'Read with the spelling of the collection: Elliott as “Elliot”, Harvell as “Harville” (words it never writes).'
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from kgcore.core import wordnet
from kgcore.core.types import QueryResult
from kgcore.index.store.disk import CacheKey, Index
from kgcore.query.answer.words import STOPWORDS

#: Words shorter than this are never respelt: a short word has too many neighbours one edit away.
MIN_LETTERS = 5
#: A spelling the collection writes fewer times than this is no evidence of how it spells a name.
MIN_COUNT = 2
VOCABULARY: CacheKey[Vocabulary] = CacheKey("spelling-vocabulary")
_WORD = re.compile(r"[^\W\d_]+")  # letters, any script: "Zoë", "Kérouac"
#: A question's words with what they are joined to: a part of "absent-mindedly" or "Maule's" is not respelt alone.
_JOINED_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


@dataclass(frozen=True)
class Vocabulary:
    """How often the collection writes each word, as written (``written``), and by lower case (``counts``, with
    ``forms``: each word's commonest written form, "McGregor"): what :func:`respell` reads a question against."""

    written: dict[str, int]
    counts: dict[str, int] = field(init=False, repr=False, compare=False)
    forms: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        counts: Counter[str] = Counter()
        forms: dict[str, str] = {}
        for word, n in sorted(self.written.items(), key=lambda item: -item[1]):
            counts[word.lower()] += n
            forms.setdefault(word.lower(), word)
        object.__setattr__(self, "counts", dict(counts))
        object.__setattr__(self, "forms", forms)

    @classmethod
    def of(cls, texts: Iterable[str]) -> Vocabulary:
        """The words of ``texts`` counted.

        >>> v = Vocabulary.of(["Mr. McGregor came.", "McGregor ran; MCGREGOR!"])
        >>> v.counts["mcgregor"], v.forms["mcgregor"]
        (3, 'McGregor')
        """
        return cls(dict(Counter(w for text in texts for w in _WORD.findall(text))))

    @classmethod
    def merged(cls, parts: Iterable[Vocabulary]) -> Vocabulary:
        """One vocabulary of a collection served in parts (each shard counts its own documents).

        >>> Vocabulary.merged([Vocabulary({"Elliot": 2}), Vocabulary({"Elliot": 1, "Anne": 4})]).counts
        {'anne': 4, 'elliot': 3}
        """
        total: Counter[str] = Counter()
        for part in parts:
            total.update(part.written)
        return cls(dict(total))


@dataclass(frozen=True)
class Respelled:
    """A question as it was asked with the collection's spelling: ``text``, and each word ``changes`` replaced,
    as (written, read as)."""

    text: str
    changes: tuple[tuple[str, str], ...] = ()

    def note(self) -> str:
        """What the result's notes say of the respelling ("" when nothing changed)."""
        if not self.changes:
            return ""
        pairs = ", ".join(f"{written} as “{read}”" for written, read in self.changes)
        return f"Read with the spelling of the collection: {pairs} (words it never writes)."


def max_edits(word: str) -> int:
    """Edits allowed between a question word and the collection's spelling: 1 up to five letters, else 2 (the rule
    of Elasticsearch's ``fuzziness: AUTO`` for the words long enough to be respelt here).

    >>> max_edits("Ellen"), max_edits("Elliott"), max_edits("nintenth")
    (1, 2, 2)
    """
    return 1 if len(word) <= 5 else 2


def collection_vocabulary(index: Index) -> Vocabulary:
    """The collection's :class:`Vocabulary`, counted once per loaded index from its sentences' written text."""
    return index.cache.get(VOCABULARY, lambda: Vocabulary.of(s.original for s in index.sentences))


def respell(question: str, vocabulary: Vocabulary) -> Respelled:
    """``question`` with each word the collection never writes and WordNet does not know replaced by the nearest
    spelling the collection does write (see the module's rules); the question unchanged when none qualifies."""
    changes: list[tuple[str, str]] = []

    def replace(match: re.Match) -> str:
        word = match.group()
        found = None if "-" in word or "'" in word or "’" in word else _spelling(word, vocabulary)
        if found is None:
            return word
        read = vocabulary.forms[found] if word[0].isupper() else found
        changes.append((word, read))
        return read

    text = _JOINED_WORD.sub(replace, question)
    return Respelled(text, tuple(changes))


def asked(question: str, vocabulary: Vocabulary | None) -> Respelled:
    """What a retrieval asks: ``question`` respelt, or as written when respelling is off (``vocabulary`` None)."""
    return respell(question, vocabulary) if vocabulary is not None else Respelled(question)


def noted(result: QueryResult, respelled: Respelled) -> QueryResult:
    """``result`` with its respelling recorded: :attr:`~kgcore.core.types.QueryResult.respelled` and the first note."""
    if respelled.changes:
        result.respelled = dict(respelled.changes)
        result.notes.insert(0, respelled.note())
    return result


def _spelling(word: str, vocabulary: Vocabulary) -> str | None:
    """The collection's spelling of ``word``, or None when it needs none or none is near enough."""
    key = word.lower()
    if len(key) < MIN_LETTERS or key in vocabulary.counts or key in STOPWORDS or wordnet.known(key) is not False:
        return None
    limit = max_edits(key)
    choices = [w for w, n in vocabulary.counts.items() if n >= MIN_COUNT and _initial(w) == _initial(key)
               and abs(len(w) - len(key)) <= limit]
    near = process.extract(key, choices, scorer=Levenshtein.distance, score_cutoff=limit, limit=None)
    if not near:
        return None
    return min(near, key=lambda hit: (hit[1], -vocabulary.counts[hit[0]], hit[0]))[0]


def _initial(word: str) -> str:
    """A word's first letter without its accent: "Emile" and "Émile" start alike.

    >>> _initial("émile"), _initial("emile")
    ('e', 'e')
    """
    return unicodedata.normalize("NFKD", word[:1])[:1]
