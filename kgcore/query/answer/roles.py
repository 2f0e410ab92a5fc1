"""Who did what to whom: whether a cited sentence holds the answer in the role the question asks about.

A short question about characters ("Who does Louisa become engaged to?") is often answered by a sentence holding
all of its words and a span of the asked kind that plays another part: "He was more engaged *with Louisa* than
*with Henrietta*" names a person, but not the one Louisa becomes engaged *to*.  The question's *frame* says where
its wh-phrase stands relative to its content verb (:func:`question_frame`): the verb's subject ("*who* rescued
them"), its object ("*who* does Mr. Irving marry", "*whose* cow did Anne sell"), the object of a preposition
("*with whom* does Paul live", "what is he looking *for*"), an adjunct of the verb ("*where* does Anne teach"), or,
for "what happened to X" / "what did X do", whom the action concerns.  A sentence *fills* the frame
(:func:`fills_frame`) when one of its verbs has the question verb's stem and a span of the asked kind stands in
that role under it, and the question's own subject, when the sentence names one for that verb, is the same
("the city marshal is going to look into the matter" does not say what Judge Pyncheon is looking for).

The verdict calls an answer whose sentence does not fill its question's frame at best *unsure*
(:mod:`~kgcore.query.answer.verdict`): the words are there, who did what to whom is not.  The frame is read
mostly from the words, as :mod:`~kgcore.query.answer.slots` reads the gap, since the small parser often
misreads questions ("Who did baby tuckoo meet": *did* the root).

>>> from kgcore.core.nlp import load_spacy
>>> nlp = load_spacy()
>>> frame = question_frame(nlp("With whom does Paul live?"))
>>> frame.role, frame.preposition, sorted(frame.subject)
('prep', 'with', ['paul'])
>>> doc = nlp("Paul lives away down near the shore with his grandmother.")
>>> fills_frame(frame, doc, [(41, 56)], None)
True
>>> fills_frame(question_frame(nlp("Where does Anne teach?")),
...             nlp("'Teaching is very interesting work,' wrote Anne to a chum."), [(44, 54)], None)
False
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.core import wordnet
from kgcore.index.coref.lexicon import RELATION_NOUNS
from kgcore.index.qa.base import WH_WORDS
from kgcore.query.answer import intent
from kgcore.query.answer.arguments import (
    SUBJECTS,
    bearers,
    is_passive,
    phrase_head,
    same_subject,
    same_token,
    subject_of,
    verb_above,
    within,
)
from kgcore.query.answer.copula import fills_copula
from kgcore.query.answer.intent import DENYING, INTENT, WISHING, intended, question_intent
from kgcore.query.answer.words import LIGHT_VERBS, stem

#: Wh-words asking for an adjunct of the verb (a place, time, reason or way).
ADJUNCT_WH = frozenset(("where", "when", "why", "how"))
#: Words that start a clause inside the question ("the school *where* Anne teaches"): a verb after one is not
#: the question's own.
RELATIVES = frozenset(("where", "that", "who", "which", "whom", "when"))
_OBJECTS = frozenset(("dobj", "nsubjpass", "attr", "oprd", "dative"))
#: Verbs that pass the question on to the verb or adjective they take ("become *engaged*", "begin to *visit*"), and
#: the heads of intent that do not deny it ("would *like* to marry", "was *determined* to marry"; "Who did Elizabeth
#: *refuse* to marry?" is not answered by "Elizabeth married Mr. Darcy").
CATENATIVE = frozenset("become seem appear begin start continue keep need get decide".split()) | (
    (INTENT | WISHING) - DENYING)
#: Nouns whose "of" names another person or thing than the one asked about ("the *wife* of Sir Walter"); after
#: other nouns the "of" is part of the name or the subject itself ("the Duke of Wellington", "the use of attention").
RELATIONAL = RELATION_NOUNS | frozenset("owner heir widow widower captain master mistress tenant guest".split())


@dataclass(frozen=True)
class Frame:
    """Where a question's wh-phrase stands: the stem of its content ``verb``; its ``role`` (``subject``,
    ``object``, ``prep``, ``adjunct``, ``possessor``, ``action`` or ``copula``); the ``preposition`` of a
    ``prep`` role (or stranded after "be"); the possessed ``noun`` of "whose N"; the lemmas of the question's own
    ``subject`` when the wh-phrase is not it (for ``action``: whom the action concerns; for ``copula``: the noun
    phrase across "be")."""

    verb: str
    role: str
    preposition: str = ""
    noun: str = ""
    subject: frozenset[str] = frozenset()
    #: The question's verb as it is written ("engaged"), for the reason.
    word: str = ""
    #: The intents the question says itself ("Where does Anne *plan* to teach?"; :mod:`~kgcore.query.answer.intent`).
    intent: frozenset[str] = frozenset()
    #: Whether the question's verb is passive ("What colour *was* the hall *painted*?"): its ``subject`` is then
    #: what the verb acts on, which an active sentence names as its object ("Pye painted *the hall* blue").
    passive: bool = False

    def describe(self) -> str:
        """The role in words, for a verdict's reason.

        >>> Frame("marri", "object", subject=frozenset({"irving"}), word="marry").describe()
        'the object of “marry” (with irving its subject)'
        """
        role = {"subject": "the subject of", "object": "the object of", "adjunct": "an adjunct of",
                "possessor": f"the possessor of “{self.noun}”, the object of",
                "prep": f"the object of “{self.preposition}” under", "action": "an action concerning",
                "copula": "what stands across “be” from"}[self.role]
        if self.role in ("action", "copula"):
            return f"{role} {', '.join(sorted(self.subject))}"
        kind = "passive subject" if self.passive else "subject"
        with_subject = f" (with {', '.join(sorted(self.subject))} its {kind})" if self.subject else ""
        return f"{role} “{self.word}”{with_subject}"


def _content_verb(tokens: list, start: int):
    """The question's own content verb after ``start`` (None when a relative clause comes first or none)."""
    for t in tokens[start:]:
        if t.lower_ in RELATIVES and t.i > start:
            return None
        if t.text[:1].isupper() or len(t.text) < 3:  # a name the tagger took for a verb ("is Amory from")
            continue
        if (t.pos_ == "VERB" or t.dep_ == "acomp") and t.lemma_.lower() not in LIGHT_VERBS and t.dep_ != "amod":
            if intent.lemma(t) in CATENATIVE:  # "hoping": the tagger says "hop"
                passed = [c for c in t.children if c.dep_ in ("acomp", "oprd", "xcomp") and c.pos_ in ("ADJ", "VERB")]
                return passed[0] if passed else t
            return t
    return None


