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
#: Subjects who prove something when nothing proved is said and nothing modifies the verb ("We have proved." -- the
#: proof just given), where "they proved so greatly to his benefit" turned out so.
PERSONS = frozenset("i we you he she they".split())
MODIFIERS = frozenset("advmod prep npadvmod".split())


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
    """"cannot help laughing", "couldn't help but laugh", "I can't help it": negated, with a gerund, "but" and a
    verb right after it, or "it" -- not "did not help Frederick, but wrote to him"."""
    children = list(token.children)
    if not _negated(token):
        return False
    doc = token.doc
    but_verb = token.i + 2 < len(doc) and doc[token.i + 1].lower_ == "but" and doc[token.i + 2].pos_ == "VERB"
    return but_verb or any((c.dep_ in ("xcomp", "ccomp") and c.tag_ == "VBG") or (c.dep_ == "dobj" and c.lower_ == "it")
                           for c in children)


def _negated(token) -> bool:
    """A negation on ``token``, or between it and the modal before it -- where the parser hangs an inverted
    question's "n't" on the subject ("Why couldn't Anne help crying?")."""
    if any(c.dep_ == "neg" for c in token.children):
        return True
    before = token.doc[max(token.sent.start, token.i - 4):token.i]
    modal = next((t.i for t in reversed(before) if t.tag_ == "MD"), None)
    return modal is not None and any(t.lower_ in ("not", "n't", "never") for t in token.doc[modal + 1:token.i])


def _exclaimed(token) -> bool:
    """"I declare!", "I declare, Charles, I never heard ...": the bare form, said by "I" and declaring nothing
    (no object, no "that" clause).  The coref-resolved text writes the speaker's name for "I" ("Mary declare,
    Charles"), a present form no name takes and the parser reads as a verb or a noun after the name; a
    parenthetical "he declared" is no exclamation, nor "Critics declare that ..."."""
    if token.lower_ != "declare":
        return False
    children = list(token.children)
    subjects = [c for c in children if c.dep_ in ("nsubj", "compound") and c.i < token.i]
    said_by_i = len(subjects) == 1 and (subjects[0].lower_ == "i" or subjects[0].pos_ == "PROPN")
    if not said_by_i or any(c.dep_ == "ccomp" and any(m.dep_ == "mark" for m in c.children) for c in children):
        return False
    set_off = token.i + 1 < len(token.doc) and token.nbor(1).text in (",", "!")  # "I declare, Anne, he never ..."
    return set_off or not any(c.dep_ in COMPLEMENTS for c in children)  # the parser may take "talks" for an object


def _turned_out(token) -> bool:
    """"So it proved", "proved useless", "proved to be a failure": what it turned out to be, or nothing proved by
    a subject that is not a person ("it", "that") -- not "proved Clifford innocent", "hard to prove" nor "we have
    proved"."""
    children = list(token.children)
    if any(c.dep_ in ("dobj", "obj") for c in children):
        return False
    if any(c.dep_ in ("oprd", "acomp") or (c.dep_ == "xcomp" and c.lemma_ == "be") for c in children):
        return not any(d.pos_ in ("NOUN", "PROPN", "PRON") for c in children if c.dep_ in ("oprd", "acomp")
                       for d in c.children)  # "proved Clifford innocent": the parser hangs Clifford on innocent
    subjects = [c for c in children if c.dep_ == "nsubj"]
    if not subjects or any(c.dep_ == "aux" and c.lower_ == "to" for c in children):
        return False
    if subjects[0].lower_ in PERSONS and not any(c.dep_ in MODIFIERS for c in children):
        return False  # "We have proved." -- but "they proved so greatly to his benefit" turned out so
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
