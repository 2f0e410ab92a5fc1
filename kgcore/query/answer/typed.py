"""Where a context sentence holds what a question asks for: the character spans of its written text
(:func:`~kgcore.query.answer.spans.answer_spans`), or for a person or name that only its coref-resolved text holds,
the written words coreference replaced ("He" of "He rowed out", standing for "Tomas"); and which of a name
question's spans are only plain noun phrases the sentence introduces
(:func:`~kgcore.query.answer.spans.found_spans`), which a verdict's reason must not call the asked thing.

>>> from kgcore.core.nlp import load_spacy
>>> from kgcore.query.answer.expected import expected_answer
>>> nlp = load_spacy()
>>> q = nlp("Who rescued the fishermen?")
>>> typed_spans(nlp("He rowed out and rescued them."), nlp("Tomas rowed out and rescued the fishermen."),
...             expected_answer(q), q)
{(0, 2): ('Tomas', False)}
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from kgcore.index.views.entities.people import PERSONAL_PRONOUNS
from kgcore.query.answer.expected import Expected, expected_answer
from kgcore.query.answer.span_tokens import asks_for_no_one
from kgcore.query.answer.spans import answer_spans, found_spans

#: Answer kinds a sentence's coref-resolved text can hold when its written text does not (:func:`typed_spans`).
RESOLVED_TYPES = frozenset(("person", "name"))


def typed_spans(original, resolved, expected: Expected, q_doc) -> dict[tuple[int, int], tuple[str, bool]]:
    """Character spans of the written text (``original``, parsed) holding the expected answer, each with the words
    coreference put in its place ("" for the written text's own) and whether it is only a plain noun phrase the
    sentence introduces (:func:`~kgcore.query.answer.spans.found_spans`), not one it names as the asked thing.
    For a person or name that only the coref-resolved text holds, the written words it replaced
    (:func:`written_for`: "He" of "He rowed out", standing for "Tomas"), or the whole written sentence when they
    cannot be told."""
    tokens = list(original)
    found, plain = found_spans(tokens, expected, q_doc)
    if found or expected.kind not in RESOLVED_TYPES or resolved is original:
        return {_chars(tokens, a, b): ("", (a, b) in plain) for a, b in found}
    named, plain = found_spans(list(resolved), expected, q_doc)
    if not named:
        return {}
    replaced = written_for(tokens, list(resolved), named)
    kept = [r for r in replaced if not _for_someone(tokens[r[0]:r[1]], expected)]
    if replaced and not kept:
        return {}
    spans = {_chars(tokens, a, b): (resolved[j:k].text, (j, k) in plain) for a, b, j, k in kept}
    first = named[0]
    return spans or {(0, len(original.text)): (resolved[first[0]:first[1]].text, first in plain)}


def _for_someone(written: Sequence, expected: Expected) -> bool:
    """Whether the written words coreference replaced are a personal pronoun ("he", "her") while a name question
    asks for a thing no person or animal is (:func:`~kgcore.query.answer.span_tokens.asks_for_no_one`: "what
    event"): the name put in its place is someone's, so no answer."""
    return expected.kind == "name" and all(t.lower_ in PERSONAL_PRONOUNS for t in written) and \
        asks_for_no_one(expected.noun)


def _chars(tokens: list, a: int, b: int) -> tuple[int, int]:
    return tokens[a].idx, tokens[b - 1].idx + len(tokens[b - 1].text)


def written_for(written: list, resolved: list, spans) -> list[tuple[int, int, int, int]]:
    """Where the resolved text's ``spans`` (token spans of ``resolved``) stand in ``written``: the written tokens
    coreference replaced by each, with the span (``(i1, i2, j1, j2)``).  A span the resolution did not bring in
    (it was written too, or only moved) maps to nothing.

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> written = list(nlp("He rowed out and rescued them."))
    >>> resolved = list(nlp("Tomas rowed out and rescued the fishermen."))
    >>> [(written[i].text, resolved[j].text) for i, _, j, _ in written_for(written, resolved, [(0, 1)])]
    [('He', 'Tomas')]
    """
    matcher = difflib.SequenceMatcher(None, [t.lower_ for t in written], [t.lower_ for t in resolved],
                                      autojunk=False)
    out = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        hit = next(((a, b) for a, b in spans if a < j2 and j1 < b), None) if op == "replace" else None
        if hit is not None:
            out.append((i1, i2, *hit))
    return out


def holds_answer_type(original, resolved, qtype: str | None, q_doc) -> bool:
    """Whether a sentence (its parsed written and coref-resolved texts) holds what a ``qtype`` question asks for:
    a person or name in either text, anything else in the written one.  Coreference puts people's names in place
    of pronouns ("He rowed out and rescued them" is "Tomas rowed out and rescued the fishermen"), not places, times
    or numbers, and the tagger misreads a name moved into a new context ("Daae's father's wife died": Daae a place).
    """
    docs = (original, resolved) if qtype in RESOLVED_TYPES else (original,)
    return any(has_answer_type(list(doc), qtype, q_doc) for doc in docs)


def has_answer_type(tokens, qtype: str | None, q_doc) -> bool:
    """Whether ``tokens`` (one sentence or clause) hold what a ``qtype`` question asks for
    (:func:`~kgcore.query.answer.spans.answer_spans`)."""
    if qtype is None:
        return False
    found = expected_answer(q_doc)
    return bool(answer_spans(tokens, found if found.kind == qtype else Expected(qtype), q_doc))