def _stranded(tokens: list, verb) -> str:
    """A preposition after the verb left without its object ("what is he looking *for*"), or ""."""
    for t in tokens[verb.i + 1:]:
        if t.pos_ == "ADP" and not any(c.dep_ in ("pobj", "pcomp") and c.i > t.i for c in t.children):
            return t.lower_
    return ""


def question_frame(q_doc) -> Frame | None:
    """The :class:`Frame` of the question's first wh-word, or None when there is none to check: no wh-word, no
    content verb of the question's own ("Who is the rector?"), or a quantity ("how many")."""
    frame = _frame(q_doc)
    intent = question_intent(q_doc)
    return dataclasses.replace(frame, intent=intent) if frame is not None and intent else frame


def _frame(q_doc) -> Frame | None:
    tokens = list(q_doc)
    at = next((k for k, t in enumerate(tokens) if t.lower_ in WH_WORDS), None)
    if at is None or at + 1 >= len(tokens):
        return None
    wh, after = tokens[at], tokens[at + 1]
    if wh.lower_ == "how" and after.pos_ in ("ADJ", "ADV"):
        return None
    end = at + 1  # past the wh-phrase ("which sister", "whose cow")
    while end < len(tokens) and (tokens[end].pos_ in ("NOUN", "PROPN", "ADJ") and wh.lower_ in ("which", "what",
                                                                                               "whose")):
        end += 1
    verb = _content_verb(tokens, end)
    if verb is None:
        return _action_frame(q_doc) or _light_frame(tokens, at, end)
    between = tokens[end:verb.i]
    subject = _subject_nouns(between)
    has_subject = bool(subject) or any(t.pos_ == "PRON" for t in between)  # "what do *they* use?"
    action = _action_frame(q_doc)
    if action is not None:
        return action
    base, word, passive = stem(verb.lemma_.lower()), verb.text, _passive(between, verb)
    if at and tokens[at - 1].pos_ == "ADP":
        return Frame(base, "prep", tokens[at - 1].lower_, subject=subject, word=word, passive=passive)
    if wh.lower_ in ADJUNCT_WH:
        return Frame(base, "adjunct", subject=subject, word=word, passive=passive)
    if not has_subject:  # "who rescued them?", "who is living with him?"; "who was rescued?" asks for its object
        return Frame(base, "object" if verb.tag_ == "VBN" and between else "subject", word=word)
    if wh.lower_ == "whose":
        return Frame(base, "possessor", noun=tokens[at + 1].lemma_.lower(), subject=subject, word=word,
                     passive=passive)
    stranded = _stranded(tokens, verb)
    return Frame(base, "prep" if stranded else "object", stranded, subject=subject, word=word, passive=passive)


