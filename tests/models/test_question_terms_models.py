"""What the question's words weigh in the answer pick and the verdict, with the real spaCy pipeline: a noun weighs
more than its possessor and adjectives."""

from __future__ import annotations

import pytest

from kgcore.query.answer.words import question_term_weights


@pytest.mark.parametrize(("question", "weights"), [
    ("What happened to the young rabbits' father?", {"father": 1.0, "rabbit": 0.5, "young": 0.25}),
    ("Who was the current resident of the house?", {"current": 0.5, "resident": 1.0, "house": 1.0}),
    ("What is Judge Pyncheon looking for?", {"judge": 1.0, "pyncheon": 1.0, "look": 2.0}),  # a compound: a name
])
def test_a_noun_weighs_more_than_its_possessor_and_adjectives(nlp, question, weights):
    assert question_term_weights(nlp(question)) == weights
