"""Whether a question asks how people are related or what someone does for a living -- and is about people.

>>> from kgcore.core.nlp import load_spacy
>>> from kgcore.query.answer.expected import asked_noun
>>> nlp = load_spacy()
>>> def kind(q):
...     doc = nlp(q)
...     wh_at = next(i for i, t in enumerate(doc) if t.lower_ in ("how", "who", "what"))
...     return people_kind(doc, wh_at, asked_noun(doc, wh_at)[0] if doc[wh_at].lower_ == "what" else "")
>>> [kind(q) for q in ("How are Beatrice and Amory related?", "Who is Monsignor Darcy in relation to Amory?",
...                    "What is Anne's job?", "What did Matthew do for a living before he came to Avonlea?")]
['relation', 'relation', 'occupation', 'occupation']

A question about models, data or parts of a system is none of these, though it names them: a name written like a
technical term ("BERT", "ELMo", "GPT-3", "DeepMind") or a common noun that is no word for a person ("the
encoder", "the model") is no one.

>>> [kind(q) for q in ("How is BERT related to ELMo?", "What is the relationship between Google and DeepMind?",
...                    "What is the encoder's job in the Transformer?", "What does the model do for a living?")]
[None, None, None, None]
"""

from __future__ import annotations

import re

from kgcore.query.answer.span_words import PERSON_NOUNS, RELATION_NOUNS

#: "what family relationship does Anne share with William?": a word for a relation answers it ("cousin").
RELATION_ASKED = frozenset("relation relations relationship relationships kinship".split())
#: "what is Anne's job?", "what profession does she have?": a word for an occupation answers it ("teacher").
OCCUPATION_ASKED = frozenset("job jobs profession professions occupation occupations career trade vocation".split())
PERSONAL_PRONOUNS = frozenset("he she they him her them his their".split())
BE_FORMS = frozenset("is are was were".split())
#: A name written as a technical term is: capitals inside or throughout, a figure, a hyphen.
TECHNICAL = re.compile(r"[a-z][A-Z]|[A-Z]{2}|\d|-")
#: Entity types of things, not people (spaCy's ORG is left out: it takes many a novel's characters).
THING_ENTITIES = frozenset("PRODUCT WORK_OF_ART LAW LANGUAGE GPE LOC FAC EVENT NORP".split())
#: Words for a person, and for how one stands to another.
PEOPLE_WORDS = PERSON_NOUNS | RELATION_NOUNS
#: The common nouns a question about how people are related may hold besides them.
RELATION_QUESTION_NOUNS = PEOPLE_WORDS | RELATION_ASKED | {"family"}


def people_kind(q_doc, wh_at: int, asked: str = "") -> str | None:
    """"relation" for "How are X and Y related?", "Who is X in relation to Y?" and "What (family) relationship
    does X share with Y?" about people; "occupation" for someone's job, profession or trade and "what does X do
    for a living?"; else None.  ``asked``: the noun a what/which question asks about
    (:func:`~kgcore.query.answer.expected.asked_noun`)."""
    words = [t.lower_ for t in q_doc]
    wh, after = words[wh_at], words[wh_at + 1:]
    noun = next((t for t in q_doc[wh_at + 1:] if t.lower_ == asked), None) if asked else None
    if wh == "how" and after[:1] and after[0] in BE_FORMS and "related" in after[1:] \
            or wh == "who" and _says(after, "in relation to") or asked in RELATION_ASKED:
        return "relation" if about_people(q_doc) else None
    if asked in OCCUPATION_ASKED or wh == "what" and _says(after, "for a living"):
        return "occupation" if someone_owns(q_doc, noun) else None
    return None


def _says(words: list[str], phrase: str) -> bool:
    return f" {phrase} " in f" {' '.join(words)} "


def about_people(q_doc) -> bool:
    """Whether a question names someone and nothing else: a person-like token (:func:`personlike`), every proper
    noun one, and its common nouns words for people or for the relation ("How are the people who rent the Hall
    related to Anne's fiance?")."""
    proper = [t for t in q_doc if t.pos_ == "PROPN"]
    nouns = [t for t in q_doc if t.pos_ == "NOUN"]
    return any(personlike(t) for t in q_doc) and all(personlike(t) for t in proper) and all(
        t.lemma_.lower() in RELATION_QUESTION_NOUNS or t.lower_ in RELATION_QUESTION_NOUNS for t in nouns)


def someone_owns(q_doc, noun) -> bool:
    """Whether the job asked about is someone's: its possessor or the question's subject is person-like ("What
    is *Anne's* job?", "What profession does *Anne* have?", "What does *he* do for a living?")."""
    owners = [c for c in noun.children if c.dep_ == "poss"] if noun is not None else []
    owners += [t for t in q_doc if t.dep_ in ("nsubj", "nsubjpass") and t.lower_ not in ("what", "which")]
    return any(personlike(t) for t in owners)


def personlike(token) -> bool:
    """Whether a token can be someone: a personal pronoun, a word for a person, a PERSON entity, or a proper noun
    written as a name is (not "BERT", "GPT-3") that names no thing (a product, a place, a work)."""
    if token.lower_ in PERSONAL_PRONOUNS or token.lemma_.lower() in PEOPLE_WORDS:
        return True
    if token.ent_type_ == "PERSON":
        return True
    return token.pos_ == "PROPN" and not TECHNICAL.search(token.text) and token.ent_type_ not in THING_ENTITIES
