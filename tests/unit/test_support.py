"""The support check's decisions without models (a stub parser and embedder)."""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.core.types import Answer, Citation, SelectedSentence
from kgcore.query.answer.support import calibrate, check_support, unsupported, with_support


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


def test_support_is_the_best_cited_sentence():
    found = check_support("peter shoes", answer("pr/text_0-2", "pr/text_0-1"), CONTEXT, nlp, NoEncoding(), 0.9)
    assert found.supported and found.sentence_id == "pr/text_0-1" and found.score == 1.1  # 0.6 + 0.5 * 1
    weak = check_support("peter shoes", answer("pr/text_0-2"), CONTEXT, nlp, NoEncoding(), 0.9)
    assert not weak.supported and weak.score == 0.1 and weak.reason.startswith("Not supported by the document")


def test_an_answer_citing_nothing_retrieved_is_not_supported():
    for cited in (answer(), answer("pr/text_9-9")):
        found = check_support("peter shoes", cited, CONTEXT, nlp, NoEncoding())
        assert (found.supported, found.score) == (False, None) and "cites no retrieved sentence" in found.reason


def test_the_verdict_is_carried_by_the_answer():
    marked = with_support(answer("pr/text_0-1"), check_support("peter shoes", answer("pr/text_0-1"), CONTEXT, nlp,
                                                                NoEncoding(), 0.9))
    assert (marked.supported, marked.support_score) == (True, 1.1) and marked.to_dict()["supported"] is True
    assert unsupported(answer(), "no pair found").support_reason == "Not supported by the document: no pair found."
    assert Answer("x", "openai", "m").supported is None  # not checked


def test_calibration_refuses_a_tenth_of_the_dev_questions():
    scores = [0.5 + i / 100 for i in range(100)]
    threshold = calibrate(scores)
    assert sum(s < threshold for s in scores) <= 10
