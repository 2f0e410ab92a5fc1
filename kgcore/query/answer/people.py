"""Words that say how a person stands: to another person (a relation) or in the world (an occupation).

A question asking how people are related (:func:`~kgcore.query.answer.expected.expected_answer`'s kind
``relation``: "How are Beatrice and Amory related?", "Who is Monsignor Darcy in relation to Amory?", "What family
relationship does Anne share with William Elliot?") is answered by a word for a relation -- a relative ("his
mother", "cousin", "the twins"), a partner or a tie of trust or service ("mentor", "guardian", "fiancé") -- with
whose relation it is ("Wentworth's sister"), or a verb that makes one ("they were *married*").
:data:`~kgcore.query.answer.span_words.RELATION_NOUNS` lists the common ones; WordNet adds any other common noun
for a relative ("stepsister", "kinswoman": a kind of *relative*; not a name such as "Mary", whom WordNet knows as
a mother).

A question asking for someone's job (kind ``occupation``: "What is Anne's job?", "What profession does Anne have
as a teenager?", "What does he do for a living?") is answered by a word for a worker or a profession, with the
words that make it one ("the new *schoolteacher*", "a *bayonet instructor*"): in WordNet a kind of worker,
professional, clergyman, official ... (:data:`OCCUPATION_KINDS`), not a word for anyone ("man", "gentleman").

>>> from kgcore.core.nlp import load_spacy
>>> from kgcore.query.answer.expected import expected_answer
>>> nlp = load_spacy()
>>> question = nlp("How are Beatrice and Amory related?")
>>> expected_answer(question).kind
'relation'
>>> doc = nlp("Beatrice was his mother, and Monsignor Darcy became Amory's mentor.")
>>> [doc[a:b].text for a, b in relation_spans(list(doc), expected_answer(question), {"beatrice", "amory"}, question)]
['his mother', "Amory's mentor"]
>>> question = nlp("What was Amory's job in the army?")
>>> expected_answer(question).kind
'occupation'
>>> doc = nlp("The old man said Amory became a bayonet instructor at the camp.")
>>> [doc[a:b].text for a, b in occupation_spans(list(doc), expected_answer(question), {"amory", "army"}, question)]
['bayonet instructor']
"""

from __future__ import annotations

from kgcore.core import wordnet
from kgcore.query.answer.span_tokens import Span, is_new, local
from kgcore.query.answer.span_words import RELATION_NOUNS

#: The question's words that only say a relation is asked for; the answering sentence need not repeat them.
RELATION_WORDS = frozenset(
    "relate related relation relations relationship relationships family kinship share have".split())
#: Relation nouns that say one only with whose they are ("her child", "the child of"): else a young person.
OWNED_ONLY = frozenset(("child", "children"))
#: Verbs that make a relation: "they were *married*", "she is *engaged*".
RELATION_VERBS = frozenset("marry wed engage betroth adopt".split())


def relation_spans(tokens: list, expected, asked: set[str], q_doc) -> list[Span]:
    """Words for a relation the question lacks, each with its possessor ("his mother", "Wentworth's sister"), and
    verbs that make one ("married")."""
    spans = [(local(tokens, t), local(tokens, t) + 1) for t in tokens
             if t.pos_ in ("VERB", "ADJ") and t.lemma_.lower() in RELATION_VERBS and is_new(t, asked)]
    for t in tokens:
        lemma = t.lemma_.lower()
        if (lemma in RELATION_NOUNS and t.pos_ == "PROPN" or t.pos_ == "NOUN" and is_relation(lemma)) \
                and is_new(t, asked):
            owner = [c for c in t.children if c.dep_ == "poss"]
            if lemma in OWNED_ONLY and not owner and not any(c.lower_ == "of" for c in t.children):
                continue  # "a very good child" is young, "her child" and "the child of" related
            start = min([local(tokens, c.left_edge) for c in owner] + [local(tokens, t)])
            spans.append((max(start, 0), local(tokens, t) + 1))
    return spans


def is_relation(lemma: str) -> bool:
    """Whether a noun says how one person stands to another: one of :data:`RELATION_NOUNS` or, in WordNet, a kind
    of relative.

    >>> is_relation("cousin"), is_relation("garden")
    (True, False)
    """
    return lemma in RELATION_NOUNS or bool(wordnet.is_a(lemma, "relative"))


#: WordNet's kinds of people that name an occupation: a teacher is a professional, a lieutenant a worker, a priest
#: a clergyman.
OCCUPATION_KINDS = ("worker", "professional", "clergyman", "serviceman", "official", "creator", "communicator",
                    "businessman", "merchant", "entertainer", "expert", "employee", "financier", "legislator")
#: Words for anyone that WordNet also files under a kind of worker ("man" as a subordinate, "gentleman" as a valet).
ANYONE = frozenset("man men woman women gentleman lady boy girl guest hero person people fellow".split())
#: Occupations WordNet files under no such kind.
OCCUPATION_NOUNS = frozenset("engineer banker musher".split())


def occupation_spans(tokens: list, expected, asked: set[str], q_doc) -> list[Span]:
    """Words for an occupation the question lacks, with the nouns and adjectives before them that make it one
    ("bayonet instructor", "new schoolteacher")."""
    spans = []
    for t in tokens:
        if t.pos_ == "NOUN" and is_new(t, asked) and is_occupation(t.lemma_.lower()):
            made = [c for c in t.lefts if c.dep_ in ("compound", "amod")]
            spans.append((local(tokens, made[0]) if made else local(tokens, t), local(tokens, t) + 1))
    return spans


def is_occupation(lemma: str) -> bool:
    """Whether a noun names an occupation: one of :data:`OCCUPATION_NOUNS` or, in WordNet, a word whose commonest
    sense is a person and some sense a kind of one of :data:`OCCUPATION_KINDS` (a "hand" is first a part of the
    body), but no word for anyone (:data:`ANYONE`).

    >>> [is_occupation(w) for w in ("governess", "lieutenant", "gentleman", "heir", "hand", "head")]
    [True, True, False, False, False, False]
    """
    if lemma in ANYONE:
        return False
    senses = wordnet.supersenses(lemma) or ()
    return lemma in OCCUPATION_NOUNS or senses[:1] == ("person",) and any(
        wordnet.is_a(lemma, kind) for kind in OCCUPATION_KINDS)
