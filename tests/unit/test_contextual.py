"""The contextual graph's pure parts (cross-references, citations, merging, storage) and LeSeGR's propagation."""

import numpy as np
import pytest
from scipy import sparse

from kgcore.core.document import Reference
from kgcore.index.views import context_store, contextual, crossrefs
from kgcore.index.views.context_types import BIT, ContextGraph
from kgcore.query import fused, propagation
from kgcore.query.propagation import Signals


@pytest.mark.parametrize("text, expected", [
    ("See Section 3 and Sections 4.2.", [("section", "3"), ("section", "4.2")]),
    ("as in Table 2, Tab. 3 and Fig. 1b", [("table", "2"), ("table", "3")]),
    ("Rule 9.2.1 applies; Rules 3.4 too.", [("rule", "9.2.1"), ("rule", "3.4")]),
    ("The 3 sections of 2020 were long.", []),
])
def test_mentions(text, expected):
    assert crossrefs.mentions(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Table 2: Results on NQ.", ("table", "2")),
    ("Figure 10. The pipeline", ("figure", "10")),
    ("4.1 Training details", ("number", "4.1")),
    ("Appendix B.2 Prompts", ("number", "B.2")),
    ("2019 was a good year", None),
    ("Introduction", None),
])
def test_target_keys(text, expected):
    assert crossrefs.target_key(text) == expected


def test_an_ambiguous_part_links_nothing():
    many = {("number", "1"): list(range(crossrefs.MAX_TARGETS + 1))}
    assert crossrefs.resolve("section", "1", many) == []
    assert crossrefs.resolve("equation", "1", {("number", "1"): [4]}) == [4]


def test_citations_match_titles_and_arxiv_ids_but_never_the_citing_document():
    docs = [("a", "Dense Passage Retrieval for Open-Domain Question Answering", ""),
            ("b", "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", "2005.11401")]
    refs = {"r1": Reference("r1", "[1]", "", title="Dense passage retrieval for open domain question answering"),
            "r2": Reference("r2", "[2]", "", arxiv="2005.11401"),
            "r3": Reference("r3", "[3]", "", title="Attention is all you need")}
    citing = [(10, ["r1", "r3"]), (11, ["r2"]), (12, [])]
    assert crossrefs.citation_pairs(citing, refs, docs, own="z") == [(10, "a"), (11, "b")]
    assert crossrefs.citation_pairs(citing, refs, docs, own="a") == [(11, "b")]
    # a short title never matches by fuzz alone
    assert crossrefs.cited_documents(Reference("r", "[4]", "", title="BERT"), [("c", "BERT", "")]) == []


def test_merge_keeps_the_largest_weight_and_every_kind_symmetrically():
    rows, cols = np.array([0, 1, 0, 2]), np.array([1, 0, 2, 2])
    weights = np.array([0.5, 1.0, 0.3, 9.0], dtype=np.float32)
    bits = np.array([BIT["adjacent"], BIT["shared-node"], BIT["citation"], BIT["chunk"]])
    weight, kinds = contextual._merge(rows, cols, weights, bits, 3)
    dense = weight.toarray()
    assert dense[0, 1] == dense[1, 0] == 1.0 and dense[0, 2] == dense[2, 0] == pytest.approx(0.3)
    assert dense[2, 2] == 0  # no self loops
    assert kinds[0, 1] == kinds[1, 0] == BIT["adjacent"] | BIT["shared-node"]


def _graph(n=3, chunks=((0, 2), (2, 3))) -> ContextGraph:
    spans = np.array(chunks)
    size = n + len(spans)
    w = sparse.random(size, size, density=0.5, random_state=1, format="csr", dtype=np.float32)
    w = (w + w.T).tocsr()
    kinds = w.copy()
    kinds.data = np.full(len(kinds.data), BIT["adjacent"], dtype=np.int64)
    return ContextGraph(n, np.array([0, 0, 1]), spans, np.ones((len(spans), 4), np.float32), w, kinds, w.copy())


def test_stored_graph_round_trips_and_a_stale_or_damaged_file_is_ignored(tmp_path):
    cg, file = _graph(), tmp_path / context_store.STORED
    context_store.write(cg, file, "stamp-1")
    back = context_store.read(file, "stamp-1")
    assert back is not None and back.n_sentences == 3
    assert (back.weights != cg.weights).nnz == 0 and np.array_equal(back.chunk_spans, cg.chunk_spans)
    assert context_store.read(file, "stamp-2") is None
    file.write_bytes(b"not a zip")
    assert context_store.read(file, "stamp-1") is None
    assert not list(tmp_path.glob("*.tmp"))


