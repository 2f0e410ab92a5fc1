"""The occasion a question restricts its act to: "Who *originally* owned the house?", "Where do they meet *again*?",
"Whom did she *eventually* marry?".

A sentence that holds every other word of such a question may tell of another occasion of the same act: "Judge
Pyncheon, who owns the house" says who owns it now, not who owned it first; "He'd meet you at the theatre" is not
where they meet again.  So the verdict lets a sentence support the answer only when it says the occasion too, in
the question's word or one of the same group (:data:`OCCASIONS`: "originally" / "at first", "first", "initially";
"again" / "anew"; "eventually" / "at last", "finally", "in the end"); otherwise it is at best *unsure* and
the reason names the word to check.  A sentence may tell the occasion in other words ("the house Colonel Pyncheon
built"), so the answer is not refused.

>>> from kgcore.core.nlp import load_spacy
>>> nlp = load_spacy()
>>> missing_occasion(nlp("Who originally owned the house?"), nlp("Judge Pyncheon, who owns the house, is dead."))
'originally'
>>> missing_occasion(nlp("Who originally owned the house?"), nlp("At first the Maules owned the house."))
''
>>> missing_occasion(nlp("Who owned the house?"), nlp("Judge Pyncheon owns the house."))
''
"""

from __future__ import annotations

#: Words that restrict a question's act to one occasion, by group: a sentence saying any word of the question's
#: group says the same occasion.
OCCASIONS = (
    frozenset("originally first initially formerly original earliest beginning".split()),
    frozenset("again anew".split()),
    frozenset("eventually finally ultimately last end later afterwards afterward".split()),
)
#: The dependencies of an occasion word in the question: an adverb of its verb ("originally owned", "meet
#: again", "propose to first"), not a word of a name or compound ("time-to-first-token", "the first chapter").
ADVERB_DEPS = frozenset(("advmod", "npadvmod"))


def occasion_words(q_doc) -> list[str]:
    """The question's occasion words (:data:`OCCASIONS`) used as adverbs.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> occasion_words(nlp("When did Amory first meet Isabelle?")), occasion_words(nlp("What is the first step?"))
    (['first'], [])
    >>> occasion_words(nlp("Which retriever is more accurate?"))  # "more" says how accurate, not when
    []
    """
    return [t.lower_ for t in q_doc if t.dep_ in ADVERB_DEPS and t.head.pos_ in ("VERB", "AUX")
            and any(t.lower_ in g for g in OCCASIONS)]


def missing_occasion(q_doc, doc) -> str:
    """The first of the question's occasion words (:func:`occasion_words`) whose group the sentence ``doc`` says
    no word of, or "" when it says each (or the question has none)."""
    said = {t.lower_ for t in doc}
    for word in occasion_words(q_doc):
        group = next(g for g in OCCASIONS if word in g)
        if not group & said:
            return word
    return ""
