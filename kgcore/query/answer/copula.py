"""What stands across "be" from the question's noun phrase: "What is the seed lexicon?", "Who is the rector?",
"What was the cat's name?" are answered by the attribute of a "be" whose subject is that phrase (or the subject
of one whose attribute it is), by a phrase in apposition to it, by what a defining verb says it is ("the seed
lexicon *consists of* ..."), or -- for a name -- by what a naming verb calls it ("a cat *named* Biscuit").  The
roles check (:func:`~kgcore.query.answer.roles.fills_frame`) asks this of a question whose only verb is "be".

>>> from kgcore.core.nlp import load_spacy
>>> doc = load_spacy()("The rector, Father Conmee, was a kind man.")
>>> fills_copula(doc, [doc[3], doc[4]], frozenset({"rector"}), "", True)
True
"""

from __future__ import annotations

from kgcore.query.answer.arguments import same_token, verb_above, within


def _names(token, names: frozenset[str]) -> bool:
    return any(t.lemma_.lower() in names or t.lower_ in names for t in token.subtree)


def fills_copula(doc, inside: list, subject: frozenset[str], preposition: str, spanned: bool) -> bool:
    """Whether a span (its tokens ``inside``) stands across "be" (or "become") from the question's noun phrase (the
    nouns ``subject``): one is the verb's subject, the other its attribute (under ``preposition`` when the question
    strands one), or in
    apposition to it; without spans, whether a "be" joins that phrase to an attribute at all, or a verb that
    says what a thing is (:data:`DEFINING_VERBS`: "the seed lexicon *consists of* ...") has it as its subject."""
    if any(t.dep_ == "appos" and t.head.lemma_.lower() in subject for t in inside):
        return True
    if "name" in subject and any(named_as(t, subject - {"name"}) for t in inside):
        return True
    if not spanned and not preposition and any(defines(t, subject) for t in doc):
        return True
    for be in (t for t in doc if t.lemma_.lower() in ("be", "become")):  # "Amory became a bayonet instructor"
        args = [c for c in be.children if c.dep_ in ("nsubj", "nsubjpass", "attr", "acomp")]
        named = [a for a in args if _names(a, subject)]
        if not named:
            continue
        if preposition:
            if any(t.dep_ == "pobj" and t.head.lower_ == preposition and same_token(verb_above(t.head), be)
                   for t in inside) or not spanned:
                return True
        elif not spanned and len(args) > 1:
            return True
        elif any(within(t, a) for a in args for t in inside if not any(n.i == a.i for n in named)):
            return True
    return False


#: Verbs that give a thing its name: "a cat *named* Biscuit", "a schooner *called* the Solveig".
NAMING_VERBS = frozenset(("name", "call"))


def named_as(token, things: frozenset[str]) -> bool:
    """Whether ``token`` is the name a naming verb (:data:`NAMING_VERBS`) gives one of ``things``: "What was the
    cat's name?" / "a small grey cat *named Biscuit*" (the verb a participle of the thing, or the thing its
    object: "they called the cat Biscuit").

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("She had two trunks and a small grey cat named Biscuit.")
    >>> named_as(doc[10], frozenset({"cat"})), named_as(doc[10], frozenset({"dog"}))
    (True, False)
    """
    verb = token.head
    if token.dep_ not in ("oprd", "attr", "dobj", "npadvmod") or verb.lemma_.lower() not in NAMING_VERBS:
        return False
    passive = any(c.dep_ == "auxpass" for c in verb.children)
    participle = verb.dep_ == "acl" or verb.dep_ == "relcl" and passive  # "a cat named X", "a cat that was named X"
    named = [verb.head] if participle else [c for c in verb.children if c.dep_ in ("dobj", "nsubjpass") and c != token]
    return any(n.lemma_.lower() in things or n.lower_ in things for n in named)


#: Verbs that say what their subject is, as "be" does, each with the word that introduces what it says ("" for a
#: direct object): "X consists of", "comprises", "refers to", "denotes", "means", "is defined as".
DEFINING_VERBS = {"consist": "of", "comprise": "", "refer": "to", "denote": "", "mean": "", "define": "as"}


def defines(verb, subject: frozenset[str]) -> bool:
    """Whether ``verb`` is one of :data:`DEFINING_VERBS`, not negated, saying what the question's noun phrase is:
    its subject is that phrase (headed by one of its nouns and holding all of them; "define" only in the passive,
    "X is defined as") and it has what the verb introduces (a non-pronoun object, or the object of its
    preposition) -- not "the authors of the lexicon refer to prior work", "X is defined in Section 3" or "X
    means nothing to him"."""
    lemma = verb.lemma_.lower()
    if verb.pos_ != "VERB" or lemma not in DEFINING_VERBS or any(c.dep_ == "neg" for c in verb.children):
        return False
    roles = ("nsubjpass",) if lemma == "define" else ("nsubj", "nsubjpass")
    if not any(c.dep_ in roles and _is_phrase(c, subject) for c in verb.children):
        return False
    word = DEFINING_VERBS[lemma]
    if word:
        return any(c.dep_ == "prep" and c.lower_ == word and any(o.dep_ == "pobj" for o in c.children)
                   for c in verb.children)
    return any(c.dep_ == "dobj" and c.pos_ != "PRON" for c in verb.children)


def _is_phrase(head, nouns: frozenset[str]) -> bool:
    """Whether ``head`` heads the question's noun phrase: it is one of ``nouns`` and its phrase holds them all."""
    return head.lemma_.lower() in nouns and nouns <= {t.lemma_.lower() for t in head.subtree} | {
        t.lower_ for t in head.subtree}
