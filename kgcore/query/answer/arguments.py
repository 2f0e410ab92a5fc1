"""Whom a sentence's verb is said of: its subject (:func:`subject_of`), the phrase that names the question's
subject for it in either voice (:func:`bearers`), and the words that say who or what a phrase is
(:func:`phrase_head`).  The roles check (:mod:`~kgcore.query.answer.roles`) asks these of the sentence an answer
cites.

>>> from kgcore.core.nlp import load_spacy
>>> doc = load_spacy()("Miss Lavendar was married by Mr. Irving.")
>>> [t.text for t in bearers(doc[3], passive=False)], [t.text for t in bearers(doc[3], passive=True)]
(['Irving'], ['Lavendar'])
"""

from __future__ import annotations

SUBJECTS = frozenset(("nsubj", "csubj"))
RELATIVE_PRONOUNS = frozenset(("who", "which", "that", "whom"))


#: Arcs inside one noun phrase's naming words: "Judge *Pyncheon*", "the *town* hall", "Anne *and Diana*", "the
#: rector, *Father Conmee*" -- not a possessor ("the *body's* hat") nor a modifier's phrase ("the hat *of the
#: body*").
NAMING = frozenset(("compound", "flat", "appos", "conj", "cc", "nmod"))


def phrase_head(token) -> list:
    """The words that say who or what a noun phrase is: its head and what names it with the head (:data:`NAMING`).

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("Phoebe found the body's hat and Judge Pyncheon's cane.")
    >>> [t.text for t in phrase_head(doc[5])]
    ['hat', 'and', 'cane']
    """
    out, todo = [], [token]
    while todo:
        node = todo.pop()
        out.append(node)
        todo += [c for c in node.children if c.dep_ in NAMING]
    return sorted(out, key=lambda t: t.i)


def subject_of(verb):
    """The verb's subject token: its own ``nsubj``, a relative clause's head ("Judge Pyncheon, *who* owns the
    house"), or the subject of the verb it is joined to or completes ("came *to live* with", "rowed and
    *rescued*"); None when there is none."""
    node = verb
    for _ in range(4):
        own = [c for c in node.children if c.dep_ in SUBJECTS]
        if own:
            subject = own[0]
            if subject.lower_ in RELATIVE_PRONOUNS and node.dep_ == "relcl":
                return node.head
            return subject
        if node.dep_ not in ("conj", "xcomp", "advcl", "acomp") or node.head.i == node.i:
            return None
        node = node.head
    return None


def same_subject(verb, names: frozenset[str], passive: bool = False) -> bool:
    """Whether the sentence's ``verb`` has the question's subject (``names``) where the sentence names it (a noun,
    not a pronoun; :func:`bearers`).

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("The judge imprisoned Clifford for murder.")
    >>> same_subject(doc[2], frozenset({"clifford"})), same_subject(doc[2], frozenset({"clifford"}), passive=True)
    (False, True)
    """
    if not names:
        return True
    named = [b for b in bearers(verb, passive) if b.pos_ != "PRON"]
    said = {w for b in named for t in phrase_head(b) for w in (t.lemma_.lower(), t.lower_)}
    return not named or bool(said & names)


def bearers(verb, passive: bool) -> list:
    """Where the sentence's ``verb`` names the question's subject.  An active question's subject does the verb:
    the sentence's subject, or in a passive sentence its agent ("was married *by Mr. Irving*").  A passive
    question's subject is acted on: a passive sentence's subject, an active one's object or indirect object
    ("Pye painted *the hall* blue", "Marilla gave *Anne* a brooch"), or with neither its subject ("Louisa
    became engaged to ...")."""
    if not passive:
        if not is_passive(verb):
            subject = subject_of(verb)
            return [subject] if subject is not None else []
        return [o for c in verb.children if c.dep_ == "agent" for o in c.children if o.dep_ == "pobj"]
    if is_passive(verb):
        return [c for c in passive_head(verb).children if c.dep_ == "nsubjpass"]
    objects = [c for c in verb.children if c.dep_ in ("dobj", "dative")]
    subject = subject_of(verb)
    return objects or ([subject] if subject is not None else [])


def passive_head(verb):
    """The passive verb that ``verb`` is, or is joined to ("was caught and *imprisoned*")."""
    return verb.head if verb.dep_ == "conj" and not any(c.dep_ == "auxpass" for c in verb.children) else verb


def is_passive(verb) -> bool:
    return any(c.dep_ == "auxpass" for c in passive_head(verb).children)


def verb_above(token):
    """The nearest verb (or predicate adjective) above ``token`` (None at the root without one)."""
    node = token
    while node.head.i != node.i:
        node = node.head
        if node.pos_ in ("VERB", "AUX") or node.dep_ == "acomp":
            return node
    return None


def within(token, filler) -> bool:
    """Whether ``token`` is ``filler`` or in its phrase: below it without passing a clause of its own (a relative
    clause, another finite verb); a participle naming it is part of it ("an objective *known as* the ICT")."""
    node = token
    for _ in range(12):
        if node.i == filler.i:
            return True
        if node.dep_ == "relcl" or (node.pos_ in ("VERB", "AUX") and node.dep_ != "acl") or node.head.i == node.i:
            return False
        node = node.head
    return False


def same_token(token, other) -> bool:
    return token is not None and token.i == other.i
