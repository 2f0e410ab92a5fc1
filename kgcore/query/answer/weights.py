"""How a context sentence's features become its score as an answer to a question.

Each candidate sentence of the offline answerers (:func:`~kgcore.query.answer.select.score_sentences`) gets
these features (:data:`FEATURES`):

* ``cosine``: the question-sentence cosine (the retrieval's, or the coref-resolved text's when closer);
* ``overlap``: the weighted share of the question's content lemmas found in the sentence
  (:func:`~kgcore.query.answer.words.question_term_weights`); ``rare_overlap``: the same with each word also
  weighted by how few of the candidate sentences hold it (:func:`~kgcore.query.answer.select.distinctive`);
* ``typed``: 1 when the sentence holds a span of the expected answer's kind (:mod:`~kgcore.query.answer.spans`);
  ``untyped``: 1 when the question asks for a quantity, time, person, place, relation or occupation
  (:data:`SPECIFIC`) and the sentence holds none;
* ``rank``: the retrieval's rank as ``RANK_K / (RANK_K + rank - 1)`` (1 for its best sentence, 0 unranked);
* ``short``: 1 for a sentence of at most :data:`SHORT_WORDS` tokens without a verb (a heading, a caption's
  label: :func:`~kgcore.query.answer.select.is_heading`; "It is painted blue." is no heading);
* ``cosine_gap`` / ``overlap_gap``: how far the sentence trails the best candidate's cosine / overlap (<= 0);
* ``near``: how closely a span of the expected kind hangs on the question's words in the sentence's parse
  (:func:`~kgcore.query.answer.select.span_nearness`: ``1 / (1 + d)`` for a dependency path of ``d`` arcs);
* ``slot``: whether a span of the expected kind stands where the question's wh-phrase stands (under the same
  preposition and verb, as the same verb's argument, or headed by the asked noun:
  :func:`~kgcore.query.answer.slots.slot_match`; 1 also when it says the size of the thing the question
  measures; 0.5 under the same preposition only, else 0);
* ``lexical``, ``dense``, ``graph``: the retrieval's own signals of the sentence (:data:`SIGNALS`).

A :class:`Weights` turns them into ``score = bias + sum(weight · feature)``.  :data:`RULES`, the answerers'
weights, were chosen on the design questions of the verdict bench (``bench/verdict_bench.py``: papers, QASPER
and the NarrativeQA design books, every context sentence a candidate) from a grid, in the middle of its plateau:
the share of questions whose best sentence holds a reference answer rose from 0.52 / 0.17 / 0.13 (the former
cosine + 0.5 · overlap + 0.25 · typed over the retrieval's three best sentences) to 0.76 / 0.26 / 0.15.  The
cosine, which favoured sentences about the question's subject over the one answering it, weighs little; the
words only the answering sentence shares with the question weigh most.  ``slot`` was added later at 0.5, the
middle of the plateau where it helps (0.5-0.75 on the design sets: the answer right with the gold evidence in
the context rose from 17 to 19 of 23 papers and 18 to 19 of 58 novel questions, QASPER unchanged at 6 of 17;
1.0 lost a novel question, 1.5 a paper one).  A logistic regression over the same
features, fitted on two of the sets and tried on the third (``bench/experiments/verdict_fit.py``), did no better
on any of them, so no fitted weights are used.

>>> f = sentence_features("number", 0.5, 1.0, 0.8, True, 1, False, 0.6, 1.0)
>>> f["typed"], f["untyped"], f["rank"], round(f["cosine_gap"], 2)
(1.0, 0.0, 1.0, -0.1)
>>> round(RULES.score(f), 3)
2.175
"""

from __future__ import annotations

from dataclasses import dataclass

#: The retrieval's own signals of a sentence (GroundedKG's fused ranking, LeSeGR; 0 when the method gives none).
SIGNALS = ("lexical", "dense", "graph")
FEATURES = ("cosine", "overlap", "rare_overlap", "typed", "untyped", "rank", "short", "cosine_gap", "overlap_gap",
            "near", "slot", *SIGNALS)
#: Answer kinds whose span a sentence must hold to answer (its absence is the ``untyped`` feature).
SPECIFIC = frozenset(("number", "time", "person", "place", "relation", "occupation"))
RANK_K = 3
SHORT_WORDS = 5


@dataclass(frozen=True)
class Weights:
    """A linear score over :data:`FEATURES`; ``source`` says where the weights come from."""

    name: str
    weights: dict[str, float]
    bias: float = 0.0
    source: str = ""

    def score(self, features: dict[str, float]) -> float:
        return self.bias + sum(w * features.get(k, 0.0) for k, w in self.weights.items())


RULES = Weights("rules", {"cosine": 0.25, "overlap": 1.0, "rare_overlap": 1.0, "rank": 0.25, "near": 0.5,
                          "untyped": -0.5, "short": -0.5, "slot": 0.5},
                source="chosen on the verdict bench's design questions")


def current() -> Weights:
    """The weights the answerers use."""
    return RULES


def rank_prior(rank: int) -> float:
    """``RANK_K / (RANK_K + rank - 1)``: 1 for the retrieval's best sentence, 0 for an unranked one.

    >>> [round(rank_prior(r), 2) for r in (1, 2, 4, 0)]
    [1.0, 0.75, 0.5, 0.0]
    """
    return RANK_K / (RANK_K + rank - 1) if rank > 0 else 0.0


def sentence_features(qtype: str | None, cosine: float, overlap: float, rare_overlap: float, typed: bool, rank: int,
                      heading: bool, best_cosine: float, best_overlap: float) -> dict[str, float]:
    """The :data:`FEATURES` of one candidate sentence (``heading``: whether it reads as a heading or a label;
    ``best_*`` over the candidates)."""
    return {"cosine": cosine, "overlap": overlap, "rare_overlap": rare_overlap, "typed": float(typed),
            "untyped": float(qtype in SPECIFIC and not typed), "rank": rank_prior(rank),
            "short": float(heading), "cosine_gap": cosine - best_cosine,
            "overlap_gap": overlap - best_overlap}
