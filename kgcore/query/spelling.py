"""A question's misspelt names read in the collection's own spelling: "William Elliott" asked of a book that writes
"William Elliot".

People ask from memory, and a name they misspell is a word the text never holds: BM25 gives it nothing, the
question's names (:mod:`kgcore.query.names`) find no sentence holding it, and the answer pick cannot match it.  A
search box offers "did you mean"; here the engine asks with the text's spelling and says so in the result's notes
(:class:`Respelled`).  Only a *name* is respelt, and only into another name, so that a term a paper lacks
("TriviaQA", "OpenAI", "reranking") is never turned into a word it has ("trivial", "open", "ranking"):

* the question word is written like a name (a capital, then lower-case letters: not "RoBERTa", not "BERT") of at
  least :data:`MIN_LETTERS` letters, not the question's first word, nor part of a hyphenated word or a possessive's
  apostrophe (the name before "'s" is respelt, the "'s" kept);
* the collection never writes it, nor any word with its BM25 stem ("Cliffords" is already "Clifford" to BM25);
* WordNet does not list it as an English word (:func:`kgcore.core.wordnet.known`: "Mouse" stays "Mouse" in a book
  about a moose);
* a name the collection writes at least :data:`MIN_COUNT` times (capitalised where no sentence starts: "Friday", not
  "However" nor "those") starts with the same letter (accents aside) and lies within :func:`max_edits` edits
  (Levenshtein distance, by rapidfuzz); of several, the nearest, then the commonest, then the first alphabetically.
  It is written as the collection writes it most often ("McGregor").

A name the question writes that the collection never does, but that is too short or too seldom written to respell
("Erick" of a book writing "Erik" once), is asked as written, and the note names it with the nearest name the
collection writes, if any: the analyst sees why nothing matched it (:attr:`Respelled.unwritten`).

Without WordNet's files nothing is respelt: the test of "is this English" is what keeps common words safe.  The
vocabulary is the whole collection's, also when a question is asked of some of its documents.

>>> vocabulary = Vocabulary.of(["Mr Elliot came.", "Mr Elliot left.", "Captain Harville smiled.", "So Harville sat."])
>>> respelled = respell("What did William Elliott tell Captain Harvell about Elliott's debts?", vocabulary)
>>> respelled.text
"What did William Elliot tell Captain Harville about Elliot's debts?"
>>> respelled.changes
(('Elliott', 'Elliot'), ('Harvell', 'Harville'))
>>> print(respelled.note())  # doctest: +NORMALIZE_WHITESPACE
Read with the spelling of the collection: Elliott as “Elliot”, Harvell as “Harville” (names it never writes).
The collection never writes William: asked as written.
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
from kgcore.query.sentence_ranking import bm25_tokens

#: Names shorter than this are never respelt: a short name has too many neighbours one edit away ("Cohen" is one
#: edit from "Chen", which nearly every paper on retrieval cites).
MIN_LETTERS = 6
#: A spelling the collection writes fewer times than this is no evidence of how it spells a name.
MIN_COUNT = 2
VOCABULARY: CacheKey[Vocabulary] = CacheKey("spelling-vocabulary")
_WORD = re.compile(r"[^\W\d_]+")  # letters, any script: "Zoë", "Maëlys" (text in NFC)
#: A question's words with what joins them: "absent-minded" is no name to respell, "Elliott's" is "Elliott" + "'s".
_JOINED_WORD = re.compile(r"[^\W\d_]+(?:['’\-‐‑][^\W\d_]+)*")
_POSSESSIVE = re.compile(r"^([^\W\d_]+)(['’]s)$")


@dataclass(frozen=True)
class Vocabulary:
    """How often the collection writes each word, as written (``written``), and as a name (``named``: capitalised
    where no sentence starts, as "Friday" is and "However" is not); derived from them, by lower case, ``counts``,
    ``forms`` (each word's commonest written form, "McGregor") and ``stems`` (the BM25 tokens it writes): what
    :func:`respell` reads a question against."""

    written: dict[str, int]
    named: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(init=False, repr=False, compare=False)
    forms: dict[str, str] = field(init=False, repr=False, compare=False)
    stems: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        counts: Counter[str] = Counter()
        forms: dict[str, str] = {}
        for word, n in sorted(self.written.items(), key=lambda item: (-item[1], item[0])):  # ties: one order
            counts[word.lower()] += n
            forms.setdefault(word.lower(), word)
        object.__setattr__(self, "counts", dict(counts))
        object.__setattr__(self, "forms", forms)
        object.__setattr__(self, "stems", frozenset(t for w in counts for t in bm25_tokens(w)))

    @classmethod
    def of(cls, texts: Iterable[str]) -> Vocabulary:
        """The words of ``texts`` (sentences) counted.

        >>> v = Vocabulary.of(["Mr. McGregor came.", "McGregor ran; MCGREGOR!", "However, Peter hid."])
        >>> v.counts["mcgregor"], v.forms["mcgregor"], v.named
        (3, 'McGregor', {'mcgregor': 1, 'peter': 1})
        """
        written: Counter[str] = Counter()
        named: Counter[str] = Counter()
        for text in texts:
            words = _WORD.findall(unicodedata.normalize("NFC", text))
            written.update(words)
            named.update(w.lower() for w in words[1:] if name_shaped(w))
        return cls(dict(written), dict(named))

    @classmethod
    def merged(cls, parts: Iterable[Vocabulary]) -> Vocabulary:
        """One vocabulary of a collection served in parts (each shard counts its own documents).

        >>> Vocabulary.merged([Vocabulary({"Elliot": 2}), Vocabulary({"Elliot": 1, "Anne": 4})]).counts
        {'anne': 4, 'elliot': 3}
        """
        written: Counter[str] = Counter()
        named: Counter[str] = Counter()
        for part in parts:
            written.update(part.written)
            named.update(part.named)
        return cls(dict(written), dict(named))

    def __reduce__(self):  # sent to a shard's process as its counts alone; the rest is derived again
        return (Vocabulary, (self.written, self.named))


@dataclass(frozen=True)
class Respelled:
    """A question as it was asked with the collection's spelling: ``text``, and each name ``changes`` replaced,
    as (written, read as), once each."""

    text: str
    changes: tuple[tuple[str, str], ...] = ()
    #: The question's other names the collection never writes, asked as written, each with the nearest name it
    #: does write ("" when none is near): too short or too seldom written to respell, but worth a look.
    unwritten: tuple[tuple[str, str], ...] = ()

    def note(self) -> str:
        """What the result's notes say of the respelling and of names the collection never writes ("" when
        neither).

        >>> Respelled("Who was Erick?", unwritten=(("Erick", "Erik"), ("Qwen", ""))).note()
        'The collection never writes Erick (nearest name it writes: “Erik”), Qwen: asked as written.'
        """
        said = []
        if self.changes:
            pairs = ", ".join(f"{written} as “{read}”" for written, read in self.changes)
            said.append(f"Read with the spelling of the collection: {pairs} (names it never writes).")
        if self.unwritten:
            names = ", ".join(f"{word} (nearest name it writes: “{near}”)" if near else word
                              for word, near in self.unwritten)
            said.append(f"The collection never writes {names}: asked as written.")
        return " ".join(said)


def max_edits(word: str, other: str) -> int:
    """Edits allowed between a question's name and the collection's: 1, or 2 when the longer has eight letters or
    more.  Elasticsearch's ``fuzziness: AUTO`` allows 2 from six letters; a correct name respelt into another is
    worse than a misspelt one left alone ("Levine" is not "Leike", "Joulin" not "Julia"), so 2 wait for eight.

    >>> max_edits("Elliott", "Elliot"), max_edits("Harvell", "Harville"), max_edits("Levine", "Leike")
    (1, 2, 1)
    """
    return 2 if max(len(word), len(other)) >= 8 else 1


def collection_vocabulary(index: Index) -> Vocabulary:
    """The collection's :class:`Vocabulary`, counted once per loaded index from its sentences' written text."""
    return index.cache.get(VOCABULARY, lambda: Vocabulary.of(s.original for s in index.sentences))


def respell(question: str, vocabulary: Vocabulary) -> Respelled:
    """``question`` with each misspelt name replaced by the collection's spelling (see the module's rules); the
    question unchanged when none qualifies."""
    text = unicodedata.normalize("NFC", question)
    first = next(_JOINED_WORD.finditer(text), None)  # capitalised by its place: no name's evidence
    changes: dict[str, str] = {}
    unwritten: dict[str, str] = {}

    def replace(match: re.Match) -> str:
        word, suffix = match.group(), ""
        if (possessive := _POSSESSIVE.match(word)) is not None:
            word, suffix = possessive.groups()
        if first is not None and match.start() == first.start() or not _unwritten_name(word, vocabulary):
            return match.group()
        found = _spelling(word, vocabulary)
        if found is None:
            unwritten.setdefault(word, _nearest_name(word, vocabulary))
            return match.group()
        changes.setdefault(word, vocabulary.forms[found])
        return vocabulary.forms[found] + suffix

    respelt = _JOINED_WORD.sub(replace, text)
    if not changes:
        respelt = question
    return Respelled(respelt, tuple(changes.items()), tuple(unwritten.items()))


def asked(question: str, vocabulary: Vocabulary | None) -> Respelled:
    """What a retrieval asks: ``question`` respelt, or as written when respelling is off (``vocabulary`` None)."""
    return respell(question, vocabulary) if vocabulary is not None else Respelled(question)


def noted(result: QueryResult, respelled: Respelled, written: str) -> QueryResult:
    """``result`` with its respelling recorded: the question as ``written``, the changes and the first note (which
    also names the question's names the collection never writes)."""
    if respelled.changes:
        result.asked, result.respelled = written, dict(respelled.changes)
    if respelled.changes or respelled.unwritten:
        result.notes.insert(0, respelled.note())
    return result


def _unwritten_name(word: str, vocabulary: Vocabulary) -> bool:
    """Whether ``word`` is written as a name of three letters or more that the collection never writes (no word
    with its BM25 stems either) and WordNet does not list as English (not known without WordNet)."""
    key = word.lower()
    if len(key) < 3 or not name_shaped(word) or key in vocabulary.counts:
        return False
    tokens = bm25_tokens(key)
    return not (tokens and vocabulary.stems.issuperset(tokens)) and wordnet.known(key) is False


def _near_names(key: str, vocabulary: Vocabulary, min_count: int) -> list[tuple[str, int]]:
    """The names the collection writes at least ``min_count`` times mid-sentence within two edits of ``key``
    (lower case) and with its first letter, with their distances, nearest then commonest first."""
    choices = [w for w, n in vocabulary.named.items() if n >= min_count and _initial(w) == _initial(key)
               and abs(len(w) - len(key)) <= 2]
    near = [(w, int(d)) for w, d, _ in process.extract(key, choices, scorer=Levenshtein.distance, score_cutoff=2,
                                                       limit=None)]
    return sorted(near, key=lambda hit: (hit[1], -vocabulary.named[hit[0]], hit[0]))


def _nearest_name(word: str, vocabulary: Vocabulary) -> str:
    """The name the collection writes (at least once, mid-sentence) nearest to ``word`` (:func:`_near_names`), as
    written; "" when none."""
    near = _near_names(word.lower(), vocabulary, 1)
    return vocabulary.forms[near[0][0]] if near else ""


def _spelling(word: str, vocabulary: Vocabulary) -> str | None:
    """The collection's spelling (lower case) of ``word``, a name it never writes (:func:`_unwritten_name`), or
    None when the name is too short to respell or none is near."""
    key = word.lower()
    if len(key) < MIN_LETTERS:
        return None
    return next((w for w, d in _near_names(key, vocabulary, MIN_COUNT) if d <= max_edits(key, w)), None)


def name_shaped(word: str) -> bool:
    """Whether a word is written as a name is: a capital, then lower case ("Elliott", "Zoë"), after a "Mc" or "Mac"
    too ("McGregor"); not an acronym or a technical term's inner capitals ("BERT", "RoBERTa", "TriviaQA").

    >>> [name_shaped(w) for w in ("Elliott", "McGregor", "Mcgregor", "MacDonald", "BERT", "RoBERTa", "TriviaQA")]
    [True, True, True, True, False, False, False]
    """
    prefix = next((p for p in ("Mac", "Mc") if word.startswith(p) and word[len(p):len(p) + 1].isupper()), "")
    rest = word[len(prefix):]
    return rest[:1].isupper() and (rest[1:].islower() or len(rest) == 1)


def _initial(word: str) -> str:
    """A word's first letter without its accent: "Emile" and "Émile" start alike.

    >>> _initial("émile"), _initial("emile")
    ('e', 'e')
    """
    return unicodedata.normalize("NFKD", word[:1])[:1]
