"""Words that say how a person stands: to another person (a relation) or in the world (an occupation).

A question asking how people are related (:func:`~kgcore.query.answer.expected.expected_answer`'s kind
``relation``: "How are Beatrice and Amory related?", "Who is Monsignor Darcy in relation to Amory?", "What family
relationship does Anne share with William Elliot?") is answered by a word for a relation -- a relative ("his
mother", "cousin", "the twins"), a partner or a tie of trust or service ("mentor", "guardian", "fiancé") -- with
whose relation it is ("Wentworth's sister", "a cousin of Mr. Bennet"), or a verb that makes one ("they were
*married*", "engaged to").  :data:`~kgcore.query.answer.span_words.RELATION_NOUNS` lists the common ones; WordNet
adds any other common noun for a relative ("stepsister", "kinswoman": a kind of *relative*; not a name such as
"Mary", whom WordNet knows as a mother).

A question asking for someone's job (kind ``occupation``: "What is Anne's job?", "What profession does Anne have
as a teenager?", "What does he do for a living?") is answered by a word for a worker or a profession, with the
nouns that make it one ("a *bayonet instructor*"): in WordNet a kind of worker, professional, clergyman, official
... (:data:`OCCUPATION_KINDS`), not a word for anyone ("man", "gentleman") nor for kin ("father", though WordNet
knows priests by it).  Whether a question is about people at all: :mod:`~kgcore.query.answer.people_questions`.

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
from kgcore.query.answer.people_questions import OCCUPATION_ASKED, RELATION_ASKED
from kgcore.query.answer.span_tokens import Span, is_new, local
from kgcore.query.answer.span_words import RELATION_NOUNS

#: The question's words that only say a relation or an occupation is asked for; the answering sentence need not
#: repeat them ("how are they *related*", "what is her *job*", "what does he *do* for a *living*").
RELATION_WORDS = RELATION_ASKED | frozenset("relate related family share have".split())
OCCUPATION_WORDS = OCCUPATION_ASKED | frozenset("living do have".split())
#: Relation nouns that say one only with whose they are ("her child", "the child of"): else a young person.
OWNED_ONLY = frozenset(("child", "children"))
#: Verbs that make a relation in every sense: "they were *married*".
RELATION_VERBS = frozenset("marry wed betroth".split())
#: Verbs that make one only with "to": "*engaged* to Captain Benwick", not "engaged in conversation".
RELATION_VERBS_TO = frozenset(("engage",))


def relation_spans(tokens: list, expected, asked: set[str], q_doc) -> list[Span]:
    """Words for a relation the question lacks that say whose it is, with it ("his mother", "Wentworth's sister",
    "a cousin of Mr. Bennet"; "Beatrice, his mother", "They are twins"; not "brought father up"), and verbs that
    make one ("married", "engaged to")."""
    spans = [(local(tokens, t), local(tokens, t) + 1) for t in tokens if _relating_verb(t) and is_new(t, asked)]
    for t in tokens:
        lemma = t.lemma_.lower()
        if (lemma in RELATION_NOUNS and t.pos_ == "PROPN" or t.pos_ == "NOUN" and is_relation(lemma)) \
                and is_new(t, asked):
            owner = [c for c in t.children if c.dep_ == "poss"]
            of = [o for c in t.children if c.lower_ == "of" for o in c.children if o.dep_ == "pobj"]
            if not (owner or of or _said_of(t)) or lemma in OWNED_ONLY and not owner and not of:
                continue  # whose is not said ("brought father up"); "a very good child" is young
            start = min([local(tokens, c.left_edge) for c in owner] + [local(tokens, t)])
            end = max([local(tokens, o.right_edge) for o in of if o.right_edge.i <= tokens[-1].i] + [local(tokens, t)])
            spans.append((max(start, 0), end + 1))
    return spans


def _said_of(noun) -> bool:
    """Whether a relation noun is said of someone: in apposition ("Beatrice, his mother"; "AMORY, SON OF ..."), or
    what someone is or becomes ("They are twins")."""
    while noun.dep_ == "conj":  # "his mother and father"
        noun = noun.head
    if noun.dep_ == "appos" or any(c.dep_ == "appos" for c in noun.children):
        return True
    return noun.dep_ in ("attr", "oprd") and any(c.dep_ in ("nsubj", "nsubjpass") for c in noun.head.children)


def _relating_verb(token) -> bool:
    lemma = token.lemma_.lower()
    return token.pos_ in ("VERB", "ADJ") and (lemma in RELATION_VERBS or lemma in RELATION_VERBS_TO and any(
        c.lower_ == "to" for c in token.children))


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
#: Words for anyone that WordNet also files under a kind of worker ("man" as a subordinate, "gentleman" as a valet),
#: and titles ("lord", "mistress", "master").
ANYONE = frozenset("man men woman women gentleman lady boy girl guest hero person people fellow lord mistress master"
                   .split())
#: Relation nouns that are also occupations: one is somebody's servant and a servant by trade.
SERVING = frozenset("servant maid tutor governess nurse employee".split())
#: Occupations WordNet files under no such kind.
OCCUPATION_NOUNS = frozenset("engineer banker musher".split())


def occupation_spans(tokens: list, expected, asked: set[str], q_doc) -> list[Span]:
    """Words for an occupation the question lacks, with the nouns before them that make it one ("bayonet
    instructor"; not the adjectives that judge it: "a good teacher")."""
    spans = []
    for t in tokens:
        if t.pos_ == "NOUN" and is_new(t, asked) and is_occupation(t.lemma_.lower()):
            made = [c for c in t.lefts if c.dep_ == "compound"]
            spans.append((local(tokens, made[0]) if made else local(tokens, t), local(tokens, t) + 1))
    return spans


def is_occupation(lemma: str) -> bool:
    """Whether a noun names an occupation: one of :data:`OCCUPATION_NOUNS` or, in WordNet, a word whose commonest
    sense is a person and some sense a kind of one of :data:`OCCUPATION_KINDS` (a "hand" is first a part of the
    body), but no word for anyone (:data:`ANYONE`).

    >>> [is_occupation(w) for w in ("governess", "lieutenant", "gentleman", "heir", "hand", "head", "father")]
    [True, True, False, False, False, False, False]
    """
    if lemma in ANYONE or lemma not in SERVING and is_relation(lemma):  # "father", "son": kin, though priests
        return False
    senses = wordnet.supersenses(lemma) or ()
    return lemma in OCCUPATION_NOUNS or senses[:1] == ("person",) and any(
        wordnet.is_a(lemma, kind) for kind in OCCUPATION_KINDS)
