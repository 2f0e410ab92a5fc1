"""Soft alignment of query graphs onto sentences of the real Peter Rabbit index."""

from __future__ import annotations

from kgcore.core.settings import RetrievalOptions
from kgcore.query.align import MIN_REPORTED_EVIDENCE
from paths import PETER_ID


def test_every_reported_alignment_is_grounded_in_its_sentence(engine, peter_index):
    for question in ("Where did Peter hide in the tool-shed?", "What did Mrs. Rabbit buy at the baker's?"):
        result = engine.retrieve(PETER_ID, question, RetrievalOptions(budget_words=300))
        assert result.sentences and any(s.aligned for s in result.sentences)
        query_keys = {n.key for n in result.query_graph.nodes}
        for s in result.sentences:
            for a in s.aligned:
                assert s.id in peter_index.graph.nodes[a["node_id"]].grounded_texts
                assert a["query_node"] in query_keys and a["evidence"] >= MIN_REPORTED_EVIDENCE


def test_hiding_question_aligns_its_structure_in_the_answering_sentence(engine, peter_index):
    result = engine.retrieve(PETER_ID, "Where did Peter hide in the tool-shed?", RetrievalOptions(budget_sentences=1))
    (top,) = result.sentences
    assert "hidden underneath a flower-pot" in top.text
    labels = {n.key: n.label for n in result.query_graph.nodes}
    by_query = {labels[a["query_node"]]: a for a in top.aligned}
    assert by_query["hide"]["label"] == "hide" and "Peter" in [labels[q] for q in by_query["hide"]["linked"]]
    assert by_query["tool-shed"]["label"] == "tool-shed"


def test_pie_sentence_aligns_the_father(engine):
    result = engine.retrieve(
        PETER_ID, "What happened to the young rabbits' father?", RetrievalOptions(budget_words=200)
    )
    (pie,) = [s for s in result.sentences if "put in a pie" in s.text]
    labels = {n.key: n.label for n in result.query_graph.nodes}
    assert any(labels[a["query_node"]] == "father" and a["label"] == "father" for a in pie.aligned)
