"""Third-person pronouns of one parsed sentence and the binding facts their resolution needs, for the ``heuristic``
coreference backend: the verbs whose subject an object pronoun cannot mean (principle B: in "He shot him", "him"
is not "he"), a reflexive's binder, the clause a pronoun is an argument of, the predicate noun that hints at what
"it" is ("it was a blue jacket").
"""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.index.coref.cataphora import cataphor
from kgcore.index.coref.lexicon import ARG_PREPS, COPULAS, OBJ_DEPS, OWNED_WORDS, PRONOUNS, RELATION_NOUNS, SUBJ_DEPS
from kgcore.index.coref.pleonastic import is_pleonastic

SUBJ, OBJ, OTHER = 0, 1, 2


@dataclass(slots=True)
class Pronoun:
    i: int
    start: int
    end: int
    text: str
    referent: str
    form: str
    role: int
    verb: int = -1
    # Verbs whose subject this (object) pronoun cannot corefer with: binding principle B.
    coargs: tuple[int, ...] = ()
    binder: int = -1
    # Head lemma of a predicate noun ("it was a blue jacket"): a candidate with that head wins.
    hint: str = ""
    # The main clause's subject a possessive in a fronted adjunct refers to ahead (:mod:`.cataphora`), or -1.
    cataphor: int = -1
    # Whether only people can be meant: "their" of a relation only they have ("their neighbor"; lexicon.RELATION_NOUNS).
    animate: bool = False
    # The verbs whose clause it is an argument of (:func:`clause_verbs`).
    clause: tuple[int, ...] = ()


def pronoun_of(tok) -> Pronoun | None:
    """A third-person pronoun worth resolving, or None (pleonastic, emphatic, not a pronoun)."""
    if tok.tag_ not in ("PRP", "PRP$") or tok.text.isupper() and len(tok.text) > 1:
        return None  # all-capital "HIS" is a heading, not prose
    referent, form = PRONOUNS[tok.lower_]
    if (tok.tag_ == "PRP$" or tok.lower_ == "her" and tok.dep_ == "poss") and not _object_her(tok):
        form = "poss"  # the tagger's PRP "her" of "did her utmost" still owns it
    if tok.lower_ == "it" and is_pleonastic(tok):
        return None
    binder = _binder(tok) if form == "refl" else -1
    if form == "refl" and binder < 0:
        return None
    dep = tok.dep_
    role = SUBJ if dep in SUBJ_DEPS else OBJ if dep in OBJ_DEPS else OTHER
    return Pronoun(
        i=tok.i, start=tok.idx, end=tok.idx + len(tok), text=tok.text, referent=referent, form=form,
        role=role, verb=tok.head.i if role == SUBJ else -1,
        coargs=_coargs(tok) if form != "poss" else (), binder=binder, hint=_predicate_noun(tok),
        cataphor=cataphor(tok), animate=tok.lower_ == "their" and tok.head.lemma_.lower() in RELATION_NOUNS,
        clause=clause_verbs(tok, form == "poss"),
    )


def _object_her(tok) -> bool:
    """Whether a "her" the tagger calls a possessive is an object: "who had lived with *her* long" has no noun
    for it to own."""
    return tok.lower_ == "her" and tok.head.pos_ not in ("NOUN", "PROPN", "NUM") and tok.head.dep_ in (
        "pobj", "dobj", "advmod", "npadvmod") and tok.head.lower_ not in OWNED_WORDS  # "of her own" owns


def clause_verbs(tok, possessive: bool) -> tuple[int, ...]:
    """The verbs whose clause a pronoun (``possessive``: its form, as :func:`pronoun_of` read it) is an argument
    of: its own, reached through prepositions and nouns ("with whom he had been conversing", "for each of them"),
    and those that share its subject, up through coordination,
    complements and subjectless adjuncts ("who had lived with her and gone about with her", "who got Anne near her
    on purpose to thank her", "the boy carrying him"); none for a possessive, unless it stands in what a copula
    says of its subject ("an excitement that might have been the throb of its heart": not the excitement's).  The
    clauses a mention keeps (:func:`kgcore.index.coref.mentions.modifying_clauses`) have that noun as their subject
    or relative pronoun, so an argument of their verb is not that noun
    (:func:`kgcore.index.coref.heuristic._in_its_clause`).

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("Mrs Musgrove, who got Anne near the door on purpose to thank her, smiled.")
    >>> [doc[i].text for i in clause_verbs(doc[-4], possessive=False)]
    ['thank', 'got']
    """
    verb, predicate = _verb_above(tok)
    if possessive and not (predicate and verb.lemma_ in COPULAS):
        return ()
    verbs = [verb.i]
    for _ in range(8):
        if verb.dep_ not in ("conj", "xcomp", "advcl", "acl") or verb.head.i == verb.i or any(
                c.dep_ in SUBJ_DEPS for c in verb.children):
            break
        verb, _ = _verb_above(verb)
        verbs.append(verb.i)
    return tuple(verbs)


def _verb_above(tok):
    """The nearest verb above ``tok`` (the root when none is), and whether the way passes a copula's predicate."""
    verb, predicate = tok.head, tok.dep_ == "attr"
    while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
        predicate = predicate or verb.dep_ == "attr"
        verb = verb.head
    return verb, predicate


def _predicate_noun(tok) -> str:
    if tok.dep_ not in SUBJ_DEPS or tok.head.lemma_ != "be":
        return ""
    return next((c.lemma_.lower() for c in tok.head.children if c.dep_ == "attr" and c.pos_ == "NOUN"), "")


def _coargs(tok) -> tuple[int, ...]:
    """Verbs of which an object pronoun is an argument (their subjects cannot be its antecedent)."""
    if tok.dep_ in ("dobj", "dative", "iobj", "obj"):
        verb = tok.head
    elif tok.dep_ == "pobj" and (tok.head.lower_ in ARG_PREPS or tok.head.dep_ == "dative"):
        verb = tok.head.head
        if verb.dep_ == "dobj":  # light verbs: "caught sight of him", "took care of her"
            verb = verb.head
    else:
        return ()
    verbs = [verb.i]
    # "ran and caught him", "tried to catch him": the subject is shared with the head verb.
    while verb.dep_ in ("conj", "xcomp") and not any(c.dep_ in SUBJ_DEPS for c in verb.children):
        verb = verb.head
        verbs.append(verb.i)
    return tuple(verbs)


def _binder(tok) -> int:
    """Token index of the subject a reflexive object refers to, or -1 (emphatic or unknown)."""
    if tok.dep_ not in ("dobj", "dative", "iobj", "obj", "pobj"):
        return -1
    verb = tok.head.head if tok.dep_ == "pobj" else tok.head
    for _ in range(6):
        subject = next((c for c in verb.children if c.dep_ in SUBJ_DEPS), None)
        if subject is not None:
            return subject.i
        if verb.dep_ == "xcomp":  # object control: "implored him to exert himself"
            controller = next((c for c in verb.head.children if c.dep_ in ("dobj", "dative")), None)
            if controller is not None:
                return controller.i
        if verb.dep_ not in ("xcomp", "conj", "advcl", "pcomp", "prep", "ccomp") or verb.head is verb:
            return -1
        verb = verb.head
    return -1
