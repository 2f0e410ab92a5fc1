"""The former support check: the support score of an answer's cited sentences against a per-collection threshold.

The answers carry the verdict of :mod:`~kgcore.query.answer.verdict` instead (supported / not supported /
unsure, checked claim by claim, for every answerer); this score, its calibration
(:mod:`~kgcore.query.answer.calibration`) and :func:`unsupported` (the verdict of "no answer found") remain for
``bench/abstention.py``, which measures how often the score refuses answerable and unanswerable questions, and
for callers of :func:`check_support`.  What it did:

The extractive and ``qa-kg`` answerers always quote or paraphrase retrieved
sentences, so "is the answer in the context" is true by construction; the
question that matters is whether the sentences the answer cites actually
*answer the question*.  A cited sentence's **support** is

    support = cosine(question, sentence) + W_OVERLAP · overlap

the extractive answerer's own evidence score without its answer-type bonus:
``cosine`` of the question and the sentence embeddings (the index's
embedder; the retrieval's own cosine when every cited sentence carries
one), ``overlap`` the weighted share of the question's content lemmas
found in the sentence or its coref-resolved text (verbs weigh 2,
possessors 0.5, other words 1; :func:`~kgcore.query.answer.words.question_term_weights`).
The answer's support is the best over its cited sentences.  It is
**supported** when that reaches the threshold of a :class:`Calibration`
and, for a question asking for a person, place, time, number or name
(:data:`TYPED`), a cited sentence holds one (:func:`~kgcore.query.answer.typed.holds_answer_type`,
the answerers' own test): "Where did Christine go after her father died?" answered by
"His wife died when Christine was entering upon her sixth year." shares the question's words, but names
no place.  An answer that cites no retrieved sentence, or says no answer was found, is not supported.

The threshold is measured on each collection (:mod:`~kgcore.query.answer.calibration`):
the :data:`QUANTILE` quantile of the support of questions generated from the
collection's own sentences, which those sentences answer by construction
(:func:`calibrate`).  One absolute threshold does not transfer between books:
the cosine of a question and the sentence answering it is lower in a book of
long sentences (Robinson Crusoe) than in a short tale (Peter Rabbit).
:data:`QUANTILE` was chosen on the Peter Rabbit and Robinson Crusoe dev sets
(``bench/experiments/abstention.py``).  :data:`FIXED_THRESHOLD` (the former absolute
threshold, chosen on Peter Rabbit dev alone) is used only where nothing can be
measured: a generator used without a collection, or a collection yielding fewer
than :data:`MIN_QUESTIONS` questions.

>>> peter = Calibration(0.86, "collection 'peter-rabbit'", 160)
>>> decide(0.92, peter, "pr/text_0-3", 0.52, 0.8).supported
True
>>> print(decide(0.41, peter, "pr/text_0-3", 0.31, 0.2).reason)  # doctest: +NORMALIZE_WHITESPACE
Not supported by the document: the best cited sentence (pr/text_0-3) answers the question weakly
(cosine 0.31, question words found 0.20, support 0.41 < 0.86, the threshold of collection 'peter-rabbit':
86% of 160 questions generated from its own sentences reach it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgcore.core.types import Answer, SelectedSentence, Verdict
from kgcore.query.answer.select import W_OVERLAP, answer_type, cosines
from kgcore.query.answer.typed import holds_answer_type
from kgcore.query.answer.words import lemmas, question_term_weights, weighted_overlap

#: Share of a collection's own (answerable) questions the threshold may refuse.  Chosen on the dev sets
#: (``bench/experiments/abstention.py --split dev --quantiles ...``): the best mean of unanswerable minus answerable
#: abstention of the extractive answerer over Peter Rabbit and Robinson Crusoe; on Peter Rabbit it gives the former
#: 0.87.
QUANTILE = 0.14
#: Fewer generated questions than this give no threshold: :data:`FIXED_THRESHOLD` is used instead.
MIN_QUESTIONS = 20
#: The former absolute threshold (Peter Rabbit dev's 10th percentile), for when nothing can be measured.
FIXED_THRESHOLD = 0.87
#: Answer types (:func:`~kgcore.query.answer.select.answer_type`) a supported answer's cited sentences must hold.
#: Not reason, object or action: the tests for those find too little or too much to decide support.
TYPED = frozenset(("person", "place", "time", "number", "name"))


@dataclass(frozen=True)
class Calibration:
    """The threshold of the support check and where it comes from (shown in the verdict's reason).

    >>> Calibration(0.7, "collection 'crusoe'", 400).describe()
    "the threshold of collection 'crusoe': 86% of 400 questions generated from its own sentences reach it"
    >>> Calibration(FIXED_THRESHOLD).describe()
    'a fixed threshold (no collection to calibrate on)'
    """

    threshold: float
    #: What it was measured on ("collection 'peter-rabbit'"); empty for :data:`FIXED_THRESHOLD`.
    source: str = ""
    #: How many generated questions it was measured on.
    questions: int = 0
    quantile: float = QUANTILE
    #: Why nothing was measured, when :attr:`source` is empty.
    why_fixed: str = "no collection to calibrate on"

    def describe(self) -> str:
        """Where the threshold comes from, for the verdict's reason."""
        if not self.source:
            return f"a fixed threshold ({self.why_fixed})"
        return (f"the threshold of {self.source}: {1 - self.quantile:.0%} of {self.questions} questions generated "
                f"from its own sentences reach it")


#: For a generator used without a collection.
UNCALIBRATED = Calibration(FIXED_THRESHOLD)


def calibrate(scores: Sequence[float], source: str, quantile: float = QUANTILE) -> Calibration:
    """The calibration refusing about ``quantile`` of answerable questions with these ``scores``: that quantile of
    them, rounded down to two decimals; the fixed threshold when there are fewer than :data:`MIN_QUESTIONS`.

    >>> calibrate([0.5 + i / 100 for i in range(100)], "collection 'x'").threshold
    0.63
    >>> calibrate([0.29] * 30, "collection 'x'").threshold  # 0.29 * 100 is 28.999999999999996 in floats
    0.29
    >>> fixed = calibrate([0.9, 1.0], "collection 'tiny'")
    >>> fixed.threshold == FIXED_THRESHOLD, fixed.describe()
    (True, "a fixed threshold (collection 'tiny' gave 2 questions, fewer than 20)")
    """
    if len(scores) < MIN_QUESTIONS:
        return Calibration(FIXED_THRESHOLD, why_fixed=f"{source} gave {len(scores)} questions, fewer than "
                                                       f"{MIN_QUESTIONS}")
    value = float(np.floor(round(float(np.quantile(np.asarray(scores, dtype=float), quantile)) * 100, 6)) / 100)
    return Calibration(value, source, len(scores), quantile)


@dataclass(frozen=True)
class Support:
    """The verdict of the support check on one answer."""

    supported: bool
    score: float | None
    reason: str
    sentence_id: str | None = None


def decide(score: float, calibration: Calibration, sentence_id: str, cosine: float, overlap: float) -> Support:
    """Supported when ``score`` reaches the calibration's threshold; the reason gives the figures behind it."""
    figures = f"cosine {cosine:.2f}, question words found {overlap:.2f}, support {score:.2f}"
    where = f"{calibration.threshold:.2f}, {calibration.describe()}"
    if score >= calibration.threshold:
        return Support(True, round(score, 3), f"Supported: cited sentence {sentence_id} answers the question "
                                              f"({figures} ≥ {where}).", sentence_id)
    return Support(False, round(score, 3), f"Not supported by the document: the best cited sentence ({sentence_id}) "
                                           f"answers the question weakly ({figures} < {where}).", sentence_id)


def check_support(question: str, answer: Answer, context: Sequence[SelectedSentence], nlp, embedder,
                  calibration: Calibration = UNCALIBRATED) -> Support:
    """Whether the context sentences ``answer`` cites support it as an answer to ``question``."""
    by_id = {s.id: s for s in context}
    cited = [by_id[i] for c in answer.citations for i in c.sentence_ids if i in by_id]
    cited = list({s.id: s for s in cited}.values())
    if not cited:
        return Support(False, None, "Not supported by the document: the answer cites no retrieved sentence.")
    q_doc = nlp(question)
    terms, qtype = question_term_weights(q_doc), answer_type(q_doc)
    parsed = [(nlp(s.text), nlp(s.resolved or s.text)) for s in cited]
    best = None
    for sentence, cosine, docs in zip(cited, cosines(question, cited, embedder), parsed):  # as the answerer ranks
        overlap = weighted_overlap(terms, lemmas(docs[0]) | lemmas(docs[1]))
        score = float(cosine) + W_OVERLAP * overlap
        if best is None or score > best[0]:
            best = (score, sentence.id, float(cosine), overlap)
    assert best is not None
    verdict = decide(best[0], calibration, best[1], best[2], best[3])
    if verdict.supported and not kind_held(qtype, q_doc, parsed):
        ids = ", ".join(s.id for s in cited)
        return Support(False, verdict.score, f"Not supported by the document: the question asks for a {qtype}, and "
                                             f"no cited sentence ({ids}) holds one.", verdict.sentence_id)
    return verdict


def kind_held(qtype: str | None, q_doc, parsed: Sequence[tuple[Any, Any]]) -> bool:
    """Whether cited sentences (each parsed as its written and coref-resolved text) hold what a ``qtype``
    question asks for: the answer-type rule of :func:`check_support`, true for a question asking for none of
    :data:`TYPED`."""
    return qtype not in TYPED or any(holds_answer_type(written, resolved, qtype, q_doc) for written, resolved in parsed)


def with_support(answer: Answer, support: Support) -> Answer:
    """``answer`` carrying the verdict (``supported``, ``support_reason``, ``support_score``)."""
    return dataclasses.replace(answer, supported=support.supported, support_reason=support.reason,
                               support_score=support.score)


def unsupported(answer: Answer, reason: str) -> Answer:
    """``answer`` (no answer found) marked as not supported, for ``reason``, with that verdict."""
    text = f"Not supported by the document: {reason}."
    return dataclasses.replace(answer, supported=False, support_reason=text, verdict=Verdict("not supported", text))
