"""Entity types and relation types: the pure parts (patterns, type sets, zero-shot arithmetic, relation rules).

Typing with the real spaCy and MiniLM is in tests/models/test_entities_models.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from kgcore.core.errors import InputError
from kgcore.core.graph import GroundedGraph
from kgcore.core.types import Edge, Node
from kgcore.index.views.entities import relations, types
from kgcore.index.views.entities.types import NARRATIVE, REGULATORY, RESEARCH


@pytest.mark.parametrize("name, type_set, expected", [
    ("Natural Questions", RESEARCH, "dataset"), ("LongBench", RESEARCH, "dataset"),
    ("exact match", RESEARCH, "metric"), ("F1", RESEARCH, "metric"), ("GPT-4", RESEARCH, "model"),
    ("Llama2-7B", RESEARCH, "model"), ("x_i", RESEARCH, "variable"), ("p(y|x)", RESEARCH, "equation"),
    ("query rewriting", RESEARCH, "method"), ("question answering", RESEARCH, "topic"),
    ("Mrs. McGregor", NARRATIVE, "person"), ("the cucumber garden", NARRATIVE, "place"),
    ("mother", NARRATIVE, "person"), ("the old sailors", NARRATIVE, "person"), ("family", NARRATIVE, None),
    ("mother", RESEARCH, None), ("father", REGULATORY, None),
    ("Rule 3.2.1", REGULATORY, "rule"), ("Schedule 1", REGULATORY, "regulation"), ("US Dollars", REGULATORY,
                                                                                   "financial instrument"),
    ("RAG", RESEARCH, None), ("team", RESEARCH, None), ("Peter", NARRATIVE, None),
])
def test_patterns(name, type_set, expected):
    assert types.pattern_type(name, type_set) == expected


def test_the_type_set_follows_the_documents_kind_unless_declared(tmp_path):
    assert types.choose_type_set(["a.pdf", "b.PDF", "c.txt"]) is RESEARCH
    assert types.choose_type_set(["crusoe.txt", "a.pdf"]) is NARRATIVE
    assert types.choose_type_set([]) is NARRATIVE
    (tmp_path / types.DECLARED_FILE).write_text(json.dumps({"name": "law", "types": {"rule": "a rule", "court": ""}}))
    declared = types.read_declared(tmp_path)
    assert declared is not None and declared.types == ("rule", "court") and declared.descriptions["court"] == "court"
    assert types.choose_type_set(["a.pdf"], declared) is declared
    (tmp_path / types.DECLARED_FILE).write_text(json.dumps({"types": ["regulation", "rule"]}))
    assert types.read_declared(tmp_path).types == ("regulation", "rule")
    (tmp_path / types.DECLARED_FILE).write_text(json.dumps({"types": []}))
    with pytest.raises(InputError, match="declares no entity types"):
        types.read_declared(tmp_path)
    assert types.read_declared(tmp_path / "elsewhere") is None


def test_zero_shot_picks_the_closest_description_with_a_confidence_below_patterns():
    found = types.zero_shot(np.array([[0.9, 0.1, 0.0], [0.0, 0.2, 0.9]]), np.eye(3), ["a", "b", "c"])
    assert [t for t, _ in found] == ["a", "c"]
    assert all(0 < c <= types.ZERO_SHOT_SCALE < types.NER_CONFIDENCE < types.PATTERN_CONFIDENCE for _, c in found)


def test_common_nouns_and_names_choose_among_different_types():
    assert "person" not in types.candidate_types(NARRATIVE, named=False)
    assert set(types.candidate_types(RESEARCH, named=True)) >= {"person", "model", "dataset", "method"}
    assert types.candidate_types(RESEARCH, named=False) == ("concept",)


def test_cited_authors_are_people():
    assert types.cited_author("Zaragoza", "BM25 (Robertson and Zaragoza, 2009) matches keywords")
    assert types.cited_author("Cho", "as shown by Cho et al. in their work")
    assert not types.cited_author("BM25", "BM25 (Robertson and Zaragoza, 2009) matches keywords")


def test_ner_majority_needs_half_the_sentences():
    assert types.majority(["place", "place", None]) == "place"
    assert types.majority(["person", "organisation", None, None]) is None


def _graph(predicate: str, roles: dict[str, str]) -> GroundedGraph:
    nodes = {"p/act_0": Node("p/act_0", predicate, [predicate], "action", ["p/text_0-4"])}
    edges = []
    for role, name in roles.items():
        nodes[name] = Node(name, name, [name], "entity", ["p/text_0-4"])
        edges.append(Edge("p/act_0", name, role, "action-entity", ["p/text_0-4"]))
    return GroundedGraph(nodes, edges)


@pytest.mark.parametrize("predicate, roles, kinds, expected", [
    ("outperform", {"ARG0": "RAG", "ARG1": "BART"}, {}, ("RAG", "BART", relations.RESULT)),
    ("evaluate", {"ARG1": "RAG", "ARGM-LOC": "NQ"}, {"NQ": "dataset"}, ("RAG", "NQ", relations.RESULT)),
    ("use", {"ARG0": "RAG", "ARG1": "beam search"}, {"beam search": "method"}, ("RAG", "beam search",
                                                                                relations.METHODOLOGY)),
    ("employ", {"ARG0": "RAG", "ARG1": "DPR"}, {"DPR": "model"}, ("RAG", "DPR", relations.TOOL)),
    ("train", {"ARG1": "DPR", "on": "NQ"}, {}, ("DPR", "NQ", relations.TOOL)),
])
def test_research_relations_follow_the_predicate(predicate, roles, kinds, expected):
    graph = _graph(predicate, roles)
    found = relations.frame_relations(graph, {n: n for n in roles.values()}, kinds, research=True)
    assert [(r.source, r.target, r.relation_type) for r in found] == [expected]
    assert found[0].grounded_texts == ("p/text_0-4",) and found[0].action == "p/act_0"


def test_no_relation_from_pronouns_negations_or_other_predicates():
    assert not relations.frame_relations(_graph("use", {"ARG0": "we", "ARG1": "DPR"}), {"we": "we", "DPR": "DPR"},
                                         {}, research=True)
    assert not relations.frame_relations(_graph("not use", {"ARG0": "RAG", "ARG1": "DPR"}),
                                         {"RAG": "RAG", "DPR": "DPR"}, {}, research=True)
    assert not relations.frame_relations(_graph("sing", {"ARG0": "RAG", "ARG1": "DPR"}),
                                         {"RAG": "RAG", "DPR": "DPR"}, {}, research=True)


def test_narrative_relations_keep_their_srl_roles():
    graph = _graph("give", {"ARG0": "Mrs. Rabbit", "ARG1": "tea", "ARG2": "Peter"})
    found = relations.frame_relations(graph, {n: n for n in ("Mrs. Rabbit", "tea", "Peter")}, {}, research=False)
    assert {(r.source, r.roles, r.target) for r in found} == {
        ("Mrs. Rabbit", ("ARG0", "ARG1"), "tea"), ("Mrs. Rabbit", ("ARG0", "ARG2"), "Peter"),
        ("tea", ("ARG1", "ARG2"), "Peter")}
    assert {r.relation_type for r in found} == {relations.SRL} and {r.predicate for r in found} == {"give"}
