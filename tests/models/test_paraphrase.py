"""A question's verb said in other words counts as held, with the real models (spaCy, MiniLM)."""

from __future__ import annotations

import pytest

from kgcore.core.types import SelectedSentence
from kgcore.query.answer.paraphrase import PARAPHRASE_MIN, paraphrased_verbs, question_verbs, verbs
from kgcore.query.answer.select import Question, score_sentences


@pytest.fixture(scope="module")
def nlp():
    from kgcore.core.nlp import load_spacy

    return load_spacy()


@pytest.fixture(scope="module")
def embedder():
    from kgcore.core.embed import get_embedder

    return get_embedder()


def test_a_close_verb_says_the_question_verb_and_an_unrelated_one_does_not(nlp, embedder):
    held = [verbs(nlp("Anne heard the news from Diana.")), verbs(nlp("Anne ate the cake.")),
            verbs(nlp("Diana told Anne the news."))]
    assert held[0] == {"hear"}
    said = paraphrased_verbs(["tell"], held, embedder)
    assert said == [{"tell": "hear"}, {}, {}]  # the third holds "tell" itself
    assert paraphrased_verbs(["tell"], held, embedder, minimum=0.99) == [{}, {}, {}]
    assert 0 < PARAPHRASE_MIN < 1


def test_light_verbs_are_never_compared(nlp):
    assert verbs(nlp("She had gone home and made tea.")) == set()
    q_doc = nlp("Who told Anne about the party?")
    assert question_verbs(q_doc, {"tell": 2.0, "anne": 1.0, "party": 1.0}) == ["tell"]


def test_the_scorer_counts_a_paraphrased_verb_among_the_words_a_sentence_holds(nlp, embedder):
    question = "Who told Anne about the party?"
    context = [SelectedSentence("s1", 1, "Anne heard about the party from Diana.", ""),
               SelectedSentence("s2", 2, "Anne baked a cake for the party.", "")]
    scored = {s.sentence.id: s for s in score_sentences(question, Question.parse(question, nlp), context, nlp,
                                                        embedder)}
    assert "tell" in scored["s1"].matched and "tell" not in scored["s2"].matched
    assert scored["s1"].overlap == 1.0 and scored["s2"].overlap < 1.0
