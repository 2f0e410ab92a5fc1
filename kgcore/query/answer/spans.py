"""Where a parsed sentence holds what a question asks for: spans of the expected kind
(:mod:`~kgcore.query.answer.expected`), each a run of tokens that does not repeat the question.

* ``number``: a quantity with its unit -- "288 BERT wordpieces", "15% of the tokens", "2.2-3.3×", "100-200 MB",
  "thirty years", "0.56" (a year alone, "2020", and reference markers such as "BIBREF2" are not quantities);
* ``time``: a date or time entity that is no stretch of time ("for three days"), a time word ("morning") or a
  temporal clause ("when they were children"), in the calendar unit the question asks in ("in what century": a
  year or a century, not "this time"): :mod:`~kgcore.query.answer.times`;
* ``person``: a person's name, a run of proper nouns that is no place, time or quantity ("Waldo County" is none),
  or a word for a person ("his grandmother");
* ``place``: a place entity, a locative phrase ("in the garden"; not "at six", "to the man", nor a compound
  preposition: "with regard to Bath", "in spite of the rain"), or a proper name for
  a place-noun question ("what university" -- "Princeton", where a place stands: not "Cranly pushed ...", nor
  "linking Stephen and Temple"); a question about a kind of place that has names
  (:data:`NAMED_PLACES`: "what university", "which city") takes only named places ("to Princeton", not "in front
  of him");
* ``name``: a name or term the sentence introduces: a run of proper nouns (on through a capitalised word or a
  hyphen: "Fast Decoding", "RAG-Sequence"), a technical token ("vLLM",
  "gpt-3.5-turbo-16k", "CoNLL-2003", "copy-on-write"), a noun phrase headed by the asked noun with new words
  ("standard copy-on-write techniques" for "what technique") or naming it through "of" ("the crime of
  witchcraft" for "what crime"; for a name word, "what title", only through "of": "her right name" names
  nobody), what follows "called", "named", "known as" or
  "such as", and a bracketed acronym; for "what colour", a colour word;
* ``reason``: a reason clause ("because ...", a purpose infinitive: "came to see the king", "in
  order to buy"; not a complement: "fails to hear her", nor a comparison or a comment: "as fast as ...", "as
  Anne knew"); ``manner``: a means ("by exploiting ...", "using ...", "through ...", but not the way someone
  moved: "pushed through the throng") or a definition ("we define X *as the average volatility ...*")
  (:mod:`~kgcore.query.answer.adverbials`);
* ``action`` and ``object``: a new verb, the question's verb with a new object (the answerers' former tests);
* ``relation``, ``occupation``: a word for how people are related ("his mother", "mentor", "married") or for a
  job ("bayonet instructor"): :mod:`~kgcore.query.answer.people`.

Other kinds (``definition``, ``yes/no``, None) have no span: nothing decides them but the words shared with the
question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from kgcore.core import wordnet
from kgcore.core.numbers import ORDINAL_FIGURE
from kgcore.query.answer.adverbials import manner_spans, reason_spans
from kgcore.query.answer.beliefs import BELIEF_WORDS, believed
from kgcore.query.answer.brackets import token_in_citation
from kgcore.query.answer.expected import COLOUR_NOUNS, NAME_NOUNS, Expected
from kgcore.query.answer.measured import TIME_UNITS, asks_duration, counted_noun, counts_another, says_duration
from kgcore.query.answer.people import occupation_spans, relation_spans
from kgcore.query.answer.places import a_place, place_spans
from kgcore.query.answer.span_tokens import (
    JOINERS,
    MARKER,
    Span,
    asks_plural,
    capitalised,
    entity_spans,
    is_new,
    listed,
    local,
    merged,
    of_apposition,
    paper_label,
    proper_runs,
    subtree,
    word_end,
    wordlike,
)
from kgcore.query.answer.span_words import (
    COLOURS,
    DESCRIBING_ADJECTIVES,
    GENERIC_ADJECTIVES,
    INTRODUCERS,
    NAMING_VERBS,
    NUMBER_ENTITIES,
    NUMBER_WORDS,
    ORDINALS,
    PERSON_NOUNS,
    QUANTITY_JOINERS,
    TERM_ROLES,
    TIME_ENTITIES,
)
from kgcore.query.answer.times import time_spans
from kgcore.query.answer.words import LIGHT_VERBS, STOPWORDS

_YEAR = re.compile(r"^(1[5-9]|20)\d\d$")
#: A figure: it starts with a digit (or a sign before one) and ends in digits or a short unit ("100M", "3.3×").
_FIGURE = re.compile(r"^[~≈±<>+-]?\.?\d[\d.,:/]*[-–]?[\d.,]*(%|×|x|[kKMBGT]|[kKMGT]?B|ms|s|k)?$")
_TECHNICAL = re.compile(r"[a-z][A-Z]|[A-Z]{2}|\d[A-Za-z]|[A-Za-z]\d|[A-Za-z]-[A-Za-z]")
#: Spans longer than this many tokens are cut (a clause, not a whole sentence, is marked).
MAX_SPAN = 12


def answer_spans(tokens: Sequence, expected: Expected, q_doc, beliefs: bool = False) -> list[Span]:
    """The spans (token offsets within ``tokens``, end exclusive) of ``tokens`` that hold an answer of
    ``expected``'s kind and are not made of the question's words nor inside a citation's brackets
    (:mod:`~kgcore.query.answer.brackets`), in order; [] for a kind without spans.  A span stated as someone's
    belief ("he was sure that Peter was *in the shed*") is left out unless the question asks about beliefs or
    ``beliefs`` keeps them (a ranking looking for sentences that may hold the answer)."""
    return found_spans(tokens, expected, q_doc, beliefs)[0]


def found_spans(tokens: Sequence, expected: Expected, q_doc, beliefs: bool = False) -> tuple[list[Span], set[Span]]:
    """:func:`answer_spans`, and of a name question's spans those no finder but the plain noun phrases' found
    (:func:`_new_terms`): terms the sentence only introduces ("ruinous little structure" for "what rumors"), not
    what it names as the asked thing (:func:`named_spans`); each finder runs once.

    >>> from kgcore.core.nlp import load_spacy
    >>> from kgcore.query.answer.expected import expected_answer
    >>> nlp = load_spacy()
    >>> q = nlp("What technique does GFS use for snapshots?")
    >>> doc = nlp("GFS uses joint consensus for snapshots.")
    >>> spans, plain = found_spans(doc, expected_answer(q), q)
    >>> [doc[a:b].text for a, b in spans], [doc[a:b].text for a, b in plain]
    (['joint consensus'], ['joint consensus'])
    """
    tokens = list(tokens)
    finder = FINDERS.get(expected.kind) if tokens and expected.kind is not None else None
    if finder is None:
        return [], set()
    asked = {t.lower_ for t in q_doc} | {t.lemma_.lower() for t in q_doc}
    facts = not beliefs and not asked & BELIEF_WORDS  # "what did he think?" asks for the belief itself

    def kept(spans: Iterable[Span]) -> list[Span]:
        return [(word_start(tokens, a), min(word_end(tokens, b), a + MAX_SPAN)) for a, b in spans
                if b > a and adds_content(tokens[a:b], asked) and not (facts and believed(tokens[a:b]))
                and not token_in_citation(tokens, a, b)]

    plural = asks_plural(q_doc)  # "Who were his sisters?": "Flopsy, Mopsy and Cotton-tail" is one span
    if finder is not name_spans or expected.noun in COLOUR_NOUNS:
        spans = merged(kept(finder(tokens, expected, asked, q_doc)))
        return (listed(tokens, spans) if plural else spans), set()
    named = kept(named_spans(tokens, expected, asked, q_doc))
    spans = merged(named + kept(_new_terms(tokens, asked)))
    spans = listed(tokens, spans) if plural else spans
    return spans, {(a, b) for a, b in spans if not any(x < b and a < y for x, y in named)}


def word_start(tokens: Sequence, a: int) -> int:
    """Where the written word holding token ``a`` starts, through hyphens and slashes joined without a space: a
    span does not begin inside a word ("text-embedding-*ada-002* model", where the question says "embedding", is
    "text-embedding-ada-002 model"; "mid-*September*" is "mid-September").  Its end stays: "Paris" of "Paris-based".

    >>> from spacy.lang.en import English
    >>> doc = English()("using the text-embedding-ada-002 model")
    >>> doc[word_start(list(doc), 6):].text
    'text-embedding-ada-002 model'
    """
    while a >= 2 and tokens[a - 1].text in JOINERS and not tokens[a - 1].whitespace_ \
            and not tokens[a - 2].whitespace_ and tokens[a - 2].text[-1:].isalnum():
        a -= 2
    return a


def adds_content(span: Sequence, asked: set[str]) -> bool:
    """Whether the span holds a word the question lacks (a figure, or a content word that is no light verb): a
    span made of the question's own words ("to save disk space" for "what is used to save disk space?")
    restates it and answers nothing.

    >>> from spacy.lang.en import English
    >>> doc = English()("to save disk space on the 2 disks")
    >>> adds_content(doc[:4], {"what", "save", "disk", "space"}), adds_content(doc[4:], {"disk", "disks"})
    (False, True)
    """
    return any(is_new(t, asked) and (any(c.isdigit() for c in t.text) or (
        t.is_alpha and t.lower_ not in STOPWORDS and t.lemma_.lower() not in LIGHT_VERBS)) for t in span)


def _is_number(token, dates: bool = False) -> bool:
    """A number word or figure; not a reference marker, an ordinal ("first", "2nd"), a name holding digits
    ("ada-002", "T5"), markup ("x_{i2})$") or a label's number ("Table 5"), and (unless ``dates``) not part of a
    date or time.

    >>> from spacy.lang.en import English
    >>> doc = English()("the first 288 of ada-002 x_{i2} 2.2-3.3× 1,006 2nd twelve Table 5")
    >>> [t.text for t in doc if _is_number(t)]
    ['288', '2.2', '3.3×', '1,006', 'twelve']
    >>> [t.text for t in English()("the double-spending problem, double the cost") if _is_number(t)]
    ['double']
    >>> from kgcore.core.nlp import load_spacy
    >>> [t.text for t in load_spacy()("In particular, we take the 2655 queries in 2019.") if _is_number(t)]
    ['2655']
    """
    text = token.text
    if MARKER.match(text) or (token.ent_type_ in TIME_ENTITIES and not dates and not _counts_plural(token)) \
            or _YEAR.match(text):
        return False
    if token.lower_ in ORDINALS or ORDINAL_FIGURE.match(text) or not wordlike(token) or _labelled(token):
        return False
    if any(c.isdigit() for c in text):
        return bool(_FIGURE.match(text))
    if token.lower_ in MULTIPLIERS and token.i + 1 < len(token.doc) and token.nbor(1).text == "-":
        return False  # "double-spending", "half-life": a word, not a quantity
    return token.like_num or token.lower_ in NUMBER_WORDS or (
        token.ent_type_ in NUMBER_ENTITIES and token.pos_ == "NUM")


def _counts_plural(token) -> bool:
    """A figure the tagger took for a date that counts the plural noun after it: "the *2655* queries" (not "3
    years", a time)."""
    after = token.nbor(1) if token.i + 1 < len(token.doc) else None
    return token.text.isdigit() and after is not None and after.tag_ == "NNS" and after.lemma_.lower() not in TIME_UNITS


#: Number words that begin compound words ("double-spending", "half-life", "quarter-final").
MULTIPLIERS = frozenset(("double", "triple", "half", "quarter"))


def _labelled(token) -> bool:
    """A number that labels a part of a paper ("Table 5", "Figure 3", "§ 4", "Section 2.1"): no quantity."""
    return token.i > 0 and paper_label(token.nbor(-1))


def number_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    """Quantities; a date counts only for a duration or an age ("how long", "how old").  For a question about a
    measure ("what chunk size"), a count of the question's own things ("20 related chunks") is no answer."""
    words = {t.lower_ for t in q_doc}
    dates, duration, counted = bool(words & {"long", "old", "age"}), asks_duration(q_doc), counted_noun(q_doc)
    spans, i = [], 0
    while i < len(tokens):
        if not (_is_number(tokens[i], dates) and is_new(tokens[i], asked)) or _bracketed(tokens, i):
            i += 1
            continue
        start = end = i
        while end + 1 < len(tokens) and (_is_number(tokens[end + 1], dates) or (
                tokens[end + 1].text in QUANTITY_JOINERS and end + 2 < len(tokens)
                and (_is_number(tokens[end + 2], dates) or tokens[end + 1].text in ("%", "×", "x")))):
            end += 1
        if end + 1 < len(tokens) and tokens[end + 1].text in ("%", "×", "x", "percent"):
            end += 1
        head = tokens[end].head  # the unit: "288 BERT wordpieces", "100-200 MB"
        if head.i > tokens[end].i and head.i - tokens[end].i <= 4 and head.pos_ in ("NOUN", "PROPN", "X", "SYM") \
                and head.i <= tokens[-1].i:
            end = local(tokens, head)
        elif end + 1 < len(tokens) and tokens[end + 1].pos_ in ("NOUN", "PROPN", "X", "SYM"):
            end += 1
        unit = tokens[end]
        if not (expected.noun and end > start and not is_new(unit, asked) and unit.lemma_.lower() != expected.noun) \
                and not (end > start and _counts_things(unit, words)) \
                and not (duration and not says_duration(tokens[start:end + 1])) \
                and not (end > start and counts_another(tokens, unit, counted)):
            spans.append((start, end + 1))
        i = end + 1
    return spans


#: "How old / far / tall ..." asks for a measure along one dimension, which a count of things does not give.
DIMENSIONS = frozenset("old far tall high deep wide heavy".split())


def _counts_things(unit, question_words: set[str]) -> bool:
    """Whether a number's ``unit`` counts things where the question asks a dimension (:data:`DIMENSIONS`): "three
    plants" says no age, "ten miles" and "three years" do; a unit WordNet lacks ("ms") or no WordNet keeps it.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("He upset three plants and walked ten miles at five years old.")
    >>> [_counts_things(doc[k], {"how", "old"}) for k in (3, 7, 10)], _counts_things(doc[3], {"how", "many"})
    ([True, False, False], False)
    """
    if not question_words & DIMENSIONS or unit.pos_ != "NOUN" or not wordnet.supersenses(unit.lemma_.lower()):
        return False
    return wordnet.is_a(unit.lemma_.lower(), "measure") is False


def _bracketed(tokens: list, k: int) -> bool:
    """A reference number: "[12]", "[3, 4]"."""
    return 0 < k < len(tokens) - 1 and tokens[k - 1].text in ("[", ",") and tokens[k + 1].text in ("]", ",") and any(
        t.text == "[" for t in tokens[max(0, k - 6):k]) and any(t.text == "]" for t in tokens[k + 1:k + 7])


def person_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    """A person's name, a run of proper nouns written as a name that is no place ("in Waldo County" names no one,
    nor a lower-case "trellis" the tagger calls a proper noun, unless the whole sentence is lower-cased) nor a
    language ("He spoke little *English*") or a word for a person (the tagger's proper noun "rector" too)."""
    lower = not any(c.isupper() for t in tokens for c in t.text)  # "word2vec was proposed by mikolov et al."
    runs = [(a, b) for a, b in proper_runs(tokens, asked) if not a_place(tokens[a:b])
            and (lower or capitalised(tokens[a:b])) and not all(t.ent_type_ == "LANGUAGE" for t in tokens[a:b])]
    spans = entity_spans(tokens, frozenset(("PERSON",)), asked) + runs
    spans += [(local(tokens, t), local(tokens, t) + 1) for t in tokens
              if t.pos_ in ("NOUN", "PROPN") and t.lemma_.lower() in PERSON_NOUNS and is_new(t, asked)]
    return spans


def name_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    """The spans a name question takes: those the sentence names (:func:`named_spans`) and the plain noun phrases
    it introduces (:func:`_new_terms`), but a colour for "what colour"."""
    if expected.noun in COLOUR_NOUNS:
        return named_spans(tokens, expected, asked, q_doc)
    return named_spans(tokens, expected, asked, q_doc) + _new_terms(tokens, asked)


def named_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    """What a sentence names as the asked thing: a colour for "what colour", else runs of proper nouns, technical
    tokens, noun phrases headed by the asked noun or naming it through "of", what follows "called" or "such as", a
    bracketed acronym, a kind of the asked noun in WordNet."""
    if expected.noun in COLOUR_NOUNS:
        return [(local(tokens, t), local(tokens, t) + 1) for t in tokens if t.lower_ in COLOURS and is_new(t, asked)]
    spans = proper_runs(tokens, asked)
    spans += [(local(tokens, t), local(tokens, t) + 1) for t in tokens
              if _TECHNICAL.search(t.text) and wordlike(t) and is_new(t, asked) and t.text.isascii()]
    noun = expected.noun.lower()
    headed = noun not in NAME_NOUNS  # "her right name" is no name; "standard ... techniques" a technique
    for t in tokens:
        if t.pos_ in ("NOUN", "PROPN") and noun and t.lemma_.lower() in (noun, noun.rstrip("s")):
            modifiers = [c for c in t.children if c.dep_ in ("compound", "amod", "nmod") and is_new(c, asked)]
            if headed and any(c.pos_ != "ADJ" or c.lower_ not in DESCRIBING_ADJECTIVES for c in modifiers):
                # "systematic patterns" names no pattern; "Common Lisp", "recurrent neural networks" name kinds
                spans.append((local(tokens, min(modifiers, key=lambda c: c.i)), local(tokens, t) + 1))
            spans += _of_what(tokens, t, asked)  # "the crime of witchcraft", "the title of baronet"
        if t.lower_ in INTRODUCERS and (t.lower_ != "as" or t.head.lemma_.lower() in NAMING_VERBS or (
                t.i > 0 and t.nbor(-1).lower_ in ("known", "such"))):
            following = [c for c in t.children if c.dep_ in ("oprd", "pobj", "attr", "dobj")]
            spans += [subtree(tokens, c) for c in following if is_new(c, asked)]
    return spans + _bracketed_acronyms(tokens, asked) + _kinds_of(tokens, noun, asked)


def _kinds_of(tokens: list, noun: str, asked: set[str]) -> list[Span]:
    """Common nouns that name a kind of the asked noun, by WordNet (:func:`kgcore.core.wordnet.is_a`): "hanging"
    and "execution" for "what punishment", "concussion" for "what injury"; none for a noun too general to say a
    kind (:func:`kgcore.core.wordnet.specific`: "what event", "what part"), nor a synonym of it.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("She suffered a concussion when she fell from the Cobb.")
    >>> [doc[a:b].text for a, b in _kinds_of(list(doc), "injury", {"suffer"})]
    ['concussion']
    """
    if not noun or not wordnet.specific(noun):
        return []
    return [(local(tokens, t), local(tokens, t) + 1) for t in tokens
            if t.pos_ == "NOUN" and is_new(t, asked) and wordnet.is_a(t.lemma_.lower(), noun)
            and not wordnet.same_synset(t.lemma_.lower(), noun)]  # "penalty" restates "what punishment"


def _of_what(tokens: list, noun, asked: set[str]) -> list[Span]:
    """What names the asked noun through "of" (:func:`~kgcore.query.answer.span_tokens.of_apposition`): "the crime
    *of witchcraft*" for "what crime".

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("He was executed for the crime of witchcraft.")
    >>> [doc[a:b].text for a, b in _of_what(list(doc), doc[5], {"what", "crime"})]
    ['witchcraft']
    """
    return [subtree(tokens, o) for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"
            for o in c.children if of_apposition(o) and is_new(o, asked)]


def _new_terms(tokens: list, asked: set[str]) -> list[Span]:
    """Multi-word noun phrases made of words the question does not use, standing as a subject, object or
    complement: the terms a text introduces ("joint consensus", "Lazy space allocation")."""
    spans = []
    for t in tokens:
        if t.pos_ != "NOUN" or t.dep_ not in TERM_ROLES or not is_new(t, asked):
            continue
        modifiers = [c for c in t.children if c.dep_ in ("compound", "amod") and c.i < t.i and is_new(c, asked)]
        if any(c.lower_ not in GENERIC_ADJECTIVES for c in modifiers):
            spans.append((local(tokens, min(modifiers, key=lambda c: c.i)), local(tokens, t) + 1))
    return spans


def action_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    return [(local(tokens, t), local(tokens, t) + 1) for t in tokens
            if t.pos_ == "VERB" and t.lemma_.lower() not in asked | LIGHT_VERBS]


def object_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    verbs = [t for t in q_doc if t.pos_ == "VERB" and t.lemma_.lower() not in LIGHT_VERBS]
    if not verbs:
        return []
    lemma = verbs[0].lemma_.lower()
    return [subtree(tokens, c) for t in tokens if t.lemma_.lower() == lemma for c in t.children
            if c.dep_ in ("dobj", "attr", "dative", "oprd") and c.lemma_.lower() not in asked]


FINDERS = {"number": number_spans, "time": time_spans, "person": person_spans, "place": place_spans,
           "name": name_spans, "reason": reason_spans, "manner": manner_spans, "action": action_spans,
           "object": object_spans, "relation": relation_spans, "occupation": occupation_spans}


def _bracketed_acronyms(tokens: list, asked: set[str]) -> list[Span]:
    return [(k, k + 1) for k in range(1, len(tokens) - 1)
            if tokens[k - 1].text == "(" and tokens[k + 1].text == ")" and tokens[k].text.isupper()
            and len(tokens[k].text) >= 2 and is_new(tokens[k], asked)]