def _subject_nouns(between: Sequence) -> frozenset[str]:
    """The lemmas of the nouns that say who the question's subject is: not a possessor when the phrase has a
    noun of its own ("Where did Anne's *mother* die?" is not answered by "Anne died in the village"), nor the
    object of a :data:`RELATIONAL` noun's "of" ("Where did the *wife* of Sir Walter die?" not by "Sir Walter died
    at Bath"; "the Duke of Wellington" keeps both).

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> sorted(question_frame(nlp("Where did Anne's mother die?")).subject)
    ['mother']
    >>> sorted(question_frame(nlp("Where did Sir Walter Elliot's daughter die?")).subject)
    ['daughter']
    >>> sorted(question_frame(nlp("Where did Anne and Diana walk?")).subject)
    ['anne', 'diana']
    >>> sorted(question_frame(nlp("Where did the captain of the ship die?")).subject)
    ['captain']
    >>> sorted(question_frame(nlp("Where did the Duke of Wellington die?")).subject)
    ['duke', 'wellington']
    """
    nouns = [t for t in between if t.pos_ in ("PROPN", "NOUN")]
    owners = {d.i for t in nouns if t.dep_ == "poss" or any(c.dep_ == "case" for c in t.children) for d in t.subtree}
    of = next((t.i for t in between[1:] if t.lower_ == "of" and t.nbor(-1).lemma_.lower() in RELATIONAL), None)
    owners |= {t.i for t in nouns if of is not None and t.i > of}  # read from the words: the parser often errs
    owned = [t for t in nouns if t.i not in owners]  # "Mr. Elliot's father": not "mr." nor "elliot"
    return frozenset(t.lemma_.lower() for t in (owned or nouns))


def _passive(between: Sequence, verb) -> bool:
    """Whether the question's verb is passive: a form of "be" stands between the wh-phrase and it, and it is a
    participle or a past -- read from the words, since the small parser takes "painted" in "What color was the
    town hall painted?" for a past tense -- not "-ing" ("what is he looking for"), nor the verb of a clause
    inside the question ("What was the last thing Anne *saw*?", "Where was Anne before she *moved*?").

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> [question_frame(nlp(q)).passive for q in ("What color was the town hall painted?",
    ...     "What crime was Clifford imprisoned for?", "What is Anne looking for?", "Whom did Anne marry?",
    ...     "What was the last thing Anne saw?", "Where was Anne before she moved to Kingsport?")]
    [True, True, False, False, False, False]
    """
    return (verb.tag_ in ("VBN", "VBD") and verb.dep_ not in ("relcl", "advcl")
            and any(t.lemma_.lower() == "be" for t in between)
            and not any(t.dep_ == "mark" or t.pos_ == "SCONJ" for t in between))


