"""Soft alignment of query graphs onto sentences: pure logic on a tiny hand-made index."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgcore.core.graph import GroundedGraph
from kgcore.core.types import Edge, Node, Sentence
from kgcore.index.store.disk import Index
from kgcore.index.store.manifest import Manifest
from kgcore.query.align import MIN_REPORTED_EVIDENCE, align, aligned_nodes, incidence, node_evidence

AXES = {"make": 0, "crusoe": 1, "umbrella": 2, "sun": 3}


def unit(*weights: tuple[str, float]) -> np.ndarray:
    v = np.zeros(len(AXES))
    for axis, w in weights:
        v[AXES[axis]] = w
    return v / np.linalg.norm(v)


def tiny_index() -> Index:
    """Three sentences: s0 "Crusoe made an umbrella", s1 "Crusoe made a fire" (make linked
    to Crusoe too), s2 "the sun" with a make node that is NOT linked to Crusoe."""
    sentences = [Sentence(f"t_0-{i}", 0, i, i, text, text, text) for i, text in
                 enumerate(["Crusoe made an umbrella.", "Crusoe made a fire.", "He saw the sun and made nothing."])]
    nodes = {
        "crusoe": Node("crusoe", "Crusoe", ["Crusoe"], "entity", ["t_0-0", "t_0-1", "t_0-2"]),
        "umbrella": Node("umbrella", "umbrella", ["an umbrella"], "entity", ["t_0-0"]),
        "sun": Node("sun", "sun", ["the sun"], "entity", ["t_0-2"]),
        "make_0": Node("make_0", "make", ["made an umbrella"], "action", ["t_0-0"]),
        "make_1": Node("make_1", "make", ["made a fire"], "action", ["t_0-1"]),
        "make_2": Node("make_2", "make", ["made nothing"], "action", ["t_0-2"]),
    }
    edges = [Edge("make_0", "crusoe", "ARG0", "action-entity", ["t_0-0"]),
             Edge("make_0", "umbrella", "ARG1", "action-entity", ["t_0-0"]),
             Edge("make_1", "crusoe", "ARG0", "action-entity", ["t_0-1"])]
    vectors = {"crusoe": unit(("crusoe", 1)), "umbrella": unit(("umbrella", 1)), "sun": unit(("sun", 1)),
               "make_0": unit(("make", 1), ("umbrella", 0.3)), "make_1": unit(("make", 1)),
               "make_2": unit(("make", 1), ("sun", 0.2))}
    node_ids = list(nodes)
    return Index("tiny", Path("."), Manifest("tiny"), sentences, GroundedGraph(nodes, edges), node_ids,
                 np.array([vectors[n] for n in node_ids], dtype=np.float32), np.zeros((3, len(AXES)), dtype=np.float32))


def masks(index: Index, *types: str) -> list[np.ndarray]:
    """The rows each query node may align to: graph nodes of its type."""
    node_types = np.array([index.graph.nodes[n].node_type for n in index.node_ids])
    return [node_types == t for t in types]


def test_incidence_lists_each_sentences_nodes_and_edges():
    index = tiny_index()
    inc = incidence(index)
    assert inc is incidence(index)  # cached
    assert inc.segment_sentences.tolist() == [0, 1, 2]
    assert len(inc.node_rows) == sum(len(n.grounded_texts) for n in index.graph.nodes.values())
    assert inc.edges[:, 0].tolist() == sorted(inc.edges[:, 0].tolist()) and len(inc.edges) == 3
    # the entity in every sentence is the least specific node
    assert inc.specificity[index.node_ids.index("crusoe")] < inc.specificity[index.node_ids.index("umbrella")]


def test_an_action_is_as_specific_as_its_verb_not_its_occurrence(monkeypatch):
    """Each "make" is its own node grounded in one sentence, but the verb is in every sentence: counted by label it is
    as unspecific as Crusoe, who is in every sentence too, and less specific than the umbrella; by node (the old
    count) each occurrence looked as rare as the umbrella, so a question's common verb aligned at full weight."""
    from kgcore.query import align as align_module

    index = tiny_index()
    spec = dict(zip(index.node_ids, incidence(index).specificity))
    assert spec["make_0"] == spec["make_1"] == spec["make_2"] == pytest.approx(spec["crusoe"])
    assert spec["make_0"] < spec["umbrella"]
    query = np.array([unit(("make", 1)), unit(("umbrella", 1))])
    by_label = align(index, query, masks(index, "action", "entity"), [], w_structure=1.0)
    # the verb found everywhere adds less than the rare entity found once
    assert by_label.coverage[0, 1] < by_label.coverage[1, 0]

    monkeypatch.setattr(align_module, "ACTION_SPECIFICITY", "node")
    old = incidence(tiny_index())  # a fresh index: the incidence is cached per index
    assert dict(zip(index.node_ids, old.specificity))["make_1"] == pytest.approx(spec["umbrella"])


