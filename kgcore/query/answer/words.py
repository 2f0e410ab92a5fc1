"""Content words: the lexical unit of citation support, diagnosis and answer-token recall.

>>> sorted(content_words("Peter's shoes were lost among the cabbages!"))
['cabbage', 'lost', 'peter', 'shoe']
"""

from __future__ import annotations

import re

from kgcore.core.numbers import as_figure
from kgcore.core.stemming import stemmer
from kgcore.index.qa.base import WH_WORDS
from kgcore.query.answer.idioms import emptied

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing done don didn doesn down during each either else ever few for
    from further get got had has have having he her here hers herself him himself his how however i if in into is
    isn it its itself just ll me might more most much must my myself neither no nor not now of off on once only or
    other our ours ourselves out over own re said same says she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up upon us ve very was wasn we
    were what when where which while who whom whose why will with won would wouldn yes yet you your yours
    yourself yourselves among amongst around behind beside between beyond inside near onto outside round toward
    towards underneath within without across along according answer content context question text""".split()
)

LIGHT_VERBS = frozenset("be have do get go come make".split())
#: Words that frame a question ("what happened", "what did he do") rather than say what it is about.
FRAME_WORDS = frozenset("happen do".split())
_WORD = re.compile(r"[a-z0-9]+")
_POSSESSIVE = re.compile(r"['’]s\b")


def content_words(text: str) -> set[str]:
    """Lower-cased words without stopwords, possessives and plural ``s`` (no lemmatiser needed).

    >>> sorted(content_words("Peter's shoes were lost among the cabbages!"))
    ['cabbage', 'lost', 'peter', 'shoe']
    """
    words = _WORD.findall(_POSSESSIVE.sub("", text.lower()))
    return {_singular(w) for w in words if len(w) > 1 and w not in STOPWORDS}


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


# -- spaCy lemmas (the extractive answerer and the support check) ----------------------
#: Modifiers of a noun that weigh half as much as the noun they modify (:func:`question_term_weights`).
NOUN_MODIFIERS = frozenset(("amod", "poss"))


def question_term_weights(q_doc) -> dict[str, float]:
    """Content lemmas of the question with their weights.

    Verbs weigh 2 (they say what happened), other words 1; a possessor or adjective modifying a noun weighs half
    as much as that noun, and so on down ("the young rabbits' father" is about the father: *father* 1, the
    possessor *rabbits* 0.5, its adjective *young* 0.25).
    """
    terms: dict[str, float] = {}
    for t in q_doc:
        lemma = t.lemma_.lower()
        if (t.is_punct or t.is_stop or lemma in WH_WORDS | FRAME_WORDS or _takes_place(t) or emptied(t)
                or t.pos_ in ("AUX", "DET", "PRON", "ADP", "PART")):
            continue
        weight = 2.0 if t.pos_ == "VERB" and lemma not in LIGHT_VERBS else _modifier_share(t)
        terms[lemma] = max(terms.get(lemma, 0.0), weight)
    return terms


def _takes_place(token) -> bool:
    """Whether the token is part of "take place", which says no more than "happen" (a :data:`FRAME_WORDS` word):
    "Where does the story take place?" is not about taking, nor about a place the text names.

    A "place" with words of its own is one: "took *first* place", "took *the* place of", "*Anne's* place".

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> sorted(question_term_weights(nlp("What war was taking place in Europe?")))
    ['europe', 'war']
    >>> sorted(question_term_weights(nlp("Who took first place in the contest?")))
    ['contest', 'place', 'take']
    """
    if token.lower_ == "place":
        return token.head.lemma_.lower() == "take" and token.head.i < token.i and _bare(token)
    return token.lemma_.lower() == "take" and any(c.lower_ == "place" and c.i > token.i and _bare(c)
                                                  for c in token.children)


def _bare(token) -> bool:
    """Whether the token has no words of its own before it (no determiner, modifier or possessor)."""
    return not any(c.i < token.i for c in token.children)


def _modifier_share(token) -> float:
    """``0.5`` per step from ``token`` up to the noun it modifies (through :data:`NOUN_MODIFIERS` arcs)."""
    share, node = 1.0, token
    while node.dep_ in NOUN_MODIFIERS and node.head.i != node.i and node.head.pos_ in ("NOUN", "PROPN"):
        share, node = share / 2, node.head
    return share


def lemmas(doc) -> set[str]:
    """Lemmas and lower-cased forms of a parsed text's words, but for words an idiom empties
    (:func:`~kgcore.query.answer.idioms.emptied`: "cannot *help* thinking").

    >>> from kgcore.core.nlp import load_spacy
    >>> sorted(lemmas(load_spacy()("I cannot help it.")))
    ['can', 'i', 'it', 'not']
    """
    kept = [t for t in doc if not t.is_punct and not emptied(t)]
    return {t.lemma_.lower() for t in kept} | {t.lower_ for t in kept}


def stem_tokens(doc) -> dict[str, list]:
    """Each stem of a parsed text's words -- of a word's lemma and of its written form -- with the tokens holding
    it, in order: where a question's word, matched by stem (:func:`stem`), stands in a sentence.  A word an idiom
    empties of its sense holds none (:func:`~kgcore.query.answer.idioms.emptied`: "cannot *help* thinking").

    >>> from kgcore.core.nlp import load_spacy
    >>> found = stem_tokens(load_spacy()("She ran to the halls, running."))
    >>> [t.text for t in found[stem("run")]], [t.text for t in found[stem("hall")]]
    (['ran', 'running'], ['halls'])
    """
    out: dict[str, list] = {}
    for t in doc:
        if not t.is_punct and not emptied(t):
            for key in dict.fromkeys((stem(t.lemma_.lower()), stem(t.lower_))):
                out.setdefault(key, []).append(t)
    return out


def weighted_overlap(terms: dict[str, float], found: set[str]) -> float:
    """Weighted share of the question terms present in ``lemmas`` (0 when the question has none).

    >>> weighted_overlap({"lose": 2.0, "peter": 1.0, "shoe": 1.0}, {"lose", "shoe", "cabbage"})
    0.75
    """
    total = sum(terms.values())
    return sum(w for term, w in terms.items() if term in found) / total if total else 0.0


def stem(word: str) -> str:
    """The word's Porter stem (PyStemmer, as BM25 stems; one stemmer per thread: a stemmer object is not
    thread-safe), so that "dynamicity" meets "dynamic" and "implementation" meets "implemented"; a number or
    ordinal word is its figure (:func:`~kgcore.core.numbers.as_figure`), so that a book's "thirty years" meets a
    reader's "30 years", and a figure's ordinal ends in "th" ("3rd", "third": "3th").

    >>> stem("dynamicity") == stem("dynamic"), stem("implementation") == stem("implemented")
    (True, True)
    >>> stem("thirty") == stem("30"), stem("seventeenth") == stem("17th"), stem("third") == stem("3rd")
    (True, True, True)

    "one" stays a word: it is a pronoun as often ("the one with sixteen heads", "no one").

    >>> stem("one") == stem("1")
    False
    """
    if word == "one":
        return word
    return as_figure(word) or stemmer().stemWord(word)


def stem_terms(terms: dict[str, float]) -> dict[str, float]:
    """Question term weights keyed by stem (the larger weight when two terms share one)."""
    out: dict[str, float] = {}
    for term, weight in terms.items():
        key = stem(term)
        out[key] = max(out.get(key, 0.0), weight)
    return out
