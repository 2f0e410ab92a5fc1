"""Verbs of intent: a verb only wanted, planned or refused is not done.

"Amory *arranged to meet* her in the gymnasium" does not say where Amory met Isabelle, "Anne *refused to marry*
Gilbert" not whom Anne married, and "he *was determined to* leave for London" not where he went.  The roles check
(:mod:`kgcore.query.answer.roles`) therefore does not let such a complement fill a question's frame -- unless the
question says the same intent itself ("Where does Amory *plan* to meet Isabelle?").

Four kinds of head make a complement intended:

* a verb of :data:`INTENT` ("arranged to", "hoped to", "refused to");
* an adjective of :data:`INTENT` ("was *determined* to", "*eager* to", "*about* to");
* a verb of :data:`WISHING` under "would" / "should" ("would *like* to"; "she liked to walk" is a habit, done);
* "going to" under "be" ("was *going* to marry").

A complement is done after all when the head is "fail" negated ("did not fail to") or is joined to a verb of
success ("tried to meet her *and succeeded*").

>>> from kgcore.core.nlp import load_spacy
>>> nlp = load_spacy()
>>> doc = nlp("Anne hoped to teach at Avonlea.")
>>> intended(doc[3], frozenset()), intended(doc[3], question_intent(nlp("Where did Anne hope to teach?")))
(True, False)
>>> doc = nlp("He tried to meet her and succeeded.")
>>> intended(doc[3], frozenset())
False
"""

from __future__ import annotations

#: Heads whose complement is wanted, planned or refused, not done (verb lemmas and adjectives).  Not "aim", "seek",
#: "suppose" or "decide": a paper's "we *aim to* determine whether ..." and "we *seek to* minimize ..." say what the
#: work does, and "each map, *supposed to* represent ..." what a thing is for (23 of the 26 uses of the first three
#: among the design papers' and QASPER papers' 3,666 sentences read so; the rest are future work or hypothetical);
#: "we *decided to* use RoBERTa" is what was used.
INTENT = frozenset(
    "arrange plan want hope intend promise expect wish mean propose try attempt refuse fail desire threaten offer "
    "long endeavour endeavor strive plot scheme yearn "
    "determined eager anxious willing keen reluctant unwilling about ready impatient desirous".split())
#: Heads that deny or hold back their complement ("refused to marry", "failed to capture", "reluctant to go"): a
#: question asking through one is not answered by the act itself, so it keeps them as its verb.
DENYING = frozenset("refuse fail threaten offer reluctant unwilling".split())
#: Verbs of liking, an intent only under "would" or "should" ("she would like to marry him").
WISHING = frozenset("like love prefer".split())
#: Verbs that say an attempt came off ("tried to meet her and *succeeded*").
SUCCESS = frozenset("succeed manage".split())
_CONDITIONAL = frozenset("would should 'd".split())


def lemma(token) -> str:
    """The token's lemma, "hope" for the forms the small tagger lemmatises as "hop".

    >>> from kgcore.core.nlp import load_spacy
    >>> lemma(load_spacy()("Anne hoped to stay.")[1])
    'hope'
    """
    return "hope" if token.lower_ in ("hoped", "hopes", "hoping") else token.lemma_.lower()


def intent_of(token) -> str:
    """The intent ``token`` says as the head of a complement ("hope", "determined", "like" under "would",
    "going" under "be"), or "" when it says none."""
    word = lemma(token)
    if word in INTENT:
        return word
    auxiliaries = {c.lower_ for c in token.children if c.dep_ == "aux"}
    if word in WISHING and auxiliaries & _CONDITIONAL:
        return word
    if token.lower_ == "going" and any(c.lemma_ == "be" for c in token.children if c.dep_ == "aux"):
        return "going"
    return ""


def question_intent(q_doc) -> frozenset[str]:
    """The intents a question says itself, from its verbs and adjectives ("Where does Amory *plan* to meet
    Isabelle?"; a noun such as "What was the *plan*?" says none), not from a subordinate clause of its own ("Where
    did Anne teach *after she hoped* to leave?" asks where she taught).

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> sorted(question_intent(nlp("Where did Anne teach after she hoped to leave?"))), sorted(question_intent(
    ...     nlp("Who was the man Anne wanted to marry?")))
    ([], ['want'])
    """
    return frozenset(filter(None, (intent_of(t) for t in q_doc if t.pos_ in ("VERB", "AUX", "ADJ")
                                   and not _subordinate(t))))


def _subordinate(token) -> bool:
    """Whether ``token`` stands in an adverbial clause opened by a conjunction ("*after* she hoped to leave"); not
    in an infinitive the parser calls ``advcl``."""
    return any(t.dep_ == "advcl" and any(c.dep_ == "mark" for c in t.children) for t in [token, *token.ancestors])


def intended(verb, asked: frozenset[str]) -> bool:
    """Whether the sentence's ``verb`` is only wanted, planned or refused: the complement of a head that
    says an intent (:func:`intent_of`) the question does not say itself (``asked``, :func:`question_intent`); a
    verb joined to such a complement too ("hoped to leave Green Gables *and teach* at Avonlea")."""
    while verb.dep_ == "conj" and verb.head.i != verb.i:
        verb = verb.head
    head = verb.head
    complement = verb.dep_ == "xcomp" or (verb.dep_ == "advcl" and any(c.lower_ == "to" for c in verb.children))
    said = intent_of(head) if complement and head.i != verb.i else ""
    if not said or said in asked:
        return False
    if said == "fail" and any(c.dep_ == "neg" for c in head.children):  # "did not fail to"
        return False
    return not any(c.dep_ == "conj" and lemma(c) in SUCCESS for c in head.children)
