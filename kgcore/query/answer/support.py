"""Is an answer supported by the document?  The offline answerers' abstention check.

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
**supported** when that reaches :data:`SUPPORT_THRESHOLD`; an answer that
cites no retrieved sentence, or says no answer was found, is not.

:data:`SUPPORT_THRESHOLD` was chosen on the Peter Rabbit dev set
(``assets/peter_rabbit_dev_qa.csv``, answerable questions only) before any
unanswerable question was scored: the 10th percentile of the dev
questions' support with the default method and the extractive answerer
(:func:`calibrate`; ``python bench/abstention.py --calibrate``), so by
construction about one answerable dev question in ten is refused.
``bench/abstention.py`` reports how often it abstains on questions whose
answer is not in the book versus ones whose answer is.

>>> decide(0.82, 0.7, "pr/text_0-3", 0.52, 0.6).supported
True
>>> print(decide(0.41, 0.7, "pr/text_0-3", 0.31, 0.2).reason)  # doctest: +NORMALIZE_WHITESPACE
Not supported by the document: the best cited sentence (pr/text_0-3) answers the question weakly
(cosine 0.31, question words found 0.20, support 0.41 < 0.70).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgcore.core.types import Answer, SelectedSentence
from kgcore.query.answer.words import lemmas, question_term_weights, weighted_overlap

W_OVERLAP = 0.5
#: Chosen on the Peter Rabbit dev set only (10th percentile of its support; see the module doc).
SUPPORT_THRESHOLD = 0.87
#: Share of answerable dev questions the threshold may refuse.
CALIBRATION_QUANTILE = 0.10


@dataclass(frozen=True)
class Support:
    """The verdict of the support check on one answer."""

    supported: bool
    score: float | None
    reason: str
    sentence_id: str | None = None


def decide(score: float, threshold: float, sentence_id: str, cosine: float, overlap: float) -> Support:
    """Supported when ``score`` reaches ``threshold``; the reason gives the figures behind it."""
    figures = f"cosine {cosine:.2f}, question words found {overlap:.2f}, support {score:.2f}"
    if score >= threshold:
        return Support(True, round(score, 3), f"Supported: cited sentence {sentence_id} answers the question "
                                              f"({figures} ≥ {threshold:.2f}).", sentence_id)
    return Support(False, round(score, 3), f"Not supported by the document: the best cited sentence ({sentence_id}) "
                                           f"answers the question weakly ({figures} < {threshold:.2f}).", sentence_id)


def calibrate(scores: Sequence[float], quantile: float = CALIBRATION_QUANTILE) -> float:
    """The threshold refusing about ``quantile`` of answerable questions: that quantile of their support,
    rounded down to two decimals.

    >>> calibrate([0.9, 1.0, 0.8, 0.5, 1.1, 0.95, 0.85, 0.7, 1.2, 0.99])
    0.68
    """
    return float(np.floor(np.quantile(np.asarray(scores, dtype=float), quantile) * 100) / 100)


def check_support(question: str, answer: Answer, context: Sequence[SelectedSentence], nlp, embedder,
                  threshold: float = SUPPORT_THRESHOLD) -> Support:
    """Whether the context sentences ``answer`` cites support it as an answer to ``question``."""
    by_id = {s.id: s for s in context}
    cited = [by_id[i] for c in answer.citations for i in c.sentence_ids if i in by_id]
    cited = list({s.id: s for s in cited}.values())
    if not cited:
        return Support(False, None, "Not supported by the document: the answer cites no retrieved sentence.")
    terms = question_term_weights(nlp(question))
    if all(s.similarity for s in cited):  # the retrieval's own cosines (same embedder), as the extractive ranks
        cosines = [float(s.similarity) for s in cited]
    else:
        vectors = embedder.encode([question] + [s.resolved or s.text for s in cited])
        cosines = vectors[1:] @ vectors[0]
    best = None
    for sentence, cosine in zip(cited, cosines):
        found = lemmas(nlp(sentence.text)) | lemmas(nlp(sentence.resolved or sentence.text))
        overlap = weighted_overlap(terms, found)
        score = float(cosine) + W_OVERLAP * overlap
        if best is None or score > best[0]:
            best = (score, sentence.id, float(cosine), overlap)
    assert best is not None
    return decide(best[0], threshold, best[1], best[2], best[3])


def with_support(answer: Answer, support: Support) -> Answer:
    """``answer`` carrying the verdict (``supported``, ``support_reason``, ``support_score``)."""
    return dataclasses.replace(answer, supported=support.supported, support_reason=support.reason,
                               support_score=support.score)


def unsupported(answer: Answer, reason: str) -> Answer:
    """``answer`` (no answer found) marked as not supported, for ``reason``."""
    return dataclasses.replace(answer, supported=False, support_reason=f"Not supported by the document: {reason}.")