def _light_frame(tokens: list, at: int, end: int) -> Frame | None:
    """A who/what question whose only verb is "be" or "have": "Who is the rector?" asks for what stands beside
    the rector across "be" (its subject or attribute) or in apposition to it ("the rector, Father Conmee");
    "What city is Amory from?" for the object of the stranded preposition under "be"; "What injury did Louisa
    have?" for the object of "have".  None for where / when / why / how ("Where is Gilbert teaching?": the
    tagger's noun hides the verb)."""
    if tokens[at].lower_ in ADJUNCT_WH:
        return None
    light = next((t for t in tokens[end:] if t.lemma_.lower() in ("be", "have")
                  and not (t.lemma_.lower() == "have" and t.dep_ == "aux")), None)
    if light is None:
        return None
    if light.lemma_.lower() == "have":
        nouns = frozenset(t.lemma_.lower() for t in tokens[end:light.i] if t.pos_ in ("PROPN", "NOUN"))
        return Frame(stem("have"), "object", subject=nouns, word=light.text) if nouns else None
    phrase = []
    for t in tokens[light.i + 1:]:
        if t.lower_ in RELATIVES:
            break
        phrase.append(t)
    nouns = frozenset(t.lemma_.lower() for t in phrase if t.pos_ in ("PROPN", "NOUN") or t.text[:1].isupper())
    stranded = phrase[-1].lower_ if phrase and phrase[-1].pos_ == "ADP" else ""
    if not stranded and len(phrase) > 1 and phrase[-2].pos_ == "ADP" and phrase[-1].is_punct:
        stranded = phrase[-2].lower_
    return Frame("be", "copula", stranded, subject=nouns, word=light.text) if nouns else None


