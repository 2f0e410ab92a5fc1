"""Words an idiom empties of their sense: a question's word found only in such a use is not the question's word.

"How does Frederick help Mrs. Smith?" is not answered by "Sophy and I cannot help thinking Frederick's manners
better": *cannot help* + a gerund says "cannot avoid", and nobody is helped.  Nor is "How does Wentworth declare
his love?" by "I declare, Charles, I never heard him mention Anne" (an exclamation), nor "What will prove Clifford's
innocence?" by "So it proved with Clifford" (it turned out so).  The support check and the answer pick match a
question's words by stem (:func:`kgcore.query.answer.words.stem_tokens`); a token :func:`emptied` here is left out
of that match, in the question and in the sentence alike, so a reason never claims the word is there.

Only verbs whose idiom the parse shows are listed: *help* with a negation and a gerund, "but" + verb or "it"
("could not help laughing", "couldn't help but laugh", "I can't help it"); *declare* said by "I" with nothing
declared ("I declare!", "Well, I declare, that is fine"); *prove* with nothing proved, or with what it turned out to
be ("So it proved", "The scheme proved useless", "It proved to be a failure").  Senses a parse cannot tell apart
("feeling it to be the result" -- perceiving -- against "his feelings") are not caught.

>>> from kgcore.core.nlp import load_spacy
>>> nlp = load_spacy()
>>> [t.text for t in nlp("I cannot help thinking he was right.") if emptied(t)]
['help']
>>> [t.text for t in nlp("He cannot help you with that.") if emptied(t)]
[]
>>> [t.text for t in nlp("I declare, Anne, Charles never talks of you, he declared.") if emptied(t)]
['declare']
>>> [t.text for t in nlp("So it proved with Clifford, who proved his innocence.") if emptied(t)]
['proved']
>>> [t.text for t in nlp("This is the theorem he proved, as we proved before.") if emptied(t)]
[]
>>> [t.text for t in nlp("He gave a speech that might have proved as long as his pedigree.") if emptied(t)]
['proved']
"""

from __future__ import annotations

#: Dependencies of a verb's complement: what is declared or proved ("declared war", "proved that it holds").
COMPLEMENTS = frozenset("dobj ccomp xcomp attr oprd acomp obj dative".split())
#: Words that open a relative clause as its subject ("a harangue *that* might have proved as long").
RELATIVE_WORDS = frozenset("that which who".split())


def emptied(token) -> bool:
    """Whether the (spaCy) ``token`` is a verb an idiom empties of its own sense (the module's docstring)."""
    lemma = token.lemma_.lower()
    if lemma == "help":
        return _cannot_help(token)
    if lemma == "declare":
        return _exclaimed(token)
    if lemma == "prove":
        return _turned_out(token)
    return False


def _cannot_help(token) -> bool:
    """ "cannot help laughing", "couldn't help but laugh", "I can't help it": negated, with a gerund, "but" or
    "it"."""
    children = list(token.children)
    if not any(c.dep_ == "neg" for c in children):
        return False
    return any((c.dep_ in ("xcomp", "ccomp") and c.tag_ == "VBG") or (c.dep_ == "cc" and c.lower_ == "but")
               or (c.dep_ == "dobj" and c.lower_ == "it") for c in children)


def _exclaimed(token) -> bool:
    """ "I declare!", "I declare, Charles, ...": said by "I" and declaring nothing.  The coref-resolved text writes
    the speaker's name for "I" ("Mary declare"), which leaves the present form that only "I", "we", "you" and "they"
    take; a parenthetical "he declared" is no exclamation."""
    children = list(token.children)
    subjects = [c.lower_ for c in children if c.dep_ == "nsubj"]
    said_by_i = subjects == ["i"] or (token.tag_ == "VBP" and len(subjects) == 1
                                      and subjects[0] not in ("we", "you", "they"))
    set_off = token.i + 1 < len(token.doc) and token.nbor(1).text in (",", "!")  # "I declare, Anne, he never ..."
    return said_by_i and (set_off or not any(c.dep_ in COMPLEMENTS for c in children))


def _turned_out(token) -> bool:
    """ "So it proved", "proved useless", "proved to be a failure": nothing proved, or what it turned out to be."""
    children = list(token.children)
    if any(c.dep_ in ("oprd", "acomp") or (c.dep_ == "xcomp" and c.lemma_ == "be") for c in children):
        return True
    return token.pos_ == "VERB" and not _object_elsewhere(token, children) and \
        not any(c.dep_ in COMPLEMENTS for c in children)


def _object_elsewhere(token, children) -> bool:
    """ "it was proved", "the theorem (that) he proved", "the theorem proved by Gauss", "as we proved before": what
    is proved stands outside the verb's own phrase.  "a harangue that might have proved as long" (the relative word
    its subject) is not such a case."""
    if any(c.dep_ in ("nsubjpass", "auxpass") for c in children) or token.dep_ == "acl":
        return True
    if token.dep_ == "relcl":
        return any(c.dep_ == "nsubj" and c.lower_ not in RELATIVE_WORDS for c in children)
    return token.dep_ == "advcl" and any(c.dep_ == "mark" and c.lower_ == "as" for c in children)
