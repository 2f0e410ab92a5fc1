"""The support check's decisions and its per-collection calibration without models (a stub parser and
embedder)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from test_qa import SENTENCES, analyses

from kgcore.core.types import Answer, Citation, SelectedSentence
from kgcore.index.qa import FrameQAGenerator
from kgcore.query.answer.calibration import evenly, question_supports
from kgcore.query.answer.support import (
    FIXED_THRESHOLD,
    MIN_QUESTIONS,
    UNCALIBRATED,
    W_OVERLAP,
    Calibration,
    calibrate,
    check_support,
    unsupported,
    with_support,
)


@dataclass
class Token:
    lower_: str
    pos_: str = "NOUN"
    dep_: str = "dobj"
    is_punct: bool = False
    is_stop: bool = False

    @property
    def lemma_(self) -> str:
        return self.lower_


def nlp(text: str) -> list[Token]:
    return [Token(w) for w in text.lower().replace("?", "").replace(".", "").split()]


class NoEncoding:
    def encode(self, texts):
        raise AssertionError("the retrieval's cosines should have been used")


CONTEXT = [SelectedSentence("pr/text_0-1", 1, "Peter lost his shoes.", "Peter lost his shoes.", similarity=0.6),
           SelectedSentence("pr/text_0-2", 2, "The cat sat still.", "The cat sat still.", similarity=0.1)]


def answer(*ids: str) -> Answer:
    return Answer("x", "extractive", "m", [Citation("x", list(ids))] if ids else [])


PR = Calibration(0.9, "collection 'pr'", 200)


def test_support_is_the_best_cited_sentence():
    found = check_support("peter shoes", answer("pr/text_0-2", "pr/text_0-1"), CONTEXT, nlp, NoEncoding(), PR)
    assert found.supported and found.sentence_id == "pr/text_0-1" and found.score == 1.1  # 0.6 + 0.5 * 1
    weak = check_support("peter shoes", answer("pr/text_0-2"), CONTEXT, nlp, NoEncoding(), PR)
    assert not weak.supported and weak.score == 0.1 and weak.reason.startswith("Not supported by the document")
    # the reason names the collection whose own questions set the threshold
    assert "< 0.90, the threshold of collection 'pr': 86% of 200 questions generated" in weak.reason


def test_the_same_support_is_judged_by_each_collections_threshold():
    cited = answer("pr/text_0-1")
    long_book, short_tale = Calibration(0.66, "collection 'long'", 400), Calibration(1.2, "collection 'short'", 90)
    assert check_support("peter shoes", cited, CONTEXT, nlp, NoEncoding(), long_book).supported
    assert not check_support("peter shoes", cited, CONTEXT, nlp, NoEncoding(), short_tale).supported


def test_an_answer_citing_nothing_retrieved_is_not_supported():
    for cited in (answer(), answer("pr/text_9-9")):
        found = check_support("peter shoes", cited, CONTEXT, nlp, NoEncoding(), PR)
        assert (found.supported, found.score) == (False, None) and "cites no retrieved sentence" in found.reason


def test_the_verdict_is_carried_by_the_answer():
    marked = with_support(answer("pr/text_0-1"), check_support("peter shoes", answer("pr/text_0-1"), CONTEXT, nlp,
                                                                NoEncoding(), PR))
    assert (marked.supported, marked.support_score) == (True, 1.1) and marked.to_dict()["supported"] is True
    assert unsupported(answer(), "no pair found").support_reason == "Not supported by the document: no pair found."
    assert Answer("x", "openai", "m").supported is None  # not checked


def test_without_a_collection_the_fixed_threshold_is_used_and_said():
    found = check_support("peter shoes", answer("pr/text_0-1"), CONTEXT, nlp, NoEncoding())
    assert UNCALIBRATED.threshold == FIXED_THRESHOLD and found.supported  # 1.1 >= 0.87
    assert "a fixed threshold (no collection to calibrate on)" in found.reason


# -- calibration ---------------------------------------------------------------------
def test_calibration_refuses_the_quantile_of_the_collections_own_questions():
    scores = [0.5 + i / 100 for i in range(100)]
    for quantile in (0.1, 0.14, 0.25):
        calibration = calibrate(scores, "collection 'x'", quantile)
        assert quantile - 0.02 <= sum(s < calibration.threshold for s in scores) / 100 <= quantile
        assert (calibration.questions, calibration.quantile) == (100, quantile)
    assert calibrate(list(reversed(scores)), "c") == calibrate(scores, "c")  # order does not matter


def test_too_few_questions_fall_back_to_the_fixed_threshold():
    few = calibrate([2.0] * (MIN_QUESTIONS - 1), "collection 'tiny'")
    assert few.threshold == FIXED_THRESHOLD and not few.source and "19 questions, fewer than 20" in few.describe()
    assert calibrate([2.0] * MIN_QUESTIONS, "collection 'tiny'").threshold == 2.0


def test_evenly_spread_samples_are_deterministic_and_bounded():
    assert evenly(5, 5) == [0, 1, 2, 3, 4] and evenly(1000, 1) == [0]
    picked = evenly(2362, 400)
    assert len(picked) == 400 and picked[0] == 0 and picked[-1] == 2361 and picked == sorted(set(picked))
    assert picked == evenly(2362, 400)


class Toward:
    """Every text encodes to the unit vector (1, 0); a sentence row's vector then has cosine x[0] with it."""

    def encode(self, texts):
        return np.tile(np.array([1.0, 0.0], dtype=np.float32), (len(texts), 1))


class NoParser:
    def pipe(self, texts):
        texts = list(texts)
        assert not texts, "stored frames should have been used"
        return iter(())


def test_question_supports_score_each_generated_question_against_its_own_sentence():
    cosines = [0.8, 0.3, 0.5, 0.1]
    vectors = np.array([[c, np.sqrt(1 - c * c)] for c in cosines], dtype=np.float32)
    supports = question_supports(SENTENCES, vectors, analyses(), NoParser(), Toward())
    pairs = FrameQAGenerator().generate(SENTENCES, analyses())
    row = {s.id: i for i, s in enumerate(SENTENCES)}
    assert len(supports) == len(pairs) > 0
    assert supports == pytest.approx([cosines[row[p.sentence_id]] + W_OVERLAP for p in pairs])
    assert question_supports(SENTENCES[:0], vectors[:0], {}, NoParser(), Toward()) == []
