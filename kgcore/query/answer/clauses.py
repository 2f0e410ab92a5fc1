"""Clauses of a context sentence: what the offline answerers quote instead of a whole sentence.

A clause is a verb's dependency subtree (cut before a coordinated verb) or a conjunct split on ``;`` /
``, and`` / ``, but`` / `` -- ``.  :func:`best_clause` keeps the clause with all of the sentence's evidence
for a question, if asked only among the clauses that hold a given answer.
"""

from __future__ import annotations

import re

from kgcore.query.answer.typed import has_answer_type
from kgcore.query.answer.words import lemmas, weighted_overlap

#: The weight of holding the expected answer against the question-word overlap when clauses are compared.
W_TYPE = 0.25
#: A clause shorter than this many words is never chosen over its sentence.
MIN_CLAUSE_WORDS = 3
_CONJUNCT_SPLIT = re.compile(r";|,\s+(?:and|but)\s+|\s+--\s+")
_LEADING_JOINERS = frozenset("and but so or then".split())


def clause_spans(doc) -> list[tuple[int, int]]:
    """Character spans of the clauses of a parsed sentence (the whole sentence first).  A clause says who does
    what: one without a subject of its own ("planned them out until ...", "creating a perpetual gloom") is no
    clause to quote, since the sentence's subject would be cut off.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("They talked about the improvements and planned them out until dark.")
    >>> [doc.text[a:b] for a, b in clause_spans(doc)]
    ['They talked about the improvements and planned them out until dark.', 'They talked about the improvements']
    """
    spans = [(0, len(doc.text))]
    spans += _conjunct_spans(doc)
    for verb in doc:
        if verb.pos_ in ("VERB", "AUX") and verb.dep_ in ("ROOT", "conj", "ccomp", "advcl") and not _subordinate(verb):
            spans.append(_verb_clause(doc, verb))
    whole = spans[0]
    return list(dict.fromkeys(s for s in spans if s[1] > s[0] and (s == whole or _has_subject(doc, s))))


def _subordinate(verb) -> bool:
    """Whether ``verb`` heads a clause a conjunction subordinates ("*If* the majority were based on one vote", "*When*
    the disbanding came"): no statement without its main clause, so never quoted alone.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("If the majority voted, it could be subverted.")
    >>> [t.text for t in doc if _subordinate(t)]
    ['voted']
    """
    return verb.dep_ == "advcl" and any(c.dep_ == "mark" for c in verb.children)


#: The dependencies of a clause's subject.
SUBJECTS = frozenset(("nsubj", "nsubjpass", "expl", "csubj", "csubjpass"))


def _has_subject(doc, span: tuple[int, int]) -> bool:
    """Whether the clause in the character ``span`` has a subject of its own: its head (a token whose head lies
    outside it) has one inside it, and not a relative pronoun ("who were laughing" is no clause to quote).

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("Cranly pushed on, linking Stephen and Temple, who were laughing.")
    >>> _has_subject(doc, (0, len(doc.text))), _has_subject(doc, (18, len(doc.text)))
    (True, False)
    """
    start, end = span
    inside = [t for t in doc if start <= t.idx < end]
    heads = [t for t in inside if not start <= t.head.idx < end or t.head.i == t.i]
    return any(c.dep_ in SUBJECTS and start <= c.idx < end and c.tag_ not in ("WP", "WDT")
               for h in heads for c in h.children)


def _conjunct_spans(doc) -> list[tuple[int, int]]:
    """Pieces split on ``;``, ``, and``, ``, but``; a verbless piece joins the one before it."""
    cuts = [0] + [p for m in _CONJUNCT_SPLIT.finditer(doc.text) for p in (m.start(), m.end())] + [len(doc.text)]
    pieces: list[list[int]] = []
    for start, end in zip(cuts[::2], cuts[1::2]):
        span = doc.char_span(start, end, alignment_mode="expand")
        has_verb = span is not None and any(t.pos_ in ("VERB", "AUX") for t in span)
        if pieces and not has_verb:
            pieces[-1][1] = end
        else:
            pieces.append([start, end])
    return [(a, b) for a, b in pieces] if len(pieces) > 1 else []


def _verb_clause(doc, verb) -> tuple[int, int]:
    """The verb's subtree, cut before its first coordinated verb (``, and he ran``)."""
    end = verb.right_edge.i
    for child in verb.children:
        if child.i > verb.i and child.dep_ == "conj" and child.pos_ in ("VERB", "AUX"):
            end = min(end, child.left_edge.i - 1)
    tokens = doc[verb.left_edge.i: end + 1]
    while len(tokens) and (tokens[-1].is_punct or tokens[-1].dep_ == "cc"):
        tokens = tokens[:-1]
    return (tokens.start_char, tokens.end_char) if len(tokens) else (0, 0)


def best_clause(doc, terms: dict[str, float], qtype: str | None, q_doc, holding: str = "") -> str:
    """The shortest clause of ``doc`` with the best overlap and answer-type evidence; with ``holding``, among the
    clauses that contain that text as written ("" when none does: an answer read from the coref-resolved text).

    >>> import spacy
    >>> doc = spacy.blank("en")("He lost one shoe among the potatoes.")  # no parser: the sentence is the only clause
    >>> best_clause(doc, {}, None, doc, holding="The potatoes"), best_clause(doc, {}, None, doc, holding="a hat")
    ('He lost one shoe among the potatoes.', '')
    """
    wanted = holding.strip().lower()
    at = doc.text.lower().find(wanted) if wanted else 0
    if at < 0:
        return ""
    options = []
    for start, end in clause_spans(doc):
        span = doc.char_span(start, end, alignment_mode="expand")
        words = sum(1 for t in span if not t.is_punct)
        holds = not wanted or start <= at <= end - len(wanted)
        if (start == 0 and end == len(doc.text) or words >= MIN_CLAUSE_WORDS) and holds:
            typed = has_answer_type(list(span), qtype, q_doc)
            options.append((weighted_overlap(terms, lemmas(span)) + W_TYPE * typed, -len(span.text), start, end))
    if not options:  # an empty or punctuation-only sentence
        return doc.text.strip()
    _, _, start, end = max(options)
    dropped = [t for t in doc if not t.is_punct and not (start <= t.idx < end)]
    return tidy(doc.text[start:end]) if dropped else doc.text.strip()


def _closed(text: str) -> str:
    """``text`` without a bracket it opens and never closes (a clause cut inside one): "GPT-3.5-Turbo (16K" is
    "GPT-3.5-Turbo".

    >>> _closed("We use GPT-3.5-Turbo (16K"), _closed("We use GPT-3.5-Turbo (16K) here")
    ('We use GPT-3.5-Turbo', 'We use GPT-3.5-Turbo (16K) here')
    """
    depth, cut = 0, -1
    for i, c in enumerate(text):
        if c == "(":
            cut, depth = (i if depth == 0 else cut), depth + 1
        elif c == ")" and depth:
            depth -= 1
    return text[:cut].rstrip(" ,;:-") if depth and cut > 0 else text


def tidy(clause: str) -> str:
    """A clause as a readable sentence: no leading joiner, capitalised, final full stop.

    >>> tidy("and he ran away,")
    'He ran away.'
    """
    words = clause.strip(" ,;:-").split()
    while len(words) > 1 and words[0].lower() in _LEADING_JOINERS:
        words = words[1:]
    text = _closed(" ".join(words))
    if not text:
        return clause.strip()
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?\"'”’" else text + "."

