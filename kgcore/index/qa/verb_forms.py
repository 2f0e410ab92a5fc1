"""English verb forms for the questions generated from frames (:mod:`kgcore.index.qa.frames`): the auxiliary an
inverted question takes ("What *did* Peter lose?"), and the agreement of a verb whose subject is "Who" or "What"
("Who *has* something?", not "Who have something?").

>>> split_verb(Frame("lose", "lost")), singular_verb("have found")
(('did', 'lose'), 'has found')
"""

from __future__ import annotations

import re
from collections.abc import Collection

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
    >>> split_verb(Frame("not bear", "could not bear", negated=True)), split_verb(Frame("bear", "bore", negated=True))
    (('could', 'not bear'), ('did', 'not bear'))
    >>> split_verb(Frame("not bear", "cannot bear", negated=True)), split_verb(Frame("get", "'s getting"))
    (('can', 'not bear'), ('is', 'getting'))
    """
    words = spelled_verb(frame.text).split()
    first = words[0].lower()
    if first == "cannot" and len(words) > 1:  # "cannot bear": "What can X not bear?"
        return words[0][:3].lower(), " ".join(["not", *words[1:]])
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
    return aux, ("not " + lemma if frame.negated and not lemma.startswith("never ") else lemma)


#: Contracted auxiliaries, spelled out where they open a question ("What *is* Marilla getting home from?", not
#: "What 's Marilla ..."); "'s" and "'d" before a participle are "has" and "had".
CONTRACTED = {"'s": "is", "'re": "are", "'ve": "have", "'d": "would", "'ll": "will", "'m": "am", "ca": "can",
              "wo": "will", "’s": "is", "’re": "are", "’ve": "have", "’d": "would", "’ll": "will", "’m": "am"}


def spelled(aux: str, after: str = "") -> str:
    """A contracted auxiliary spelled out, given the word ``after`` it; any other as written.

    >>> [spelled(a, b) for a, b in (("'s", "getting"), ("'s", "been"), ("'d", "known"), ("'d", "make"), ("had", ""))]
    ['is', 'has', 'had', 'would', 'had']
    """
    full = CONTRACTED.get(aux.lower())
    if full is None:
        return aux
    participle = after.lower() == "been" or (after.lower().endswith(("ed", "en", "wn")) and full in ("is", "would"))
    return {"is": "has", "would": "had"}.get(full, full) if participle else full


def spelled_verb(verb: str) -> str:
    """``verb`` as written, its first word spelled out if contracted (:func:`spelled`).

    >>> spelled_verb("'s getting"), spelled_verb("'d known"), spelled_verb("was")
    ('is getting', 'had known', 'was')
    """
    first, _, rest = verb.partition(" ")
    return f"{spelled(first, rest.split(' ')[0])} {rest}".strip()


def inverted(aux: str, main: str, plural: bool) -> tuple[str, str]:
    """(auxiliary, the rest) from :func:`split_verb`'s, agreeing with the question's subject (``plural``: whether
    it takes a plural verb, as :func:`is_plural` or its lemma says; "I" and "you" too): a "be" given "do" takes
    "was" / "were" / "is" / "are" ("having been" at school: "Where *was* Anne?", not "Where did Anne be?"), the
    tense kept; a present "do" takes "does" after a singular subject ("What *does* Sir Walter think?", not "What do
    Sir Walter think?"); other verbs as given.

    >>> inverted("did", "not be", False), inverted("does", "be", True), inverted("did", "go", False)
    (('was', 'not'), ('are', ''), ('did', 'go'))
    >>> inverted("do", "think", False), inverted("do", "think", True)
    (('does', 'think'), ('do', 'think'))
    """
    if aux.lower() in ("do", "does", "did") and main.removeprefix("not ") == "be":
        form = ("were" if plural else "was") if aux.lower() == "did" else ("are" if plural else "is")
        return form, "not" if main.startswith("not ") else ""
    if aux.lower() in ("do", "don't") and not plural:
        return SINGULAR_FORMS[aux.lower()], main
    return aux, main


#: Plural verb forms and their singular, for a question whose subject is "Who" or "What".
SINGULAR_FORMS = {"are": "is", "were": "was", "have": "has", "do": "does", "aren't": "isn't",
                  "weren't": "wasn't", "haven't": "hasn't", "don't": "doesn't"}


def singular_complement(phrase: str) -> bool:
    """Whether a copula's complement is plainly singular, so "Who were ...?" may become "Who was ...?": none, or
    one opening with "a" / "an" / "one" and naming one thing ("What was a threat to review systems?", not "a new
    dataset and a benchmark"). Any other keeps the verb as
    written: a plural ("very good friends", "children", "the most beautiful women in the county") is not told
    apart from an adjective ("too dirty") without the parse.

    >>> [singular_complement(p) for p in ("", "a threat to review systems", "very good friends", "too dirty",
    ...                                   "a new dataset and a benchmark")]
    [True, True, False, False, False]
    """
    words = phrase.lower().split()
    return not words or (words[0] in ("a", "an", "one") and "and" not in words)


def singular_verb(verb: str) -> str:
    """``verb`` as written, agreeing with "Who" / "What" as a subject: a plural auxiliary made singular ("Who have
    something?" -> "Who has something?", "What were produced ...?" -> "What was produced ...?"). A verb written as
    its lemma is left alone: without the parse, "remain" (present) is not told from "rang" or "beat" (a past the
    tagger left unlemmatised), nor from a bare infinitive ("saw Peter cross the road").

    >>> [singular_verb(v) for v in ("were", "have found", "don't know", "remain", "found", "can go")]
    ['was', 'has found', "doesn't know", 'remain', 'found', 'can go']
    """
    first, _, rest = verb.partition(" ")
    return f"{SINGULAR_FORMS.get(first.lower(), first)} {rest}".strip()


def is_plural(phrase: str, surnames: Collection[str] = ()) -> bool:
    """Whether a subject ``phrase`` takes a plural verb: coordinated, or its head (the last word before a comma or
    a preposition) a plural: a common irregular one, or a regular one that is not a name ("Mr. Jones") unless
    "the" stands right before it (a family: "the Pyncheons").  A name in "-es" after "the" is a family only when
    its singular is one of the document's ``surnames`` ("the Musgroves" beside "Charles Musgrove"; "the Thames",
    "the Times" are one thing).

    >>> [is_plural(p) for p in ("different samples", "context relevance", "Anne and Diana", "the class",
    ...                          "the only members of the family", "Sir Walter, of Kellynch Hall's sons",
    ...                          "Mr. Jones", "the children", "the Pyncheons", "the United States", "5,000 reviews")]
    [True, False, True, False, True, False, False, True, True, False, True]
    >>> is_plural("the Thames"), is_plural("the Musgroves"), is_plural("the Musgroves", {"musgrove"})
    (False, False, True)
    """
    written = re.sub(r",(?!\d)", " , ", phrase).split()  # not the comma of "5,000"
    words = [w.lower() for w in written]
    head = next((n for n, w in enumerate(words) if n and (w == "," or w in HEAD_ENDS)), len(words))
    last = words[head - 1] if head else ""
    if "and" in words[:head] or last in IRREGULAR_PLURALS:
        return True
    regular = last.endswith("s") and not last.endswith(("ss", "us", "is", "'s", "’s"))
    family = head >= 2 and words[head - 2] == "the" and (not last.endswith("es") or last[:-1] in surnames)
    return regular and (not written[head - 1][:1].isupper() or family)  # "Mr. Jones" is a name


#: Common plurals without an -s.
IRREGULAR_PLURALS = frozenset("children people men women feet teeth mice geese police cattle".split())
#: Words after a noun phrase's head ("the members *of* the family").
HEAD_ENDS = frozenset("of in on at for from with by about to into than who which that".split())
