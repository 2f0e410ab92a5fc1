"""Who wrote the document: which questions ask it, which lines answer it, and the verdict on an answer citing them
or not (no models: the check reads roles and ids)."""

from __future__ import annotations

import pytest

from kgcore.core.types import Answer, Citation, SelectedSentence
from kgcore.query.answer.authorship import asks_authors, author_answer, authorship_check


@pytest.mark.parametrize(("question", "asks"), [
    ("Who wrote the paper?", True), ("who authored this article", True), ("Who are the authors of the study?", True),
    ("Who is the author?", True), ("List the authors.", True), ("What are the names of the authors?", True),
    ("Who wrote to Anne?", False), ("Who wrote the letter?", False), ("Who wrote the paper on Raft?", False),
    ("Which authors does the paper cite?", False), ("", False),
])
def test_which_questions_ask_who_wrote_the_document(question, asks):
    assert asks_authors(question) is asks


CONTEXT = [SelectedSentence("p/text_0-1", 1, "Helen Marsh, University of St Andrews", "", role="authors"),
           SelectedSentence("p/text_0-5", 5, "The gauge was installed by the Fife Harbour Trust.", "", role="body")]


def test_the_author_lines_answer_and_a_body_sentence_does_not():
    answer = author_answer("Who wrote the paper?", CONTEXT, "extractive", "")
    assert answer is not None and answer.text == "Helen Marsh, University of St Andrews"
    assert authorship_check("Who wrote the paper?", answer, CONTEXT).state == "supported"
    body = Answer("The Fife Harbour Trust.", "openai", "m",
                  citations=[Citation("The Fife Harbour Trust.", ["p/text_0-5"], [1.0])])
    refused = authorship_check("Who wrote the paper?", body, CONTEXT)
    assert refused.state == "not supported" and "cites none of its author lines" in refused.reason
    assert authorship_check("Who installed the gauge?", body, CONTEXT) is None  # another question: the usual check
    assert author_answer("Who wrote the paper?", CONTEXT[1:], "extractive", "") is None  # no author line retrieved
