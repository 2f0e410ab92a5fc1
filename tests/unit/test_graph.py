"""Graph merging rules and serialisation (pure logic, tiny hand-made sentence graphs)."""

import networkx as nx

from kgcore.core.graph import GroundedGraph
from kgcore.core.types import LocalEdge, LocalNode, SentenceGraph
from kgcore.index.graph import build_graph, with_next_edges


def _paper_sentence_graph():
    # Paper Table 3 (SRL flavour): put / make / give with shared entities.
    nodes = (
        LocalNode("mother", "mother", ("Peter's mother",), "entity", "peter's mother", 0),
        LocalNode("put", "put", ("put",), "action", None, 15),
        LocalNode("peter", "Peter", ("Peter",), "entity", "peter", 19),
        LocalNode("bed", "bed", ("bed",), "entity", "bed", 28),
        LocalNode("make", "make", ("made",), "action", None, 36),
        LocalNode("tea", "tea", ("some camomile tea",), "entity", "tea", 41),
        LocalNode("give", "give", ("gave",), "action", None, 80),
    )
    edges = (
        LocalEdge("put", "mother", "ARG0", "action-entity"),
        LocalEdge("put", "peter", "ARG1", "action-entity"),
        LocalEdge("put", "bed", "ARG2", "action-entity"),
        LocalEdge("make", "tea", "ARG1", "action-entity"),
        LocalEdge("give", "tea", "ARG1", "action-entity"),
        LocalEdge("give", "peter", "ARG2", "action-entity"),
    )
    return SentenceGraph("text_1-9", nodes, edges)


def test_next_edges_follow_surface_order_not_node_order():
    sg = SentenceGraph("s", (
        LocalNode("b", "give", ("gave",), "action", order=20),
        LocalNode("a", "make", ("made",), "action", order=5),
    ), ())
    assert [(e.source, e.target, e.edge_role) for e in with_next_edges(sg).edges] == [("a", "b", "next")]


def test_entities_merge_across_sentences_actions_stay_per_occurrence():
    later = SentenceGraph("text_1-10", (
        LocalNode("p", "Peter", ("Peter",), "entity", "peter", 0),
        LocalNode("g", "give", ("gave",), "action", None, 6),
    ), (LocalEdge("g", "p", "ARG0", "action-entity"),))
    g = build_graph([_paper_sentence_graph(), later])
    assert g.nodes["peter"].grounded_texts == ["text_1-9", "text_1-10"]
    gives = [n for n in g.nodes.values() if n.label == "give"]
    assert len(gives) == 2 and len({n.node_id for n in gives}) == 2
    assert all(len(n.grounded_texts) == 1 for n in gives)
    roles = {(e.source.split("_")[0], e.edge_role, e.target) for e in g.edges}
    assert ("put", "next", "make_1") in {(e.source.split("_")[0], e.edge_role, e.target) for e in g.edges}
    assert ("give", "ARG2", "peter") in roles and ("make", "ARG1", "tea") in roles
    assert g.invariant_problems(["text_1-9", "text_1-10"]) == []


def test_duplicate_edges_merge_their_grounding():
    sg1 = SentenceGraph(
        "a",
        (LocalNode("x", "tea", ("tea",), "entity", "tea"), LocalNode("y", "Peter", ("Peter",), "entity", "peter")),
        (LocalEdge("y", "x", "poss", "entity-entity"),),
    )
    sg2 = SentenceGraph("b", sg1.nodes, sg1.edges)
    g = build_graph([sg1, sg2])
    assert len(g.edges) == 1 and g.edges[0].grounded_texts == ["a", "b"]


def test_invariant_problems_are_reported():
    g = build_graph([_paper_sentence_graph()])
    assert g.invariant_problems(["other"])  # every grounding id unknown
    g.nodes["peter"].grounded_texts.clear()
    assert any("peter" in p and "no grounded_texts" in p for p in g.invariant_problems(["text_1-9"]))


