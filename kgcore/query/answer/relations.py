"""How two people are related: the span that answers "How are Beatrice and Amory related?", "Who is Monsignor
Darcy in relation to Amory?" or "What family relationship does Anne share with William Elliot?".

Such a question (:func:`~kgcore.query.answer.expected.expected_answer`'s kind ``relation``) is answered by a word
for a relation -- a relative ("his mother", "cousin", "the twins"), a partner or a tie of trust or service
("mentor", "guardian", "fiancé") -- with whose relation it is ("Wentworth's sister"), or a verb that makes one
("they were *married*").  :data:`~kgcore.query.answer.span_words.RELATION_NOUNS` lists the common ones; WordNet
adds any other common noun for a relative ("stepsister", "kinswoman": a kind of *relative*; not a name such as
"Mary", whom WordNet knows as a mother).

>>> from kgcore.core.nlp import load_spacy
>>> from kgcore.query.answer.expected import expected_answer
>>> nlp = load_spacy()
>>> question = nlp("How are Beatrice and Amory related?")
>>> expected_answer(question).kind
'relation'
>>> doc = nlp("Beatrice was his mother, and Monsignor Darcy became Amory's mentor.")
>>> [doc[a:b].text for a, b in relation_spans(list(doc), expected_answer(question), {"beatrice", "amory"}, question)]
['his mother', "Amory's mentor"]
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
