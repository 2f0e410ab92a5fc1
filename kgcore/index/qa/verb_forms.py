"""English verb forms for the questions generated from frames (:mod:`kgcore.index.qa.frames`): the auxiliary an
inverted question takes ("What *did* Peter lose?"), and the agreement of a verb whose subject is "Who" or "What"
("Who *has* something?", not "Who have something?").

>>> split_verb(Frame("lose", "lost")), singular_verb("have found", "find")
(('did', 'lose'), 'has found')
"""

from __future__ import annotations

from kgcore.core.types import Frame

AUXILIARIES = frozenset(
    "am is are was were be been being have has had do does did will would shall should can could may might must "
    "'s 're 've 'd 'll ca wo".split()
)


def is_finite(verb: str) -> bool:
    """Whether ``verb`` as written is finite: not a "to" infinitive nor an -ing form ("to repair", "running").

    >>> [is_finite(v) for v in ("repaired", "to repair", "was running")]
    [True, False, True]
    """
    first = verb.split()[0].lower()
    return first != "to" and not first.endswith("ing")


def split_verb(frame: Frame) -> tuple[str, str]:
    """(auxiliary, the rest) of the frame's verb for an inverted question.

    >>> split_verb(Frame("forget", "had forgotten")), split_verb(Frame("lose", "lost"))
    (('had', 'forgotten'), ('did', 'lose'))
    >>> split_verb(Frame("be", "was")), split_verb(Frame("not go", "don't go", negated=True))
    (('was', ''), ("don't", 'go'))
    >>> split_verb(Frame("never fail", "never failed", negated=True))  # "never" says it: no "did not ... never"
    ('did', 'never fail')
    """
    words = frame.text.split()
    first = words[0].lower()
    if is_finite(frame.text) and (first in AUXILIARIES or first.endswith("n't")) and (len(words) > 1
                                                                                    or frame.predicate == "be"):
        return words[0], " ".join(words[1:])
    lemma = frame.predicate.removeprefix("not ")
    if frame.text.lower() == lemma:
        aux = "do"
    elif frame.text.lower() in (lemma + "s", lemma + "es"):
        aux = "does"
    else:
        aux = "did"
    return (aux + " not" if frame.negated and not lemma.startswith("never ") else aux), lemma


#: Plural verb forms and their singular, for a question whose subject is "Who" or "What".
SINGULAR_FORMS = {"are": "is", "were": "was", "have": "has", "do": "does", "aren't": "isn't",
                  "weren't": "wasn't", "haven't": "hasn't", "don't": "doesn't"}


#: Verbs whose past is written as their lemma: "burst" may be past, so it is left as written.
SAME_PAST = frozenset("bet burst cast cost cut hit hurt let put quit read rid set shed shut split spread thrust "
                      "upset".split())


def plural_complement(phrase: str) -> bool:
    """Whether a copula's complement is plural, so "Who were very good friends?" keeps its "were" ("What was too
    dirty?" does not): a regular plural among its first three words, not after "a" / "an" / "one".

    >>> [plural_complement(p) for p in ("very good friends", "too dirty", "a threat to review systems", "",
    ...                                 "afraid of Rosalind's beauty")]
    [True, False, False, False, False]
    """
    words = phrase.lower().split()
    if not words or words[0] in ("a", "an", "one"):
        return False
    return any(is_plural(w) for w in words[:3])


def singular_verb(verb: str, predicate: str) -> str:
    """``verb`` as written, agreeing with "Who" / "What" as a subject: a plural auxiliary made singular, and a
    present verb written as its lemma given its -s ("Who have something?" -> "Who has something?", "What remain
    open problems?" -> "What remains ...?").

    >>> [singular_verb(v, p) for v, p in [("were", "be"), ("have found", "find"), ("remain", "remain"),
    ...                                   ("carry", "carry"), ("watch", "watch"), ("found", "find"), ("can go", "go")]]
    ['was', 'has found', 'remains', 'carries', 'watches', 'found', 'can go']
    """
    first, _, rest = verb.partition(" ")
    lower = first.lower()
    if lower in SINGULAR_FORMS:
        first = SINGULAR_FORMS[lower]
    elif not rest and lower == predicate.removeprefix("not ").lower() and lower not in SAME_PAST:
        if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
            first += "es"
        elif len(lower) > 2 and lower.endswith("y") and lower[-2] not in "aeiou":
            first = first[:-1] + "ies"
        else:
            first += "s"
    return f"{first} {rest}".strip()


def is_plural(phrase: str) -> bool:
    """Whether a subject ``phrase`` takes a plural verb: coordinated, or its head (the last word before a comma or
    a preposition) a regular plural.

    >>> [is_plural(p) for p in ("different samples", "context relevance", "Anne and Diana", "the class",
    ...                          "the only members of the family", "Sir Walter, of Kellynch Hall's sons")]
    [True, False, True, False, True, False]
    """
    words = phrase.lower().replace(",", " , ").split()
    head = next((n for n, w in enumerate(words) if n and (w == "," or w in HEAD_ENDS)), len(words))
    last = words[head - 1] if head else ""
    return " and " in f" {' '.join(words[:head])} " or (last.endswith("s") and not last.endswith(
        ("ss", "us", "is", "'s", "’s")))


#: Words after a noun phrase's head ("the members *of* the family").
HEAD_ENDS = frozenset("of in on at for from with by about to into than who which that".split())
