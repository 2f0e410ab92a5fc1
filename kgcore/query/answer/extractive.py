"""Offline extractive answers: the clause of the context that best answers the question.

No LLM is involved.  The context sentence that best answers the question is chosen by the shared sentence scorer
(:mod:`~kgcore.query.answer.select`: cosine, weighted question-word overlap, answer-type match), then trimmed to
the clause (a verb's dependency subtree, or a conjunct split on ``;`` / ``, and`` / ``, but``) that keeps all
of its evidence, so the answer stays short but readable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgcore.core.types import Answer, Citation, SelectedSentence
from kgcore.query.answer.base import LazyModels
from kgcore.query.answer.select import W_TYPE, Question, has_answer_type, score_sentences
from kgcore.query.answer.support import UNCALIBRATED, Calibration, check_support, unsupported, with_support
from kgcore.query.answer.words import lemmas, weighted_overlap

#: A clause shorter than this many words is never chosen over its sentence.
MIN_CLAUSE_WORDS = 3
EMPTY_CONTEXT_TEXT = "No context was retrieved, so the extractive answerer cannot answer."
_CONJUNCT_SPLIT = re.compile(r";|,\s+(?:and|but)\s+|\s+--\s+")
_LEADING_JOINERS = frozenset("and but so or then".split())


class ExtractiveGenerator(LazyModels):
    """Extracts an answer span from the context; ``embedder``/``nlp`` load lazily when ``None``."""

    name = "extractive"

    @property
    def model(self) -> str:
        return self.embedder.name

    def generate(self, question: str, context: Sequence[SelectedSentence], book_name: str = "",
                 calibration: Calibration = UNCALIBRATED) -> Answer:
        """The best clause of ``context``, with the support check's verdict (:mod:`~kgcore.query.answer.support`)
        under ``calibration`` (the collection's, :mod:`~kgcore.query.answer.calibration`)."""
        if not context:
            return unsupported(Answer(EMPTY_CONTEXT_TEXT, self.name, self.model, notes=[
                "Extractive answer (no LLM used): it can only quote retrieved context, and none was retrieved."]),
                "no context was retrieved")
        answer = self._extract(question, context)
        return with_support(answer, check_support(question, answer, context, self.nlp, self.embedder, calibration))

    def _extract(self, question: str, context: Sequence[SelectedSentence]) -> Answer:
        parsed = Question.parse(question, self.nlp)
        best = score_sentences(question, parsed, context, self.nlp, self.embedder)[0]
        sentence, qtype = best.sentence, parsed.qtype
        text = best_clause(self.nlp(sentence.text), parsed.terms, qtype, parsed.doc)
        notes = [
            f"Extractive answer (no LLM used): the {'clause' if text != sentence.text.strip() else 'sentence'} of "
            f"context sentence {sentence.id} that best matches the question (cosine {best.cosine:.2f}, question-word "
            f"overlap {best.overlap:.2f}, expected answer: {qtype or 'any'}"
            f"{', found' if best.type_match else ', not found' if qtype else ''})."
        ]
        if best.overlap == 0 and best.cosine < 0.3:
            notes.append("Low confidence: the best sentence shares no words with the question.")
        return Answer(text, self.name, self.model, citations=[Citation(text, [sentence.id], [1.0])], notes=notes)


# -- trimming -----------------------------------------------------------------------
def clause_spans(doc) -> list[tuple[int, int]]:
    """Character spans of the clauses of a parsed sentence (the whole sentence first)."""
    spans = [(0, len(doc.text))]
    spans += _conjunct_spans(doc)
    for verb in doc:
        if verb.pos_ in ("VERB", "AUX") and verb.dep_ in ("ROOT", "conj", "ccomp", "advcl"):
            spans.append(_verb_clause(doc, verb))
    return list(dict.fromkeys(s for s in spans if s[1] > s[0]))


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


def best_clause(doc, terms: dict[str, float], qtype: str | None, q_doc) -> str:
    """The shortest clause of ``doc`` with the sentence's best overlap and answer-type evidence."""
    def evidence(span) -> tuple[float, bool]:
        return weighted_overlap(terms, lemmas(span)), has_answer_type(list(span), qtype, q_doc)

    options = []
    for start, end in clause_spans(doc):
        span = doc.char_span(start, end, alignment_mode="expand")
        words = sum(1 for t in span if not t.is_punct)
        if start == 0 and end == len(doc.text) or words >= MIN_CLAUSE_WORDS:
            overlap_share, typed = evidence(span)
            options.append((overlap_share + W_TYPE * typed, -len(span.text), start, end))
    _, _, start, end = max(options)
    dropped = [t for t in doc if not t.is_punct and not (start <= t.idx < end)]
    return tidy(doc.text[start:end]) if dropped else doc.text.strip()


def tidy(clause: str) -> str:
    """A clause as a readable sentence: no leading joiner, capitalised, final full stop.

    >>> tidy("and he ran away,")
    'He ran away.'
    """
    words = clause.strip(" ,;:-").split()
    while len(words) > 1 and words[0].lower() in _LEADING_JOINERS:
        words = words[1:]
    text = " ".join(words)
    if not text:
        return clause.strip()
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?\"'”’" else text + "."