def test_the_header_check_says_a_damaged_or_stale_stored_graph_is_not_stored(tmp_path):
    """The sharded engine's driver asks before building: a damaged file is "not stored" (it raised before)."""
    from types import SimpleNamespace

    manifest = SimpleNamespace(generation=1, stamp="stamp-1", counts=SimpleNamespace(sentences=3))
    file = tmp_path / "linked-1" / context_store.STORED
    file.parent.mkdir()
    assert not context_store.is_stored(tmp_path, manifest)
    context_store.write(_graph(), file, "stamp-1")
    assert context_store.is_stored(tmp_path, manifest) and context_store.stored_whole(tmp_path, manifest)
    assert not context_store.is_stored(tmp_path, SimpleNamespace(**{**vars(manifest), "stamp": "stamp-2"}))
    file.write_bytes(b"PK\x03\x04 a zip header, then nothing")  # zipfile.BadZipFile, not a ValueError
    assert not context_store.is_stored(tmp_path, manifest) and context_store.stored_whole(tmp_path, manifest) is None


def test_neighbours_are_heaviest_first_with_their_kinds():
    cg = _graph()
    found = contextual.neighbours(cg, 0)
    assert [n.weight for n in found] == sorted((n.weight for n in found), reverse=True)
    assert all(n.kinds == ("adjacent",) for n in found) and {n.node for n in found} == set(cg.weights[0].indices)


def test_propagation_without_neighbours_is_additive_fusion_for_both_aggregations():
    rng = np.random.default_rng(3)
    sig = Signals(rng.random(6), rng.random(6), rng.random(6), np.array([1, 1, 1, 0, 1, 1], bool))
    empty = sparse.csr_matrix((6, 6))
    for aggregation in ("add", "mean"):
        for layer in propagation.propagate(empty, sig, layers=3, aggregation=aggregation):
            assert np.allclose(layer, np.where(sig.scope, sig.sparse + sig.dense + sig.graph, 0))


def test_a_closed_gate_blocks_messages_and_out_of_scope_nodes_stay_zero():
    sig = Signals(np.array([0.0, 1.0, 1.0]), np.array([0.5, 0.5, 0.5]), np.zeros(3), np.array([1, 1, 0], bool))
    edges = sparse.csr_matrix(np.ones((3, 3)) - np.eye(3))
    final = propagation.propagate(edges, sig, layers=2)[-1]
    assert final[2] == 0.0  # outside the scope
    assert final[0] > 0.5  # node 1 (lexically relevant) lifts node 0
    assert final[1] == pytest.approx(1.5)  # node 0's gate (its sparse relevance 0) is closed
    assert propagation.contributions(edges, sig, sig.initial, 0, "add") == [(1, 0.5)]  # 1.5 shared over 1 + 2 edges
    assert propagation.contributions(edges, sig, sig.initial, 0, "mean") == [(1, 0.75)]  # over 1 + node 1's gate


@pytest.mark.parametrize("aggregation", ["add", "mean"])
@pytest.mark.parametrize("graph_propagates", [True, False])
def test_reported_messages_add_up_to_what_one_layer_propagated(monkeypatch, aggregation, graph_propagates):
    monkeypatch.setattr(propagation, "GRAPH_PROPAGATES", graph_propagates)
    rng = np.random.default_rng(7)
    sig = Signals(rng.random(5), rng.random(5), rng.random(5), np.ones(5, bool))
    edges = sparse.csr_matrix(rng.random((5, 5)) * (1 - np.eye(5)))
    before, after = propagation.propagate(edges, sig, layers=1, aggregation=aggregation)
    if aggregation == "add":
        for row in range(5):
            sent = sum(amount for _, amount in propagation.contributions(edges, sig, before, row, aggregation))
            assert after[row] - before[row] == pytest.approx(sent)
    norm = propagation.message_norm(edges, sig, aggregation)  # every node's, as the fused ranking passes it
    for row in range(5):
        assert propagation.contributions(edges, sig, before, row, aggregation, norm) == \
            propagation.contributions(edges, sig, before, row, aggregation)
    kept = 0 if graph_propagates else propagation.W_GRAPH * sig.graph
    assert np.all(after >= kept - 1e-9)


def test_the_fused_ranking_propagates_over_more_layers_only_under_a_small_word_budget(monkeypatch):
    small = fused.SMALL_BUDGET_WORDS
    assert fused.SMALL_BUDGET_LAYERS == 2 and propagation.LAYERS == 1
    assert [fused.layers_for(words) for words in (1, small, small + 1, 2000)] == [2, 2, 1, 1]
    assert fused.layers_for(0) == propagation.LAYERS  # no word budget (a sentence budget) is not small
    monkeypatch.setattr(fused, "SMALL_BUDGET_WORDS", 1000)
    assert fused.layers_for(small + 1) == 2


def test_a_second_layer_lifts_a_sentence_whose_neighbours_neighbour_is_relevant():
    # a chain 0 - 1 - 2: only 2 is relevant; 1 (its gate open) relays it, so 0 hears of it at the second layer
    sig = Signals(np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, 1.0]), np.zeros(3), np.ones(3, bool),
                  gates=np.array([0.0, 1.0, 1.0]))
    edges = sparse.csr_matrix(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]))
    one, two = (propagation.propagate(edges, sig, layers=n)[-1] for n in (1, 2))
    assert one[0] == 0.0 < two[0]
