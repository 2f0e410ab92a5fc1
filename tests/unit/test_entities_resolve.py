"""Entity resolution's pure logic: rules, blocking, guards, decisions stored by people, merge + split = nothing.

The index here is built by hand (no models): a few entity nodes with grounded sentences and chosen vectors, so
every cosine is known.  The real spaCy/MiniLM path is in tests/models/test_entities_models.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from kgcore.core.errors import InputError
from kgcore.core.graph import GroundedGraph
from kgcore.core.types import Node, Sentence
from kgcore.index.store.collection import CollectionManifest, DocumentEntry
from kgcore.index.store.in_memory import Index
from kgcore.index.store.manifest import Manifest
from kgcore.index.views.entities import decisions, rules
from kgcore.index.views.entities.blocking import candidate_pairs
from kgcore.index.views.entities.decisions import CONFIRMED, SPLIT, Merge, decide, read_human, record_human
from kgcore.index.views.entities.names import definitions
from kgcore.index.views.entities.outcome import Resolution, Thresholds
from kgcore.index.views.entities.resolve import (
    _may_meet,
    _Nodes,
    _nodes,
    build_groups,
    decision,
    merged_components,
    shared_names,
    with_thresholds,
)


def _index(tmp_path, nodes: dict[str, tuple[str, list[str]]]) -> Index:
    """An index of documents p1, p2 whose entity nodes are ``id -> (label, grounded sentence ids)``."""
    sids = sorted({s for _, grounded in nodes.values() for s in grounded}, key=lambda s: (s.split("/")[0], s))
    sentences = [Sentence(sid, 0, i, i, f"sentence {sid}", f"sentence {sid}", f"sentence {sid}", sid.split("/")[0])
                 for i, sid in enumerate(sids)]
    graph = GroundedGraph({n: Node(n, label, [label], "entity", grounded) for n, (label, grounded) in nodes.items()})
    docs = tuple(DocumentEntry(Manifest(d), d) for d in ("p1", "p2"))
    vectors = np.eye(max(len(nodes), len(sentences)), dtype=np.float32)
    return Index("shelf", tmp_path, CollectionManifest("shelf", docs), sentences, graph, list(graph.nodes),
                 vectors[:len(nodes)], vectors[:len(sentences)])


NODES = {"rag": ("RAG", ["p1/text_0-1", "p2/text_0-1"]),
         "p1/retrieval augmented generation": ("retrieval-augmented generation", ["p1/text_0-0"]),
         "llms": ("LLMs", ["p1/text_0-2"]), "llm": ("LLM", ["p2/text_0-2"]),
         "p1/father": ("father", ["p1/text_0-3"]), "p2/father": ("father", ["p2/text_0-3"])}


def _resolution(*merges: Merge) -> Resolution:
    return Resolution(tuple(merges), {}, "research")


def _groups(index, found, human=()):
    return {tuple(g.node_ids) for g in build_groups(index, found, list(human))}


@pytest.mark.parametrize("a, b, rule", [
    ("RAG", "Retrieval-Augmented Generation", rules.ACRONYM),
    ("LLMs", "LLM", rules.PLURAL),
    ("Mr. McGregor", "McGregor", rules.HONORIFIC),
    ("Dense Passage Retriver", "Dense Passage Retriever", rules.FUZZY),
    ("RAG-Tok", "RAG-Token", rules.ABBREVIATION),
    ("HotpotQA", "HotpotQA dataset", rules.GENERIC_HEAD),
])
def test_each_rule_fires_on_its_case(a, b, rule):
    defined = definitions(["We use Retrieval-Augmented Generation (RAG) throughout."])
    assert rules.name_rules(a, b, defined)[0][0] == rule


@pytest.mark.parametrize("a, b", [
    ("GPT-3", "GPT-4"), ("Mr. McGregor", "Mrs. McGregor"), ("BERT", "BERT-base"), ("Peter", "Petra"),
    ("Appendix B", "Appendix E"), ("language model", "language modeling"), ("possible", "impossible"),
    ("luck", "-luck"), ("Retro", "Retro++"), ("CHAPTER XIII", "CHAPTER XVII"),
])
def test_hard_negatives_match_no_rule_that_merges_alone(a, b):
    found = [r for r, _ in rules.name_rules(a, b, {})]
    assert not set(found) & set(rules.STRONG) and rules.FUZZY not in found


def test_fuzzy_matching_never_applies_to_short_names_and_scales_with_length():
    assert rules.fuzzy("BERT", "BART") is None  # 4 characters: never, whatever the distance
    assert rules.fuzzy("Contriever", "Contriver") is not None  # 1 edit on 10 characters
    assert rules.fuzzy("Transformer", "Transfomers") is not None  # 2 edits on 11 characters
    assert rules.fuzzy("Natural Questions", "Natural Quest") is None  # 4 edits: more than the QA-pair graph method's 3


def test_acronyms_are_learned_from_the_text_in_both_orders():
    found = definitions(["Retrieval-Augmented Generation (RAG) is popular.", "We ask LLMs (large language models).",
                         "KILT (Knowledge Intensive Language Tasks) is a benchmark."])
    assert found == {"rag": {"retrieval augmented generation"}, "llm": {"large language model"},
                     "kilt": {"knowledge intensive language task"}}


def test_blocking_never_compares_all_pairs():
    rng = np.random.default_rng(13)
    words = ["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), 7)) for _ in range(600)]
    names = [f"{words[2 * i]} {words[2 * i + 1]}" for i in range(300)] + ["RAG", "retrieval augmented generation"]
    pairs = candidate_pairs(names, {"rag": {"retrieval augmented generation"}})
    assert (300, 301) in pairs
    assert len(pairs) < 300 * 301 / 2 / 100  # far fewer than all pairs


def test_common_nouns_never_meet_across_documents_and_meet_names_only_in_their_documents(tmp_path):
    nodes = _Nodes(["p1/father", "p2/father", "peter", "p1/rabbit"], ["father", "father", "Peter", "rabbit"], [[]] * 4,
                   [False, False, True, False], [frozenset({"p1"}), frozenset({"p2"}), frozenset({"p1", "p2"}),
                                                 frozenset({"p1"})], np.eye(4), np.eye(4))
    assert not _may_meet(nodes, 0, 1)       # two novels' fathers
    assert _may_meet(nodes, 3, 2)           # a common noun of p1 and a name p1 holds
    assert _may_meet(nodes, 0, 3)           # two common nouns of one document


def test_same_name_with_disjoint_contexts_stays_apart_and_is_flagged():
    th = Thresholds(merge_at=0.6, apart_below=0.2)
    assert decision(rules.EXACT, {"cosine": 0.5, "context": 0.1}, th) == (False, decisions.SAME_NAME_APART)
    assert decision(rules.EXACT, {"cosine": 0.9, "context": 0.8}, th) == (True, "")
    assert decision(rules.FUZZY, {"cosine": 0.59, "context": 0.9}, th)[0] is False
    assert decision(rules.ACRONYM, {"cosine": 0.1, "context": 0.1, "types": 0.0}, th) == (False, "")


def test_thresholds_redecide_the_same_scores():
    m = Merge("a", "b", rules.FUZZY, ((rules.FUZZY, 0.9), ("cosine", 0.7), ("context", 0.5)), merged=False)
    found = Resolution((m,), {}, "research", thresholds=Thresholds(0.8, 0.2))
    assert with_thresholds(found, Thresholds(0.65, 0.2)).candidates[0].merged
    assert not with_thresholds(found, Thresholds(0.75, 0.2)).candidates[0].merged


def test_groups_union_grounding_in_reading_order_with_the_rule_of_each_alias(tmp_path):
    index = _index(tmp_path, NODES)
    found = _resolution(Merge("p1/retrieval augmented generation", "rag", rules.ACRONYM, ((rules.ACRONYM, 1.0),)),
                        Merge("llms", "llm", rules.PLURAL, ((rules.PLURAL, 1.0), ("cosine", 0.8))))
    groups = {g.entity_id: g for g in build_groups(index, found, [])}
    rag = groups["rag"]
    assert rag.node_ids == ("rag", "p1/retrieval augmented generation")  # the most grounded member first
    assert rag.grounded_texts == ("p1/text_0-0", "p1/text_0-1", "p2/text_0-1")
    assert rag.documents == ("p1", "p2")
    assert [(a.name, a.rule) for a in rag.aliases] == [("RAG", "canonical"),
                                                         ("retrieval-augmented generation", rules.ACRONYM)]
    assert "p1/father" in groups and "p2/father" in groups  # untouched nodes stay their own entity
    assert sum(g.size for g in groups.values()) == len(NODES)


def test_confirm_then_split_restores_the_groups_and_grounding_exactly(tmp_path):
    index = _index(tmp_path, NODES)
    found = _resolution(Merge("llms", "llm", rules.PLURAL, ((rules.PLURAL, 1.0),)))
    before = build_groups(index, found, [])
    confirmed = decide(Merge("rag", "llm", "manual", (), merged=False), CONFIRMED, "ann")
    merged = build_groups(index, found, [confirmed])
    assert {tuple(sorted(g.node_ids)) for g in merged} >= {("llm", "llms", "rag")}
    record_human(tmp_path, confirmed)
    record_human(tmp_path, decide(confirmed, SPLIT, "bob"))  # the latest decision on a pair wins
    after = build_groups(index, found, read_human(tmp_path))
    assert after == before


def test_a_split_also_cuts_a_chain_of_merges(tmp_path):
    index = _index(tmp_path, NODES)
    found = _resolution(Merge("llms", "llm", rules.PLURAL, ((rules.PLURAL, 1.0), ("cosine", 0.9))),
                        Merge("llm", "rag", rules.FUZZY, ((rules.FUZZY, 0.8), ("cosine", 0.7))))
    assert ("llm", "llms", "rag") in {tuple(sorted(g)) for g in _groups(index, found)}
    split = decide(Merge("llms", "rag", "manual", (), merged=False), SPLIT, "ann")
    groups = {tuple(sorted(g)) for g in _groups(index, found, [split])}
    assert not any({"llms", "rag"} <= set(g) for g in groups)


def test_people_decisions_are_stored_apart_atomically_and_skip_vanished_nodes(tmp_path):
    index = _index(tmp_path, NODES)
    record_human(tmp_path, decide(Merge("rag", "llm", "manual", ()), CONFIRMED, "ann"))
    record_human(tmp_path, decide(Merge("rag", "gone-node", "manual", ()), CONFIRMED, "ann"))
    data = json.loads((tmp_path / decisions.HUMAN_FILE).read_text())
    assert [d["reviewer"] for d in data["decisions"]] == ["ann", "ann"] and not list(tmp_path.glob("*.tmp"))
    groups = build_groups(index, _resolution(), read_human(tmp_path))
    assert ("llm", "rag") in {tuple(sorted(g.node_ids)) for g in groups}
    assert all("gone-node" not in g.node_ids for g in groups)


def test_a_decision_needs_a_reviewer_and_a_real_status(tmp_path):
    with pytest.raises(InputError, match="reviewer"):
        decide(Merge("a", "b", "manual", ()), CONFIRMED, " ")
    with pytest.raises(InputError, match="status"):
        decide(Merge("a", "b", "manual", ()), "maybe", "ann")
    (tmp_path / decisions.HUMAN_FILE).write_text("{not json")
    with pytest.raises(InputError, match="entity decisions"):
        read_human(tmp_path)


def test_a_name_never_joins_two_documents_common_nouns_and_the_fast_components_agree(tmp_path):
    index = _index(tmp_path, NODES)
    found = Resolution((Merge("p1/father", "rag", rules.EXACT, (("cosine", 0.9),)),
                        Merge("p2/father", "rag", rules.EXACT, (("cosine", 0.8),)),
                        Merge("llms", "llm", rules.PLURAL, (("cosine", 0.7),))), {}, "narrative",
                       common={"p1/father": "p1", "p2/father": "p2"})
    groups = _groups(index, found)
    assert ("p1/father", "rag") in {tuple(sorted(g)) for g in groups}  # the best-scored one joins ...
    assert ("p2/father",) in groups  # ... the other document's father stays alone
    fast = merged_components(found)
    for g in groups:
        assert len({fast.get(n, n) for n in g}) == 1
    assert len({fast.get(n, n) for n in NODES}) == len(groups)
    confirmed = decide(Merge("p2/father", "rag", rules.EXACT, ()), CONFIRMED, "ann")
    decided = {tuple(sorted(g)) for g in _groups(index, found, [confirmed])}
    assert {("p2/father", "rag"), ("p1/father",)} <= decided  # a person's merge goes first; the guard still holds


def test_a_shared_name_used_in_disjoint_contexts_is_flagged(tmp_path):
    index = _index(tmp_path, NODES)  # every sentence vector is orthogonal to the others: contexts share nothing
    nodes = _nodes(index, {})
    flagged = shared_names(index, nodes, Thresholds(0.6, 0.2))
    assert [(s.node_id, s.documents) for s in flagged] == [("rag", ("p1", "p2"))]
    assert flagged[0].cosine == pytest.approx(0.0)
    assert not shared_names(index, nodes, Thresholds(0.6, -0.5))