def test_coverage_takes_each_sentences_best_node_of_the_right_type():
    index = tiny_index()
    query = np.array([unit(("make", 1)), unit(("umbrella", 1))])
    result = align(index, query, masks(index, "action", "entity"), [], w_structure=1.0)
    assert result.coverage.shape == (2, 3)
    # every sentence has a "make" action: coverage of the action query node is positive everywhere
    assert (result.coverage[0] > 0).all()
    # only s0 holds the umbrella entity; make_0 ("made an umbrella") is an action and may not stand in for it
    assert result.coverage[1, 0] > 0 and result.coverage[1, 1] == 0 and result.coverage[1, 2] == 0
    assert result.graph.argmax() == 0


def test_structure_counts_query_edges_that_recur_in_the_sentence_either_way():
    index = tiny_index()
    query = np.array([unit(("make", 1)), unit(("crusoe", 1))])
    # query edge written crusoe -> make; the graph edge runs make -> crusoe
    flat = align(index, query, masks(index, "action", "entity"), [], w_structure=1.0)
    linked = align(index, query, masks(index, "action", "entity"), [(1, 0)], w_structure=1.0)
    assert flat.structure.sum() == 0
    assert linked.structure[0] > 0 and linked.structure[1] > 0
    assert linked.structure[2] == 0  # make_2 and Crusoe are both in s2 but not linked there
    assert np.allclose(linked.graph - flat.graph, linked.structure)


def test_aligned_nodes_explain_a_sentence():
    index = tiny_index()
    query = np.array([unit(("make", 1)), unit(("crusoe", 1)), unit(("sun", 1))])
    result = align(index, query, masks(index, "action", "entity", "entity"), [(0, 1)], w_structure=1.0)
    reasons = {a["query_node"]: a for a in aligned_nodes(index, result, 1, ["q_make", "q_crusoe", "q_sun"], [(0, 1)])}
    assert reasons["q_make"]["node_id"] == "make_1" and reasons["q_make"]["linked"] == ["q_crusoe"]
    assert reasons["q_crusoe"]["linked"] == ["q_make"]
    assert "q_sun" not in reasons  # no sun in s1: nothing to report
    assert all(a["evidence"] >= MIN_REPORTED_EVIDENCE for a in reasons.values())
    in_s2 = {a["query_node"]: a for a in aligned_nodes(index, result, 2, ["q_make", "q_crusoe", "q_sun"], [(0, 1)])}
    assert in_s2["q_make"]["linked"] == [] and in_s2["q_sun"]["node_id"] == "sun"


def test_node_evidence_prefers_the_best_match_and_ignores_noise():
    ev = node_evidence(np.array([[0.95, 0.85, 0.2]]), np.array([1.0, 1.0, 1.0]))
    assert ev[0, 0] > ev[0, 1] > 0 and ev[0, 2] == 0
    halved = node_evidence(np.array([[0.95, 0.85, 0.2]]), np.array([0.5, 1.0, 1.0]))
    assert halved[0, 0] == pytest.approx(ev[0, 0] / 2)


def test_a_masks_penalty_row_is_made_once_and_never_reused_for_another_mask():
    from kgcore.query import match

    mask = np.array([True, False, True])
    first = match.mask_penalties([mask, mask, None])
    again = match.mask_penalties([mask])
    assert first[0] is first[1] is again[0] and first[2] is None
    assert first[0].tolist() == [0.0, -np.inf, 0.0] and not first[0].flags.writeable
    other = np.array([False, True, True])  # another mask, even one made after the first is gone, gets its own row
    assert match.mask_penalties([other])[0].tolist() == [-np.inf, 0.0, 0.0]
    assert match.mask_penalties([mask], np.float64)[0].dtype == np.float64
    for _ in range(match.PENALTIES_KEPT + 5):
        match.mask_penalties([np.ones(2, dtype=bool)])
    assert len(match._PENALTIES) <= match.PENALTIES_KEPT


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("stride", [32, 10**9])  # the sampled threshold and the whole-row partition
def test_largest_rows_is_the_best_rows_with_the_lowest_at_ties(seed, stride, monkeypatch):
    from kgcore.query import match

    monkeypatch.setattr(match, "SAMPLE_STRIDE", stride)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2_000, 130_000))
    values = (np.round(rng.standard_normal(n) * 40) / 100).astype(np.float32)  # few distinct values: many ties
    values[rng.random(n) < rng.uniform(0.0, 0.9)] = -np.inf  # a type mask
    size = int(rng.integers(1, min(400, int(np.isfinite(values).sum()))))
    expected = np.sort(np.lexsort((np.arange(n), -values))[:size])  # best first, ties by row
    assert match.largest_rows(values, size).tolist() == expected.tolist()
