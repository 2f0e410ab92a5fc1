"""The verifier: how likely an answer is right, from what the verdict checked.

The verdict (:mod:`~kgcore.query.answer.verdict`) checks the cited sentence that best answers the question; this
module turns that check into :data:`FEATURES` (:func:`answer_features`) and reads them with a small logistic
regression (:class:`Verifier`, two weights and a bias in ``verifier.json``) whose probability is cut by a band:
*supported* from ``high``, *not supported* below ``low``, *unsure* between.

Fitted by ``bench/experiments/verdict_verifier_fit.py`` on the design questions of the verdict bench only
(papers, QASPER, the NarrativeQA design books; every example weighted so that each set and each truth count the
same), on two features: the check's *strength* (the sentence's answer score plus the cosine of the closest
question its frames answer) and the *margin* by which the sentence's answer score leads the best other context
sentence's -- a quote the answer pick barely preferred is less often right (area under the ROC curve 0.73 on
the design papers, 0.62 on the novels).  The band is the one with the best mean balanced accuracy over the sets,
whole documents held out in cross-validation, at most 25 % unsure on each; more features did no better there.

>>> v = Verifier({"strength": 0.5, "margin": 0.8}, -1.4, 0.48, 0.56)
>>> v.state(v.probability({"strength": 3.4, "margin": 0.6})), v.state(v.probability({"strength": 1.5, "margin": 0}))
('supported', 'not supported')
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kgcore.core.verdicts import ClaimCheck
from kgcore.query.answer.select import Question, ScoredSentence
from kgcore.query.answer.weights import SPECIFIC
from kgcore.query.answer.words import content_words

#: Open questions: their answer is a clause, not a span (why, how, what happened, what is X).
OPEN = frozenset(("reason", "manner", "action", "definition", "object"))
#: The fitted verifier: its weights and band (written by ``bench/experiments/verdict_verifier_fit.py --write``).
MODEL = Path(__file__).with_name("verifier.json")
FEATURES = ("strength", "score", "question_cosine", "cosine", "overlap", "rare_overlap", "matched_share", "typed",
            "near", "margin", "specific", "name", "open", "untyped_kind", "question_terms", "answer_words", "rank")


def answer_features(check: ClaimCheck, best: ScoredSentence, scored: Sequence[ScoredSentence],
                    parsed: Question) -> dict[str, float]:
    """The features of one claim's check: its strength and the answer score's parts, how far the sentence leads
    the best other candidate (``margin``), what the question asks for, and how long question and claim are.

    The ``margin`` is the sentence's answer score minus the best score of another context sentence: a quote the
    scorer barely preferred is less likely the answer than one far ahead."""
    others = [s.score for s in scored if s.sentence.id != best.sentence.id]
    asked = len(check.matched) + len(check.missing)
    kind = parsed.qtype
    return {
        "strength": float(check.strength or 0.0), "score": best.score,
        "question_cosine": float(check.question_cosine or 0.0), "cosine": best.cosine, "overlap": best.overlap,
        "rare_overlap": best.features.get("rare_overlap", 0.0), "matched_share": len(check.matched) / asked
        if asked else 0.0, "typed": float(bool(check.span)), "near": best.features.get("near", 0.0),
        "margin": best.score - max(others) if others else 0.0, "specific": float(kind in SPECIFIC),
        "name": float(kind == "name"), "open": float(kind in OPEN), "untyped_kind": float(kind is None),
        "question_terms": float(asked), "answer_words": float(len(content_words(check.claim))),
        "rank": best.features.get("rank", 0.0),
    }



@dataclass(frozen=True)
class Verifier:
    """A logistic regression over :data:`FEATURES` and the band its probability is read with: *supported* from
    ``high``, *not supported* below ``low``, *unsure* between.

    >>> v = Verifier({"typed": 2.0, "margin": 1.0}, -1.0, 0.4, 0.6)
    >>> round(v.probability({"typed": 1.0, "margin": 0.5}), 3), v.state(0.5), v.state(0.7), v.state(0.1)
    (0.818, 'unsure', 'supported', 'not supported')
    """

    weights: dict[str, float]
    bias: float
    low: float
    high: float
    source: str = ""

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias + sum(w * features.get(k, 0.0) for k, w in self.weights.items())
        return float(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))))

    def state(self, probability: float) -> str:
        return "supported" if probability >= self.high else "not supported" if probability < self.low else "unsure"

    @classmethod
    def load(cls, path: Path = MODEL) -> Verifier:
        """The verifier written by ``bench/experiments/verdict_verifier_fit.py`` (a few numbers in JSON)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls({k: float(v) for k, v in data["weights"].items()}, float(data["bias"]), float(data["low"]),
                       float(data["high"]), str(data.get("source", "")))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}: not a verifier ({error}); rerun bench/experiments/verdict_verifier_fit.py "
                             "--write") from error


@functools.lru_cache(maxsize=1)
def current() -> Verifier:
    """The verifier the verdict uses (:data:`MODEL`, read once)."""
    return Verifier.load(MODEL)
