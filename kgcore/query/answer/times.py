"""When something happened: the spans that answer a time question ("when", "in what century", "how soon").

A date or time entity that is no stretch of time ("for three days" says how long), a time word ("morning") or a
temporal clause ("when they were children") -- in the calendar unit the question asks in, if it names one ("in
what century": a year or a century, not "this time").
"""

from __future__ import annotations

import re

from kgcore.index.parse.srl.values import MONTHS
from kgcore.query.answer.adverbials import as_in_manner
from kgcore.query.answer.expected import Expected
from kgcore.query.answer.span_tokens import Span, entity_spans, is_new, local, subtree
from kgcore.query.answer.span_words import TEMPORAL_MARKS, TIME_ENTITIES, TIME_WORDS


def time_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    spans = [(a, b) for a, b in entity_spans(tokens, TIME_ENTITIES, asked) if not _duration(tokens[a:b])]
    for t in tokens:
        if t.lower_ in TIME_WORDS and t.dep_ != "mark" and is_new(t, asked):
            spans.append((local(tokens, t), local(tokens, t) + 1))
        elif t.lower_ in TEMPORAL_MARKS and (t.dep_ == "mark" or (t.dep_ == "advmod" and t.head.dep_ == "advcl")) \
                and not as_in_manner(t):
            spans.append(subtree(tokens, t.head))
    return [(a, b) for a, b in spans if in_grain(tokens[a:b], expected.noun)]


def _duration(run: list) -> bool:
    """Whether a date entity says how long, not when: a count of time units and nothing else ("two centuries",
    "three days") standing for a stretch of time -- after "for", "over", "during", "throughout" or "of" ("the better
    part of two centuries"), or as what a verb like "last" or "spend" takes.  "Within two days", "after three
    years", "three years later", "two days ago" and "the seventeenth century" say when.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("It lasted over two centuries; he came back after three years, within two days.")
    >>> [e.text for e in doc.ents if _duration(list(e))]
    ['two centuries']
    """
    *count, unit = run
    counted = bool(count) and unit.tag_ == "NNS" and unit.lemma_.lower() in STRETCH_UNITS and \
        all(t.like_num or t.lower_ in ("a", "an", "several", "many", "few", "some") for t in count)
    holder = unit.head
    return counted and (unit.dep_ == "pobj" and holder.lower_ in STRETCH_PREPS or
                        unit.dep_ in ("dobj", "npadvmod") and holder.lemma_.lower() in STRETCH_VERBS)


#: Prepositions and verbs whose count of time units is a stretch of time ("for three days", "lasted two years").
STRETCH_PREPS = frozenset("for over during throughout of".split())
STRETCH_VERBS = frozenset("last spend take span extend stay remain wait".split())
#: The time units a stretch is counted in.
STRETCH_UNITS = TIME_WORDS | {"century", "decade"}


#: The calendar units a "when" question can ask in ("in what century", "which year"), each with the words that
#: say it; a year's figure says every one of them but the month and the season.
GRAINS = {"century": frozenset(("century",)), "year": frozenset(),
          "decade": frozenset("decade twenties thirties forties fifties sixties seventies eighties nineties".split()),
          "month": MONTHS, "season": frozenset("spring summer autumn fall winter".split())}
#: A year's figure, also as a decade or a century ("1692", "1920s", "1600's"), or a decade's short form ("'20s").
YEAR_FIGURE = re.compile(r"^((1[0-9]|20)\d\d('?s)?|'?\d0'?s)$")


def in_grain(run: list, noun: str) -> bool:
    """Whether a span of time says when in the unit a question asks about (its asked noun): "in what century" is
    answered by "nearly a century ago" or "in 1692", not by "this time" or "the day"; a question asking in no
    calendar unit ("when", "what time") takes any span.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("In 1692, nearly a century ago, by this time, in the spring, in May.")
    >>> spans = {"1692": doc[1:2], "nearly a century ago": doc[3:7], "this time": doc[9:11], "the spring": doc[13:15]}
    >>> [text for text, span in spans.items() if in_grain(list(span), "century")]
    ['1692', 'nearly a century ago']
    >>> in_grain(list(doc[13:15]), "season"), in_grain(list(doc[17:18]), "month"), in_grain(list(doc[9:11]), "")
    (True, True, True)
    >>> [in_grain(list(load_spacy()(text)), "decade") for text in ("in the '20s", "in the twenties", "one day")]
    [True, True, False]
    """
    words = GRAINS.get(noun)
    if words is None:
        return True
    if noun not in ("month", "season") and any(YEAR_FIGURE.match(t.text) for t in run):
        return True
    return any(t.pos_ in ("NOUN", "PROPN") and (t.lower_.rstrip(".") in words or t.lemma_.lower() in words)
               for t in run)