def test_node_link_round_trip_and_networkx():
    g = build_graph([_paper_sentence_graph()])
    data = g.to_node_link()
    back = GroundedGraph.from_node_link(data)
    assert back.nodes == g.nodes and back.edges == g.edges
    nxg = nx.node_link_graph(data, edges="links")
    assert nxg.number_of_nodes() == len(g.nodes) and nxg.number_of_edges() == len(g.edges)
    assert nxg.nodes["tea"]["texts"] == ["some camomile tea"]
    assert g.neighbors("tea") == {n for n in g.nodes if n.startswith(("make", "give"))}


def test_names_are_shared_across_documents_but_an_unresolved_i_is_not():
    """Two first-person documents' "I" are two speakers: merged, they would make one shared entity of them."""
    from kgcore.core.graph import merge_graphs

    def speaker(doc_id: str) -> GroundedGraph:
        nodes = (LocalNode("i", "I", ("I",), "entity", "i", 0),
                 LocalNode("r", "Raoul", ("Raoul",), "entity", "raoul", 9))
        sg = SentenceGraph(f"{doc_id}/text_0-0", nodes, ())
        return build_graph([sg], doc_id=doc_id)

    merged = merge_graphs([speaker("memoir"), speaker("diary")])
    assert sorted(merged.nodes) == ["diary/i", "memoir/i", "raoul"]
    assert merged.nodes["raoul"].grounded_texts == ["memoir/text_0-0", "diary/text_0-0"]


def test_a_name_first_met_in_capitals_is_labelled_as_the_text_writes_it():
    """The Phantom of the Opera's heroine was labelled "CHRISTINE" after a chapter title; acronyms stay."""
    from kgcore.core.graph import merge_graphs

    title = SentenceGraph("text_0-0", (LocalNode("c", "CHRISTINE", ("CHRISTINE",), "entity", "christine", 0),
                                       LocalNode("a", "ADGM", ("ADGM",), "entity", "adgm", 12)), ())
    body = SentenceGraph("text_1-0", (LocalNode("c", "Christine", ("poor Christine", "Christine"), "entity",
                                                "christine", 0),
                                      LocalNode("s", "sing", ("sang",), "action", None, 20)), ())
    g = build_graph([title, body])
    assert g.nodes["christine"].label == "Christine" and g.nodes["adgm"].label == "ADGM"
    assert g.nodes["christine"].texts == ["CHRISTINE", "poor Christine", "Christine"]  # mentions kept as written
    contents = build_graph([title], doc_id="contents")
    assert contents.nodes["christine"].label == "CHRISTINE"  # nothing better to go by
    assert merge_graphs([contents, build_graph([body], doc_id="novel")]).nodes["christine"].label == "Christine"


def test_a_graph_read_from_json_keeps_one_string_per_sentence_and_node_id():
    """A stored graph read back holds each sentence id and node id once, shared by every node and edge that
    mentions it (json gives one string per mention: 57 MB of strings where 10 MB do on 24 papers)."""
    import json

    graph = build_graph([_paper_sentence_graph()])
    back = GroundedGraph.from_node_link(json.loads(json.dumps(graph.to_node_link())))
    assert back.to_node_link() == graph.to_node_link()
    grounding = [t for n in back.nodes.values() for t in n.grounded_texts] + \
                [t for e in back.edges for t in e.grounded_texts]
    assert len(grounding) > 3 and len({id(t) for t in grounding}) == len(set(grounding)) == 1
    ends = {id(e.source) for e in back.edges} | {id(e.target) for e in back.edges}
    assert ends <= {id(node_id) for node_id in back.nodes}


def test_a_sentence_read_back_shares_its_unchanged_texts():
    import json

    from kgcore.core.types import Sentence

    row = json.loads(json.dumps(Sentence("d/s1", 0, 0, 0, "He ran.", "He ran.", "Peter ran.", "d").to_dict()))
    s = Sentence.from_dict(row)
    assert s.normalized is s.original and s.resolved == "Peter ran." and s.doc_id == "d"
    same = Sentence.from_dict(json.loads(json.dumps({**row, "resolved": "He ran."})))
    assert same.resolved is same.normalized is same.original
