"""Offline rule-based pronoun resolution over spaCy parses (the ``heuristic`` backend).

Third-person pronouns are replaced by the most salient compatible
antecedent in the current sentence (before the pronoun) or the previous
``window`` sentences.  Candidates are noun-phrase heads with their full
mention text; they must agree in number, gender and animacy, may not
contain the pronoun in their own phrase (a clause modifying them may hold it:
"Anne, who had risen to her feet", unless it is an argument of that clause's
verb) and, for object pronouns, may not be the subject of the same verb
(binding principle B); reflexives take their clause's subject.
Ranking is Hobbs/centering-like: nearer sentence first, then subject >
object > other, then recency (for *they* a coordination such as "Flopsy,
Mopsy and Cotton-tail" comes first).  A pronoun of the narration prefers,
within each sentence, the narration's mentions to those inside quotation
marks: in 'Mr. Brown asked, "Where is the old sailor?" Then he rowed on.'
the one who rows is Mr. Brown, not the sailor, who is only spoken of.
A resolved pronoun is a candidate itself, carrying its antecedent's text,
so chains never copy a pronoun.
Pleonastic *it*, first and second person and pronouns without a compatible
antecedent stay unchanged.

>>> from kgcore.core.types import Sentence
>>> text = "Peter was frightened; he ran."
>>> HeuristicCoref().resolve([Sentence("t", 0, 0, 0, text, text, "")])[0].resolved  # doctest: +SKIP
'Peter was frightened; Peter ran.'
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence

from kgcore.core.nlp import load_spacy
from kgcore.core.types import Sentence
from kgcore.index.bounds import SERIAL, Parallel
from kgcore.index.coref.base import CorefLink, apply_replacements, fit_case, possessive, starts_sentence
from kgcore.index.coref.emphasis import common_words, emphasised_words, is_emphasis
from kgcore.index.coref.lexicon import NAME_PARTICLES, SUBJ_DEPS, TITLES
from kgcore.index.coref.mentions import OBJ, SUBJ, Mention, ParsedSentence, Pronoun, noun_semantics, parse_mentions
from kgcore.index.narrator import quoted_ranges
from kgcore.index.parallel import pipe_mapped
from kgcore.index.speakers import paragraph_speakers

#: Votes a name part needs, and the share of them for one gender, before its gender is taken as known: one stray
#: possessive ("Raoul kissed her hand") never decides, and a name voted both ways stays unknown.  Set by reading the
#: votes of a novel's text, not from any question (The Phantom of the Opera: Raoul 11 m / 1 f, Christine 11 f,
#: Carlotta 3 f, Erik 3 m, Daae 2 f / 1 m).
MIN_GENDER_VOTES, MIN_GENDER_SHARE = 2, 0.8
#: The share of a name's place votes (:func:`learned_places`) that must say place: two in three uses after "at" /
#: "in" ..., not as a verb's subject.
MIN_PLACE_SHARE = 2 / 3


class HeuristicCoref:
    """Rule-based resolver; ``window`` is how many previous sentences are searched.

    spaCy parsing is nearly all of the cost (Robinson Crusoe, 121k words: about 26 s on one
    CPU core; the rules add under a second).
    """

    name = "heuristic"

    def __init__(self, nlp=None, window: int = 2, batch_size: int = 256, parallel: Parallel = SERIAL):
        self.nlp = nlp if nlp is not None else load_spacy()
        self.window = window
        self.batch_size = batch_size
        #: Worker processes spaCy may use, for documents long enough (:class:`~kgcore.index.bounds.Parallel`).
        self.parallel = parallel

    def resolve(self, sentences: Sequence[Sentence]) -> list[Sentence]:
        return self.resolve_with_links(sentences)[0]

    def resolve_with_links(self, sentences: Sequence[Sentence]) -> tuple[list[Sentence], list[CorefLink]]:
        """Resolved sentences plus one :class:`CorefLink` per replaced pronoun."""
        texts = [s.normalized for s in sentences]
        parsed = list(pipe_mapped(self.nlp, texts, [], parse_mentions, self.parallel.processes_for(len(texts)),
                                  self.batch_size, self.parallel.timeout_s))
        persons = set().union(*(p.persons for p in parsed)) if parsed else set()
        state = _Resolution(texts, parsed, persons, self.window, quoted_ranges(sentences),
                            paragraph_speakers(sentences))
        links = [
            CorefLink(sentences[k].id, pronoun.text, pronoun.start, pronoun.end, antecedent,
                      sentences[origin].id, replacement)
            for k in range(len(sentences))
            for pronoun, antecedent, replacement, origin in state.resolve_sentence(k)
        ]
        out = [
            dataclasses.replace(s, resolved=apply_replacements(s.normalized, [r[:3] for r in state.reps[k]]))
            for k, s in enumerate(sentences)
        ]
        return out, links


class _Resolution:
    """Left-to-right resolution state: replacements and resolved pronouns per sentence."""

    def __init__(self, texts: list[str], parsed: list[ParsedSentence], persons: set[str], window: int,
                 quoted: list[list[tuple[int, int]]], speakers: list[str]):
        self.texts, self.parsed, self.window = texts, parsed, window
        #: Per sentence, its character ranges inside quotation marks.
        self.quoted = quoted
        #: Per sentence, the name words (lower case, no title) of the one speaker its paragraph's quotations are
        #: attributed to (:func:`~kgcore.index.speakers.paragraph_speakers`; empty for none).
        self.speakers = [frozenset(w.lower() for w in s.split() if w.lower() not in TITLES) for s in speakers]
        genders = learned_genders(v for p in parsed for v in p.gender_votes)
        places = learned_places(v for p in parsed for v in p.place_votes)
        persons = persons - places  # a stray PERSON tag does not make the document's place a person
        emphasised = emphasised_words(texts)
        common = common_words(texts) - persons - genders.keys()  # a PERSON somewhere, or gendered: a name
        for k, p in enumerate(parsed):
            p.mentions = [m for m in p.mentions if not is_emphasis(texts[k][m.start:m.end], texts[k], emphasised)
                          and _as_common_noun(m, texts[k], common)]
            for m in p.mentions:
                m.origin = k
                if m.kind in ("place", "name") and m.names & persons:
                    m.kind = "person"
                found = {genders[n] for n in m.names if n in genders}
                if m.gender is None and len(found) == 1 and not m.plural:
                    learned = found.pop()
                    if learned != "n":
                        m.gender = learned
                    elif m.kind == "name":  # a defined term the document calls "its": "it" may refer to it
                        m.kind = "thing"
                if m.kind == "name" and m.gender is None and m.names & places:
                    m.kind = "place"  # "tea at Cottage": no "he"
                elif m.kind == "person" and m.gender is None and m.names and m.names <= places:
                    m.kind = "place"  # "Bath" tagged a person here, written "in Bath" / "to Bath" elsewhere
        # (start, end, text, lower_first) per sentence, and chained pronoun mentions.
        self.reps: list[list[tuple[int, int, str, bool]]] = [[] for _ in texts]
        self.chains: list[list[Mention]] = [[] for _ in texts]

    def resolve_sentence(self, k: int):
        """Yield ``(pronoun, antecedent text, replacement, antecedent's sentence)`` for sentence ``k``."""
        for pronoun in self.parsed[k].pronouns:
            found = self._binder(k, pronoun) if pronoun.form == "refl" else self._search(k, pronoun)
            if found is None:
                continue
            text, lower_first = self.render(found.origin, found)
            new = possessive(text, found.plural) if pronoun.form == "poss" else text
            at_start = pronoun.text[0].isupper() and starts_sentence(self.texts[k], pronoun.start)
            new = fit_case(new, at_start, lower_first)
            self.reps[k].append((pronoun.start, pronoun.end, new, lower_first))
            # The resolved pronoun becomes a candidate itself, carrying its antecedent's text.
            gender = {"she": "f", "he": "m"}.get(pronoun.referent, found.gender)
            self.chains[k].append(dataclasses.replace(
                found, start=pronoun.start, end=pronoun.end, first=pronoun.i, head=pronoun.i, gender=gender,
                role=pronoun.role, tree=(pronoun.i, pronoun.i), text=text, lower_first=lower_first,
                verb=pronoun.verb,
            ))
            yield pronoun, text, new, found.origin

    def render(self, k: int, m: Mention) -> tuple[str, bool]:
        """A mention's text with the pronouns inside it already resolved."""
        if m.text is not None:
            return m.text, m.lower_first
        inner = [r for r in self.reps[k] if m.start <= r[0] and r[1] <= m.end]
        lower_first = next((r[3] for r in inner if r[0] == m.start), m.lower_first)
        shifted = [(s - m.start, e - m.start, t) for s, e, t, _ in inner]
        return apply_replacements(self.texts[k][m.start:m.end], shifted), lower_first

    def _candidates(self, k: int, pronoun: Pronoun):
        narration = not self._quoted(k, pronoun.start)
        for distance in range(0, self.window + 1):
            j = k - distance
            if j < 0:
                return
            pool = self.parsed[j].mentions + self.chains[j]
            if distance == 0:
                pool = [m for m in pool if _precedes(m, pronoun)]
            yield from sorted(pool, key=lambda m: (narration and self._quoted(j, m.start), m.role,
                                                   *_group_rank(pronoun, m), -m.first))

    def _quoted(self, k: int, position: int) -> bool:
        """Whether character ``position`` of sentence ``k`` lies inside quotation marks."""
        return any(start <= position < end for start, end in self.quoted[k])

    def _search(self, k: int, pronoun: Pronoun) -> Mention | None:
        if pronoun.cataphor >= 0:
            # "In assessing its Exposure, the Authorised Person should ...": only an animate subject for "his",
            # "her", "their" ("Above their heads, Mme. Giry's three teeth were clashing" are the managers' heads)
            found = next((m for m in self.parsed[k].mentions if m.head == pronoun.cataphor
                          and _agrees(pronoun.referent, m)
                          and (pronoun.referent == "it" or m.kind in ("person", "animal", "name"))), None)
            if found is not None:
                return found
        agreeing = [m for m in self._candidates(k, pronoun) if _agrees(pronoun.referent, m)]
        if self.speakers[k] and self._quoted(k, pronoun.start):
            # The speaker says "I": in '"I must see him! What if he should die?" said the Judge', neither is he.
            agreeing = [m for m in agreeing if m.names != self.speakers[k]]
        if pronoun.animate and agreeing and agreeing[0].kind == "thing":
            return None  # "their neighbor" of "the fences": left as written rather than someone further away
        # Principle B through a chain: in "He shot him", "him" is not whoever "He" is.  Only for
        # direct objects: a prepositional one may be locative ("close to him").
        banned = pronoun.role == OBJ and {
            self.render(m.origin, m)[0].lower() for m in self.parsed[k].mentions + self.chains[k]
            if m.role == SUBJ and m.verb in pronoun.coargs and m.end <= pronoun.start
        }
        if banned:
            agreeing = [m for m in agreeing if self.render(m.origin, m)[0].lower() not in banned]
        if pronoun.hint:
            return next((m for m in agreeing if m.lemma == pronoun.hint), agreeing[0] if agreeing else None)
        return agreeing[0] if agreeing else None

    def _binder(self, k: int, pronoun: Pronoun) -> Mention | None:
        """A reflexive's antecedent: the (resolved) subject of its clause, if it agrees."""
        pool = self.parsed[k].mentions + self.chains[k]
        bound = (m for m in pool if m.head == pronoun.binder and m.end <= pronoun.start)
        return next((m for m in bound if _agrees(pronoun.referent, m)), None)


def _as_common_noun(m: Mention, text: str, common: frozenset[str]) -> bool:
    """Whether a mention stays a candidate, read as the common noun it is when the tagger calls it a name of
    unknown gender but the document writes its words in lower case inside its sentences
    (:func:`~kgcore.index.coref.emphasis.common_words`, less the words the document types or genders as a
    person): "jam in heaven", "the silent stretches of green", "laughed gayly" took "he" and "she" from the
    people beside them.  It stays only as the person or animal its noun names ("the Popular Daughter", "the
    urchin"), and not as a lone word opening its sentence before a stop ("Man!" he shouted), nor before a comma
    when it is no subject ("Nurse, she is asleep" addresses her; "Nurse, who had come in, smiled" does not); any
    other such word -- an adverb, a verb, a thing -- is no antecedent ("Doubtless, God did forgive her", "--
    Admit! repeated Heron")."""
    if m.kind != "name" or m.gender is not None or not m.names or not m.names <= common:
        return True
    m.gender, m.kind = noun_semantics(m.lemma)
    m.names = frozenset()
    after = text[m.end:m.end + 1]
    addressed = after in tuple("!?.") or after in tuple(",;:") and m.dep not in SUBJ_DEPS
    lone_exclamation = not any(ch.isalpha() for ch in text[:m.start]) and addressed
    return m.kind in ("person", "animal") and not lone_exclamation


def learned_genders(votes: Iterable[tuple[str, str]], least: int = MIN_GENDER_VOTES,
                    share: float = MIN_GENDER_SHARE) -> dict[str, str]:
    """Each name part's gender by the document's own votes (:func:`kgcore.index.coref.mentions.gender_votes`):
    at least ``least`` votes, ``share`` of them for one gender.  A name of unknown gender agrees with both "he"
    and "she"; once learned, "she continued" no longer resolves to Raoul.  "n" (voted by "its") makes a name a
    thing: a rulebook's "Third Party Provider" then agrees with "it".

    >>> learned_genders([("raoul", "m")] * 11 + [("raoul", "f"), ("daae", "f"), ("daae", "m"), ("erik", "m")] * 1)
    {'raoul': 'm'}
    >>> learned_genders([("provider", "n")]), learned_genders([("provider", "n")] * 2)
    ({}, {'provider': 'n'})
    """
    counts: dict[str, Counter[str]] = {}
    for name, gender in votes:
        counts.setdefault(name, Counter())[gender] += 1
    out = {}
    for name, c in counts.items():
        gender, top = c.most_common(1)[0]
        if top >= least and top / sum(c.values()) >= share and name not in NAME_PARTICLES:
            out[name] = gender
    return out


def learned_places(votes: Iterable[tuple[str, bool]]) -> frozenset[str]:
    """The name parts a document writes more often where a place stands than where someone acts
    (:func:`kgcore.index.coref.mentions.place_votes`): "the corridors *at Clongowes*" is no "he" of Stephen's.

    As for genders, a place needs :data:`MIN_GENDER_VOTES` votes and :data:`MIN_PLACE_SHARE` of them.

    >>> sorted(learned_places([("clongowes", True)] * 3 + [("clongowes", False), ("cranly", False),
    ...                        ("cranly", True), ("dick", True)]))
    ['clongowes']
    """
    placed: Counter[str] = Counter()
    acting: Counter[str] = Counter()
    for name, is_place in votes:
        (placed if is_place else acting)[name] += 1
    return frozenset(n for n, count in placed.items()
                     if count >= MIN_GENDER_VOTES and count >= MIN_PLACE_SHARE * (count + acting[n]))


def _group_rank(pronoun: Pronoun, m: Mention) -> tuple[bool, bool]:
    """For "they": a coordination ("Flopsy, Mopsy and Cotton-tail") first, then animate plurals."""
    if pronoun.referent != "they":
        return False, False
    return not m.coordinated, m.kind not in ("person", "animal", "name")


def _precedes(m: Mention, pronoun: Pronoun) -> bool:
    """In the pronoun's own sentence: before it, not containing it (but for a clause modifying it:
    :func:`_in_its_clause`), not its co-argument subject."""
    if m.end > pronoun.start or m.tree[0] <= pronoun.i <= m.tree[1] and not _in_its_clause(m, pronoun):
        return False
    return not (m.role == SUBJ and m.verb in pronoun.coargs)


def _in_its_clause(m: Mention, pronoun: Pronoun) -> bool:
    """Whether ``pronoun`` stands in a clause or conjunct after ``m`` and may refer to it: "Anne, who had risen to
    her feet", "a young man gazing from a club window and saying something to his companion", "Mrs. Lynde, who
    says she could never have believed it", "John and his brother" (a name needs a known gender for he/she: not
    "Captain Wentworth and her sister"; "the stranger and his dog" needs none).  Not an argument of the clause's
    own verb, whose relative pronoun is already ``m`` ("the student with whom he had been conversing", "who got
    Anne near her to thank her"; :func:`~kgcore.index.coref.pronouns.clause_verbs`), and not a plain "it", which
    in such a clause is mostly something else ("a general wish to walk along it", "a gloom diffused about it")."""
    if pronoun.referent == "it" and pronoun.form != "poss":
        return False
    if m.kind == "name" and pronoun.referent in ("he", "she"):
        return False  # a capitalised noun not known as a person: "a mysterious and terrible Past, which ... his"
    return any(lo <= pronoun.i <= hi and verb not in pronoun.clause
               and (verb >= 0 or m.gender is not None or not m.names or pronoun.referent not in ("he", "she"))
               for lo, hi, verb in m.clauses)  # a named conjunct: "Captain Wentworth and her sister" wants a gender


def _agrees(referent: str, m: Mention) -> bool:
    """Number, gender and animacy agreement of a pronoun class with a mention.

    >>> tea = Mention(0, 3, 0, 0, OBJ, False, None, "thing", (0, 0))
    >>> _agrees("it", tea), _agrees("she", tea), _agrees("they", tea)
    (True, False, False)
    >>> mother = dataclasses.replace(tea, gender="f", kind="person")
    >>> _agrees("she", mother), _agrees("he", mother), _agrees("it", mother)
    (True, False, False)
    """
    if referent == "they":
        return m.plural
    if m.plural:
        return False
    if referent == "it":
        return m.kind in ("animal", "thing", "place") and m.gender is None
    wanted = "f" if referent == "she" else "m"
    return m.kind in ("person", "animal", "name") and m.gender in (None, wanted)