def _action_frame(q_doc) -> Frame | None:
    """"What happened to X?" / "what did X do?": whom the action concerns (``subject``), or None."""
    for t in q_doc:
        lemma = t.lemma_.lower()
        if lemma == "happen":
            heads = [o for p in t.children if p.lower_ == "to" for o in p.children if o.dep_ == "pobj"]
        elif lemma == "do" and t.dep_ != "aux" and any(w.lower_ == "what" for w in q_doc):
            heads = [c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")]
        else:
            continue
        names = frozenset(h.lemma_.lower() for h in heads if h.pos_ in ("NOUN", "PROPN"))
        return Frame("", "action", noun=lemma, subject=names) if names else None
    return None


# -- the sentence ----------------------------------------------------------------------------------
def fills_frame(frame: Frame, doc, spans: Sequence[tuple[int, int]], resolved) -> bool:
    """Whether the parsed sentence ``doc`` holds one of ``spans`` (character offsets) in ``frame``'s role under
    a verb of the question verb's stem, with the question's subject (when the sentence names one for that verb:
    a noun, not a pronoun) the same; without spans (a reason or way the sentence does not mark), whether it has
    such a verb with that subject.  An ``action`` frame asks only that whom the action concerns is an argument
    of some verb -- for "what did X do?" its subject -- in ``doc`` or its coref-resolved parse ``resolved``."""
    if frame.role == "action":
        roles = SUBJECTS if frame.noun == "do" else SUBJECTS | _OBJECTS | {"pobj"}
        return any(_argument_of_verb(d, frame.subject, roles) for d in (doc, resolved) if d is not None)
    inside = [t for t in doc if any(a <= t.idx < b for a, b in spans)]
    if frame.role == "copula":
        return fills_copula(doc, inside, frame.subject, frame.preposition, bool(spans))
    for verb in (t for t in doc if stem(t.lemma_.lower()) == frame.verb or stem(t.lower_) == frame.verb):
        # an auxiliary ("to *have* forgotten") is no verb
        if verb.pos_ in ("NOUN", "PROPN") or verb.dep_ in ("aux", "auxpass") or intended(verb, frame.intent) \
                or not same_subject(verb, frame.subject, frame.passive):
            continue
        if not spans or any(_fits(t, verb, frame) for t in inside) \
                or (frame.role == "adjunct" and any(t.i == verb.i for t in inside)):
            return True
    return False


def _argument_of_verb(doc, names: frozenset[str], roles: frozenset[str]) -> bool:
    return any(t.lemma_.lower() in names or t.lower_ in names for t in doc
               if t.dep_ in roles and verb_above(t) is not None)


def _fits(token, verb, frame: Frame) -> bool:
    """Whether ``token`` (of a span) stands in ``frame``'s role under ``verb``."""
    if frame.role == "subject":
        subject = subject_of(verb)
        return (subject is not None and within(token, subject)) or (
            token.dep_ == "pobj" and token.head.dep_ == "agent" and token.head.head.i == verb.i)
    if frame.role == "object":
        return any(within(token, c) for c in verb.children if c.dep_ in _OBJECTS)
    if frame.role == "possessor":
        return token.dep_ == "poss" and token.head.lemma_.lower() == frame.noun
    if frame.role == "prep":
        if frame.passive and frame.preposition == "by" and not is_passive(verb):  # "Who was the Judge killed
            subject = subject_of(verb)  # by?": an active sentence's subject
            return subject is not None and within(token, subject)
        return token.dep_ in ("pobj", "pcomp") and token.head.lower_ == frame.preposition \
            and same_token(verb_above(token.head), verb)
    return same_token(verb_above(token), verb)  # an adjunct: the span hangs on the verb


def another_act(frame: Frame | None, doc, spans: Sequence[tuple[int, int]], q_doc=None) -> bool:
    """Whether the first span hangs on another verb than the question's, said of the question's own subject (named
    by a noun): "Margaret Ellery arrived in Carrow Point *on 14 March 1923*" says when Margaret arrived, not when
    she left -- though the date is a figure of the asked kind, which the verdict otherwise lets stand when the
    roles are not found, since papers say the question's verb in other words ("By what factor does CacheBlend
    cut ...?" / "CacheBlend reduces ... by 2.2-3.3x").  A verb sharing a WordNet sense with the question's is the
    same act ("cut", "reduce"; with its particle: "set off", "depart"), and so is every verb joined to one that is
    ("packed her trunks and left ... on 2 September"); without WordNet no act counts as another.  ``q_doc``: the
    question's parse, for the particle of its verb.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> frame = question_frame(nlp("When did Margaret leave Carrow Point?"))
    >>> text = "Margaret Ellery arrived in Carrow Point on 14 March 1923."
    >>> another_act(frame, nlp(text), [(43, 56)])
    True
    >>> another_act(frame, nlp("Margaret left Carrow Point on 2 September 1923."), [(33, 49)])
    False
    """
    if frame is None or frame.role in ("action", "copula") or not frame.subject or not spans:
        return False
    inside = [t for t in doc if spans[0][0] <= t.idx < spans[0][1]]
    verb = verb_above(inside[0]) if inside else None
    if verb is None or verb.pos_ != "VERB":
        return False
    asked = _with_particle(next((t for t in q_doc if t.text == frame.word), None), frame.word) if q_doc else frame.word
    if any(stem(v.lemma_.lower()) == frame.verb or wordnet.same_verb_sense(_with_particle(v, v.lemma_), asked)
           is not False for v in (verb, *verb.conjuncts)):
        return False  # the question's act, in its words or others
    said = {w for b in bearers(verb, frame.passive) if b.pos_ != "PRON" for t in phrase_head(b)
            for w in (t.lemma_.lower(), t.lower_)}
    return bool(said & frame.subject)


def _with_particle(verb, word: str) -> str:
    """``word`` with the particle of ``verb`` after it ("set off"), as WordNet files phrasal verbs."""
    particle = next((c.lower_ for c in verb.children if c.dep_ == "prt"), "") if verb is not None else ""
    return f"{word} {particle}" if particle else word

