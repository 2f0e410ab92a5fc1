"""Reranking ``qa-kg`` candidates: the Reranker protocol, the candidate type and the offline features.

Every candidate pair carries its features, so the Ask page can say why it ranked:

=============  =====================================================================================
``similarity`` cosine of the question to the pair's generated question
``answer_sim`` cosine of the question to the pair's answer
``type``       answer-type agreement: 1 when the pair answers what the question asks for (a "who"
               question wants a person, "where" a place, "how many" anything that counts ...), 0 when it
               answers something else, 0.5 when the question does not say
``lexical``    share of the question's content words found in the pair's question and answer
``fuzzy``      1 - edits/(allowed+1) when the pair mentions an entity the question names (fuzzy match)
``type_level`` cosine of a question noun to a type of an entity the pair mentions ("bunnies")
``repeat``     1 when the answer brings no new information: every content word of it is already in the
               question or part of an entity the question names ("Robinson Crusoe's island" for "What did
               Crusoe call the island?"), or it only names entities the question names (fuzzy-matched:
               "Robinson Crusoe" for a question about Crusoe, also as the narrator pass's "Robinson Crusoe and
               companions") or refers to by type ("the bunnies"); not the type a
               wh-determiner asks for ("which bunnies ...?" -> "Flopsy, Mopsy and Cotton-tail" is new)
``sentence``   how much worse the pair's sentence answers the question than the best sentence does: the
               difference of their scores (:mod:`kgcore.query.answer.select`: cosine, question-word overlap,
               answer-type match), 0 for the best sentence's pairs; set by the ``qa-kg`` answerer only
=============  =====================================================================================

The offline score is :data:`WEIGHTS` · features (set on the dev questions only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kgcore.core.qa_pair import QAPair

#: ``sentence`` weighs 1 (the sentence's score simply added): without it the qa-kg answerer answered from the wrong
#: sentence (Crusoe dev: the evidence sentence for 8 of 45 questions, 15 with it); on the dev sets, groundedkg at
#: 1,000 words, EM / ROUGE-L with weight 0.5 / 1 / 2: Peter Rabbit 21.4 / 41.9, 28.6 / 55.1, 28.6 / 55.1; Crusoe
#: 6.7 / 15.7, 6.7 / 16.0, 6.7 / 13.8 (without: 21.4 / 25.0 and 4.4 / 10.7, answer and statement as the text).
WEIGHTS = {"similarity": 1.0, "answer_sim": 0.1, "type": 0.3, "lexical": 0.5, "fuzzy": 0.2, "type_level": 0.1,
           "repeat": -0.6, "sentence": 1.0}
#: Pair answer types that answer a question of each expected type (kgcore.query.qakg.question.expected_type).
COMPATIBLE = {
    "person": {"person"}, "place": {"place"}, "time": {"time"}, "reason": {"reason"}, "manner": {"manner"},
    "number": {"number"}, "object": {"thing", "number", "person"},
}


@dataclass
class Candidate:
    """One pair considered for a question (``index`` into the QA graph or table it came from)."""

    index: int
    pair: QAPair
    features: dict[str, float] = field(default_factory=dict)
    score: float = 0.0
    #: What the features rest on, in words: the fuzzy match (mention, name, edits), the matched type.
    why: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        p = self.pair
        return {"pair_id": p.id, "question": p.question, "answer": p.answer, "sentence_id": p.sentence_id,
                "wh": p.wh, "answer_type": p.answer_type, "role": p.role, "predicate": p.predicate,
                "statement": p.statement, "source": p.source, "score": round(self.score, 4),
                "features": {k: round(v, 4) for k, v in self.features.items()}, "why": dict(self.why)}


class Reranker(Protocol):
    """What every reranker provides: the candidates scored and sorted, best first."""

    name: str

    def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        ...


def type_agreement(expected: str | None, answer_type: str) -> float:
    """1 when a pair of ``answer_type`` answers a question expecting ``expected``, 0 when not, 0.5 unknown.

    >>> type_agreement("person", "person"), type_agreement("person", "place"), type_agreement(None, "place")
    (1.0, 0.0, 0.5)
    """
    if expected is None or expected not in COMPATIBLE:  # "what happened", "what did X do": any pair's statement
        return 0.5
    return 1.0 if answer_type in COMPATIBLE[expected] else 0.0


def offline_score(features: dict[str, float]) -> float:
    """The weighted sum of the features (:data:`WEIGHTS`)."""
    return sum(WEIGHTS.get(name, 0.0) * value for name, value in features.items())


def by_score(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Best first; ties keep the earlier pair (reading order)."""
    return sorted(candidates, key=lambda c: (-c.score, c.index))
