"""The ``srl`` parser's graph rules without spaCy: :func:`frames_to_graph` on hand-made frames."""

from __future__ import annotations

from kgcore.core.types import ACTION, ENTITY, Argument, Frame
from kgcore.index.parse.srl.graph import frames_to_graph


def edges_by_label(sg):
    label = {n.key: n.label for n in sg.nodes}
    return {(label[e.source], e.edge_role, label[e.target]) for e in sg.edges}


# -- frames_to_graph on hand-made frames (pure logic) ---------------------------------------


def test_frames_to_graph_rules_on_hand_made_frames():
    text = "When Peter came home, who met him?"
    came = Frame("come", "came", (Argument("ARG0", "Peter", "Peter", "peter", 5, 10),
                                  Argument("ARGM-LOC", "home", "home", "home", 16, 20)), start=11, end=15)
    met = Frame("meet", "met", (
        Argument("ARGM-TMP", "When Peter came home", "come", "", 0, 20),
        Argument("ARG0", "who", "who", "", 22, 25),
        Argument("ARG1", "him", "him", "", 30, 33),
    ), start=26, end=29)
    sg = frames_to_graph("q", [came, met], text)
    assert [n.label for n in sg.nodes if n.node_type == ACTION] == ["come", "meet"]
    assert {n.label for n in sg.nodes if n.node_type == ENTITY} == {"Peter", "home", "who"}
    assert ("meet", "ARGM-TMP", "come") in edges_by_label(sg)
    edge_types = {(e.edge_role, e.edge_type) for e in sg.edges}
    assert ("ARGM-TMP", "action-action") in edge_types and ("ARG0", "action-entity") in edge_types
    who = next(n for n in sg.nodes if n.label == "who")
    assert who.is_unknown and who.merge_key is None
    assert "him" not in {n.label for n in sg.nodes}
    assert not any(n.is_unknown for n in frames_to_graph("s", [came, met], text, keep_unknown=False).nodes)
    assert [Frame.from_dict(d) for d in sg.analysis["frames"]] == [came, met]


def test_frames_to_graph_merges_one_key_into_one_node_with_all_texts():
    give = Frame("give", "gave", (
        Argument("ARG1", "a dose of tea", "tea", "tea", 10, 23),
        Argument("ARG2", "to Peter", "Peter", "peter", 24, 32),
    ), start=5, end=9)
    make = Frame("make", "made", (Argument("ARG1", "some tea", "tea", "tea", 40, 48),), start=35, end=39)
    sg = frames_to_graph("s", [give, make], "")
    tea = [n for n in sg.nodes if n.label == "tea"]
    assert len(tea) == 1 and tea[0].texts == ("a dose of tea", "tea", "some tea") and tea[0].order == 10
    assert next(n for n in sg.nodes if n.label == "Peter").texts == ("Peter",)
    assert next(n for n in sg.nodes if n.label == "give").texts == ("gave", "gave a dose of tea to Peter")
