"""Pure tests of the QA-pair views (``ui.qa_view``; no streamlit runtime, no models): escaping of every document
string, the same grouping and confidence as the ``qa-kg`` answerer, pairs under their frame, pairs about an entity."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

from kgcore.core.qa_pair import QAPair
from kgcore.core.types import Argument, Frame
from kgcore.query.answer.short import confidence, group_answers
from kgcore.query.qakg.graph import QAGraph
from kgcore.query.rerank import Candidate
from ui.markup_html import WORD_JOINER
from ui.qa_pairs_view import entity_pairs, entity_pairs_html, frame_groups, sentence_pairs_html
from ui.qa_view import distinct_answers, ranked_pairs_html, score_confidence, short_answers_html

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"


def test_doctests():
    results = [doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
               for name in ("ui.qa_view", "ui.qa_pairs_view")]
    assert all(r.attempted for r in results) and sum(r.attempted for r in results) >= 15
    assert not any(r.failed for r in results)


def _item(**extra) -> dict:
    return {"answer": f"Peter {SCRIPT}", "question": f"Who hid {IMG}?", "sentence_id": 'd/text_0-1"><b>',
            "wh": "who", "answer_type": f"person{SCRIPT}", "role": "ARG0", "predicate": f"hide{IMG}", "score": 1.1,
            "features": {"similarity": 0.9, "fuzzy": 0.5, "type_level": 0.8},
            "why": {"fuzzy": {"mention": IMG, "label": SCRIPT, "distance": 2}, "type": {"type": IMG, "entity": SCRIPT}},
            **extra}


@pytest.mark.parametrize("html", [
    short_answers_html([_item()], "shelf", {'d/text_0-1"><b>': 1}),
    ranked_pairs_html([_item(), _item(sentence_ids=[SCRIPT])], f"shelf{SCRIPT}", {}),
])
def test_answers_and_pairs_escape_document_text(html):
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_streamlit_directives_in_document_text_cannot_form():
    html = short_answers_html([_item(answer=":red[alarm] :material/home:")], "shelf", {})
    assert ":red[" not in html and ":material/" not in html and ":&#8288;red[alarm]" in html
    assert WORD_JOINER not in html  # HTML blocks get the entity, not the raw character


def test_frames_and_entity_pairs_escape_document_text():
    frame = Frame(f"hide{SCRIPT}", f"hid{IMG}", (Argument("ARG1", SCRIPT, "x", "x", 5, 10),))
    pair = QAPair("d/text_0-1#q0", f"What did Peter hide {IMG}?", SCRIPT, "d/text_0-1", "what", "thing", "ARG1",
                  frame.predicate, f"Peter hid {SCRIPT}.")
    for html in (sentence_pairs_html(frame_groups([pair], [frame])),
                 entity_pairs_html([(pair, "question")], "shelf", [SCRIPT, "Peter"])):
        assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html


def _candidates() -> list[Candidate]:
    answers = [("Peter", "d/t_0-1"), ("a pie", "d/t_0-2"), ("peter", "d/t_0-5"), ("the gate", "d/t_0-3"),
               ("Peter", "d/t_0-1"), ("the wood", "d/t_0-4"), ("cabbages", "d/t_0-6"), ("a rake", "d/t_0-7"),
               ("the gate", "d/t_0-8")]
    out = []
    for n, (answer, sid) in enumerate(answers):
        c = Candidate(n, QAPair(f"{sid}#q{n}", f"Question {n}?", answer, sid, "what", "thing"), score=2.0 - n / 10)
        out.append(c)
    return out


def test_distinct_answers_group_like_the_answerer():
    ranked = _candidates()
    theirs = group_answers(ranked)
    ours = distinct_answers([c.to_dict() for c in ranked])
    assert [(a["answer"], a["sentence_ids"]) for a in ours] == [(a["answer"], a["sentence_ids"]) for a in theirs]
    assert len(ours) == 5 and ours[0]["sentence_ids"] == ["d/t_0-1", "d/t_0-5"]


def test_score_confidence_is_the_answerers_mapping():
    for score in np.linspace(-1.0, 3.0, 41):
        assert score_confidence(float(score)) == round(confidence(float(score)), 3)  # as Answer.confidence stores it


def test_entity_pairs_scope_common_nouns_to_their_document_and_share_names():
    pairs = [QAPair("a/t_0-1#q0", "Who fed the cat?", "Peter", "a/t_0-1", "who", "person", "ARG0", "feed",
                    entities=[("cat", "cat")], answer_entities=[("peter", "Peter")]),
             QAPair("b/t_0-1#q0", "Whom did the cat see?", "Peter", "b/t_0-1", "whom", "person", "ARG1", "see",
                    entities=[("cat", "cat")], answer_entities=[("peter", "Peter")]),
             QAPair("b/t_0-2#q0", "Who saw Peter and the cat?", "the cat", "b/t_0-2", "who", "thing", "ARG0", "see",
                    entities=[("peter", "Peter"), ("cat", "cat")], answer_entities=[("cat", "cat")])]
    graph = QAGraph(pairs, np.zeros((3, 2)), np.zeros((3, 2)), np.arange(3),
                    entity_pairs={"cat": [0, 1, 2], "peter": [0, 1, 2]})
    assert entity_pairs(graph, ["peter"]) == [(0, "answer"), (1, "answer"), (2, "question")]
    assert entity_pairs(graph, ["b/cat"]) == [(1, "question"), (2, "question and answer")]
    assert entity_pairs(graph, ["a/cat", "c/cat"]) == [(0, "question")]
    assert entity_pairs(graph, ["cat"]) == [(0, "question"), (1, "question"), (2, "question and answer")]  # unscoped
    assert entity_pairs(graph, ["nobody"]) == []


def test_action_pairs_find_their_frame_among_frames_of_one_predicate():
    first = Frame("go", "went", (Argument("ARG4", "to the wood", "wood", "wood"),), start=5)
    second = Frame("go", "went", (Argument("ARG4", "to the baker's", "baker", "baker"),), start=40)
    action = QAPair("d/t#q0", "What did Mrs. Rabbit do then?", "went to the baker's", "d/t", "what", "action", "V",
                    "go")
    place = QAPair("d/t#q1", "Where did Mrs. Rabbit go?", "to the baker's", "d/t", "where", "place", "ARG4", "go")
    groups = frame_groups([action, place], [first, second])
    assert [(f.start, [p.id for p in ps]) for f, ps in groups] == [(40, ["d/t#q0", "d/t#q1"])]
