"""Runs of tokens the answer spans are made of (:mod:`~kgcore.query.answer.spans`): a token's place in the
sentence, whether the question lacks it, runs of one entity type or of proper nouns, a head's subtree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kgcore.core import wordnet
from kgcore.index.parse.srl.values import MONTHS
from kgcore.query.answer.expected import NAME_NOUNS
from kgcore.query.answer.span_words import GENERIC_ADJECTIVES, PAPER_LABELS, TIME_ENTITIES

Span = tuple[int, int]
#: A reference marker or placeholder of a converted paper ("BIBREF2", "INLINEFORM0"): no word.
MARKER = re.compile(r"^(BIBREF|TABREF|FIGREF|SECREF|EQREF|INLINEFORM|DISPLAYFORM)\d*$")


def local(tokens: list, token) -> int:
    """The token's offset within ``tokens`` (a sentence's tokens)."""
    return token.i - tokens[0].i


def is_new(token, asked: set[str]) -> bool:
    """Whether the question lacks the token (as written or as its lemma)."""
    return token.lower_ not in asked and token.lemma_.lower() not in asked


def entity_spans(tokens: list, labels: frozenset[str], asked: set[str]) -> list[Span]:
    """Runs of entities of one of ``labels`` holding a word the question lacks."""
    spans, start = [], None
    for k, t in enumerate([*tokens, None]):
        inside = t is not None and t.ent_type_ in labels and (start is not None or t.ent_iob_ == "B"
                                                               or t.ent_iob_ == "I")
        if inside and start is None:
            start = k
        elif not inside and start is not None:
            if any(is_new(x, asked) for x in tokens[start:k] if not x.is_punct):
                spans.append((start, k))
            start = None
    return spans


def proper_runs(tokens: list, asked: set[str]) -> list[Span]:
    """Runs of proper nouns with a word not in the question (a title such as "Mr." joins the run; a generic
    adjective before a name, "Old" of "Old Matthew Maule", is no new word, but "the Major" is a name); not a lone
    letter or symbol ("Y", "§") nor a label of the paper's parts ("Figure", "Table 2").

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("Old Matthew Maule met the Major.")
    >>> [doc[a:b].text for a, b in proper_runs(list(doc), {"matthew", "maule"})]
    ['Major']

    A capitalised word after a proper noun, and a hyphen inside a word, carry the name on: "the *Fast Decoding*
    approach for *RAG-Sequence* models".

    >>> doc = load_spacy()("Use the Fast Decoding approach for RAG-Sequence models, a Paris-based team's.")
    >>> [doc[a:b].text for a, b in proper_runs(list(doc), {"decoding"})]
    ['Fast Decoding', 'RAG-Sequence', 'Paris']
    """
    spans, start = [], None
    for k, t in enumerate([*tokens, None]):
        if t is not None and (t.pos_ == "PROPN" and wordlike(t) or start is not None and _continues(tokens, k)):
            start = k if start is None else start
        elif start is not None:
            k -= tokens[k - 1].text == "-"  # a hyphen ends no name
            run = tokens[start:k]
            if any(is_new(x, asked) and (x.lower_ not in GENERIC_ADJECTIVES or x is run[-1]) for x in run) \
                    and names_something(run):
                spans.append((start, k))
            start = None
    return spans


def _continues(tokens: list, k: int) -> bool:
    """Whether ``tokens[k]`` carries on the name before it: a capitalised word (a tagger often calls the second word
    of "Fast Decoding" a verb), a hyphen joined to both neighbours, or the word after such a hyphen."""
    t, before = tokens[k], tokens[k - 1]
    if t.text == "-":
        return not before.whitespace_ and not t.whitespace_ and k + 1 < len(tokens)
    if before.text == "-" and not before.whitespace_:  # "RAG-Sequence", "GPT-4"; not "Paris-based"
        return wordlike(t) and (t.text[:1].isupper() or any(c.isdigit() for c in t.text))
    return t.is_title and t.pos_ in ("NOUN", "VERB", "ADJ") and wordlike(t)


def names_something(run: list) -> bool:
    """Whether a run of proper nouns can be a name: some word of two letters or more that is not a label of a
    paper's parts, and not only month names the tagger reads as a date ("during the *February* of which
    Hawthorne had completed ..." names no person and no event; "May Smith" names one).

    >>> from spacy.lang.en import English
    >>> doc = English()("Y § Figure 3 Raft")
    >>> [names_something(doc[a:b]) for a, b in [(0, 1), (1, 2), (2, 4), (4, 5)]]
    [False, False, False, True]
    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("May Smith came in May.")
    >>> names_something(doc[0:2]), names_something(doc[4:5])
    (True, False)
    """
    if all(t.lower_.rstrip(".") in MONTHS and t.ent_type_ in TIME_ENTITIES for t in run):
        return False
    return any(sum(c.isalpha() for c in t.text) >= 2 and t.lower_.rstrip(".") not in PAPER_LABELS for t in run)


def capitalised(run: list) -> bool:
    """Whether a run is written as a name is: with a capital or a figure.  A lower-case word the tagger calls a
    proper noun names no one ("under the honeysuckle *trellis*"); "BERT", "fastText" and "word2vec" are names.

    >>> from spacy.lang.en import English
    >>> [capitalised([t]) for t in English()("trellis BERT fastText word2vec")]
    [False, True, True, True]
    """
    return any(c.isupper() or c.isdigit() for t in run for c in t.text)


def wordlike(token) -> bool:
    """Not a reference marker ("BIBREF2") nor markup ("\\cite{x}")."""
    return not MARKER.match(token.text) and not any(c in token.text for c in "\\{}$")


def paper_label(token, plural: bool = False) -> bool:
    """Whether ``token`` names a part of a paper that a number labels ("Table", "Fig.", "§"; with ``plural`` also
    "Sections").

    >>> import spacy
    >>> doc = spacy.blank("en")("Table Fig § Sections cabbage")
    >>> [paper_label(t) for t in doc], paper_label(doc[3], plural=True)
    ([True, True, True, False, False], True)
    """
    word = token.lower_.rstrip(".~")
    return word in PAPER_LABELS | {"§"} or (plural and word.removesuffix("s") in PAPER_LABELS)


def subtree(tokens: list, head) -> Span:
    """The head's subtree clipped to ``tokens`` (local offsets), without a bracketed reference to a part of the
    paper that closes it: "called *Google* (Section 5)".

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("We built a search engine called Google (Section 5).")
    >>> a, b = subtree(list(doc), doc[6]); doc[a:b].text
    'Google'
    """
    first, last = tokens[0].i, tokens[-1].i
    start, end = max(head.left_edge.i, first), min(head.right_edge.i, last)
    if tokens[end - first].text == ")":
        opened = next((k for k in range(end, start, -1) if tokens[k - first].text == "("), None)
        if opened is not None and opened < end and paper_label(tokens[opened + 1 - first], plural=True):
            end = opened - 1  # "(Section 5)", "(Sections 5 and 6)"
    return (start - first, end - first + 1)


def of_apposition(token) -> bool:
    """Whether ``token`` is a bare noun after "of" that names the noun before it: "the crime *of witchcraft*",
    not "the crime of *his father*" nor "the disease of *the lungs*" (a determiner or possessive: whose, not what).

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> [t.text for t in nlp("The crime of witchcraft and the crime of his father.") if of_apposition(t)]
    ['witchcraft']
    """
    return token.dep_ == "pobj" and token.pos_ in ("NOUN", "PROPN") and token.head.lower_ == "of" \
        and token.head.head.pos_ in ("NOUN", "PROPN") and not any(c.dep_ in ("det", "poss") for c in token.children)


def noun_senses(token) -> tuple[str, ...]:
    """The lexicographer files of a common noun's WordNet senses, commonest first (:func:`kgcore.core.wordnet.
    supersenses`); () for other words, for a noun WordNet lacks, and without WordNet."""
    return (wordnet.supersenses(token.lemma_.lower()) or ()) if token.pos_ == "NOUN" else ()


def asks_for_no_one(noun: str) -> bool:
    """Whether a name question's asked noun is a thing no person or animal is, by its commonest WordNet sense
    ("what event", "which technique"), so that someone's name does not answer it; not a name word ("what are the
    twins' names?"), a kind of person or animal ("which dog"), nor a noun WordNet lacks.

    >>> [asks_for_no_one(n) for n in ("event", "technique", "names", "dog", "student", "")]
    [True, True, False, False, False, False]
    """
    noun = noun.lower()
    if not noun or noun in NAME_NOUNS:
        return False
    senses = wordnet.supersenses(noun) or wordnet.supersenses(noun.removesuffix("s")) or ()
    return bool(senses) and senses[0] not in ("person", "animal")


#: What joins the parts of one written word without a space ("text-embedding-ada-002", "and/or").
JOINERS = frozenset("- – /".split())


def word_end(tokens: list, b: int) -> int:
    """Where the written word holding token ``b - 1`` ends, through hyphens and slashes joined without a space to
    a noun, name or figure: a span does not stop inside a name ("Cotton" of "Cotton-tail", "T5" of "T5-11B"); a
    participle or adjective after the hyphen says something else ("Paris" of "Paris-based" stays).

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = list(load_spacy()("Flopsy and Cotton-tail ran to a Paris-based firm using T5-11B now."))
    >>> [" ".join(t.text for t in doc[a:word_end(doc, b)]) for a, b in ((2, 3), (8, 9), (13, 14))]
    ['Cotton - tail', 'Paris', 'T5 - 11B']
    """
    while 0 < b < len(tokens) - 1 and tokens[b].text in JOINERS and not tokens[b - 1].whitespace_ \
            and not tokens[b].whitespace_ and tokens[b + 1].pos_ in ("NOUN", "PROPN", "NUM"):
        b += 2
    return b


#: What stands between the members of a list ("Flopsy, Mopsy, and Cotton-tail").
LIST_JOINERS = frozenset((",", "and", "or", "&"))


def asks_plural(q_doc) -> bool:
    """Whether the question asks for several things: "Who *were* Peter's sisters?", "What *are* the names of ...?",
    "Which *techniques* ...?" -- its wh-word followed by "are"/"were" or by a plural noun.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> [asks_plural(nlp(q)) for q in ("Who were Peter's sisters?", "Which techniques do they use?", "Who is he?")]
    [True, True, False]
    """
    tokens = list(q_doc)
    at = next((k for k, t in enumerate(tokens) if t.tag_ in ("WP", "WDT")), None)
    if at is None or at + 1 >= len(tokens):
        return False
    after = tokens[at + 1]
    return after.lower_ in ("are", "were") or after.tag_ == "NNS"


def listed(tokens: list, spans: list[Span]) -> list[Span]:
    """Spans in order, those joined only by commas and "and"/"or" (a list: "Flopsy, Mopsy, and Cotton-tail") made
    one.

    >>> from spacy.lang.en import English
    >>> doc = list(English()("They were Flopsy, Mopsy, and Cotton, good bunnies."))
    >>> listed(doc, [(2, 3), (4, 5), (7, 8)]), listed(doc, [(2, 3), (9, 10)])
    ([(2, 8)], [(2, 3), (9, 10)])
    """
    out: list[Span] = []
    for a, b in sorted(spans):
        between = tokens[out[-1][1]:a] if out else []
        if out and 0 < len(between) <= 2 and all(t.lower_ in LIST_JOINERS for t in between):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def merged(spans: Iterable[Span]) -> list[Span]:
    """Overlapping spans joined, in order.

    >>> merged([(4, 6), (0, 2), (1, 3), (5, 9)])
    [(0, 3), (4, 9)]
    """
    out: list[list[int]] = []
    for a, b in sorted(spans):
        if out and a < out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]
