"""Pure tests of the app's rendering helpers (no streamlit runtime, no models)."""

from __future__ import annotations

import doctest
import importlib
import json
import re

import networkx as nx
import pytest

from kgcore.core.graph import GroundedGraph
from kgcore.core.types import (
    Answer,
    Citation,
    Edge,
    LocalEdge,
    LocalNode,
    Match,
    Node,
    QueryResult,
    SelectedSentence,
    Sentence,
    SentenceGraph,
)
from ui.ask_view import SentenceView, answer_html, grounded_html, matches_rows, sentences_html
from ui.export_view import graphml_bytes, json_bytes
from ui.graph_html import GraphPage, VisNode, asset_files, graph_html, vis_assets
from ui.markup_html import highlight
from ui.subgraph_view import neighbourhood, vis_from_graph, vis_from_sentence_graph

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
EVIL = f"Peter hid {SCRIPT} under the {IMG} basket."


@pytest.mark.parametrize("module", [
    "ui.markup_html", "ui.graph_html", "ui.subgraph_view", "ui.export_view", "ui.state_panel", "ui.ask_view",
    "ui.explorer_view", "ui.jobs_view", "ui.sources", "ui.chart_view",
])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_labelling_doctests():
    import ui.labelling_panel

    result = doctest.testmod(ui.labelling_panel)
    assert result.attempted > 0 and result.failed == 0


@pytest.fixture
def evil_graph():
    nodes = {
        "basket": Node("basket", IMG, [IMG, "basket"], "entity", ["text_0-0"]),
        "hide_0": Node("hide_0", "hide", ["hid"], "action", ["text_0-0"]),
        "peter": Node("peter", "Peter", ["Peter", SCRIPT], "entity", ["text_0-0"]),
    }
    edges = [Edge("hide_0", "peter", "ARG0", "action-entity", ["text_0-0"]),
             Edge("hide_0", "basket", SCRIPT, "action-entity", ["text_0-0"])]
    return GroundedGraph(nodes, edges)


def _no_raw_payload(html: str) -> None:
    assert "<script>alert" not in html
    assert "<img src=x" not in html and "onerror=alert(1)>" not in html


def test_graph_page_escapes_labels_tooltips_and_sentences(evil_graph):
    nodes, edges = vis_from_graph(evil_graph, list(evil_graph.nodes), {"peter": "matched"})
    html = graph_html(nodes, edges, GraphPage(sentence_texts={"text_0-0": EVIL}, notice=SCRIPT))
    _no_raw_payload(html)
    data = json.loads(re.search(r"const KG = (\{.*?\});</script>", html, re.S).group(1))
    # The payload arrives as data (shown with textContent/innerText/canvas), intact and inert.
    assert {n["label"] for n in data["nodes"]} >= {"Peter", IMG}
    assert any(SCRIPT in n["title"] for n in data["nodes"])
    assert data["sentences"]["text_0-0"] == EVIL
    assert {e["label"] for e in data["edges"]} == {"ARG0", SCRIPT}
    own_code = html.rsplit("<script>", 1)[1]  # our page script, after the inlined library
    assert "textContent" in own_code and "innerHTML" not in own_code


def test_graph_page_is_offline():
    html = graph_html([VisNode("a", "a", "entity")], [])
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)\s*=", html, re.I), "no external resources"
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", html, re.I)
    assert "bootstrap" not in html.lower()
    js, css = vis_assets()
    assert len(js) > 100_000 and js in html and css in html  # vis-network inlined, not linked


def test_a_graph_page_can_link_the_library_the_app_serves():
    html = graph_html([VisNode("a", "a", "entity")], [], GraphPage(assets="app/static"))
    js_name, css_name = asset_files()
    assert f'<script src="app/static/{js_name}"></script>' in html
    assert f'<link rel="stylesheet" href="app/static/{css_name}">' in html
    js, css = vis_assets()
    assert js not in html and css not in html and len(html) < 20_000
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", html, re.I)  # still nothing off the machine


def test_highlight_escapes_before_marking():
    html = highlight(EVIL, ["Peter", "script", "img", "basket"])
    _no_raw_payload(html)
    assert '<mark class="kg-m">Peter</mark>' in html
    assert "&lt;<mark class=\"kg-m\">script</mark>&gt;" in html
    # Only our own tags remain once the escaped text is removed.
    assert set(re.findall(r"</?([a-z]+)", html)) == {"mark"}


def test_highlight_prefers_longer_terms_and_regex_characters():
    html = highlight("Mr. McGregor saw Mr. Rabbit.", ["Mr.", "Mr. McGregor"])
    assert html.startswith('<mark class="kg-m">Mr. McGregor</mark>')
    assert html.count("<mark") == 2


def test_sentences_answer_and_tables_escape_document_text(evil_graph):
    sent = SelectedSentence("text_0-0", 0, EVIL, EVIL, ["peter", "basket"], ["q0"], 2, 0.5, 1.2)
    qg = SentenceGraph("query", (LocalNode("q0", SCRIPT, (SCRIPT,), "entity"),), ())
    match = Match("q0", "basket", IMG, [IMG], "entity", 0.9, 0)
    result = QueryResult(SCRIPT, "groundedkg", "evil", qg, [match], [sent], {}, {})
    marks = {"text_0-0": ["Peter", IMG, "basket"]}
    html = sentences_html([sent], marks, SentenceView(doc_id="evil", selected_terms=[SCRIPT]))
    _no_raw_payload(html)
    assert '<mark class="kg-m">Peter</mark>' in html
    answer = Answer(f"{IMG} said {SCRIPT}.", "extractive", "", [Citation(f"{IMG} said {SCRIPT}.", ["text_0-0"])])
    _no_raw_payload(answer_html(answer, {"text_0-0": 1}))
    sentence = Sentence("text_0-0", 0, 0, 0, EVIL, EVIL, EVIL)
    _no_raw_payload(grounded_html([sentence], [IMG], "evil"))
    rows = matches_rows(result, evil_graph)  # shown with st.dataframe, which renders cells as text
    assert rows[0]["query node"] == SCRIPT and rows[0]["matched node"] == IMG


def test_citation_numbers_follow_reading_order():
    sents = [SelectedSentence(f"text_0-{i}", i, f"S{i}.", f"S{i}.") for i in (2, 7, 9)]
    answer = Answer("A. B.", "extractive", "", [Citation("A.", ["text_0-9"]), Citation("B.", ["text_0-2", "text_0-7"])])
    html = answer_html(answer, {s.id: i for i, s in enumerate(sents, 1)})
    assert re.findall(r">\[(\d)\]<", html) == ["3", "1", "2"]
    assert 'href="#s-text_0-9"' in html


def test_neighbourhood_is_capped_with_notice():
    nodes = {"hub": Node("hub", "hub", [], "entity", ["text_0-0"])}
    nodes.update({f"n{i}": Node(f"n{i}", f"n{i}", [], "entity", ["text_0-0"]) for i in range(1000)})
    edges = [Edge("hub", f"n{i}", "ARG1", "entity-entity", ["text_0-0"]) for i in range(1000)]
    hood = neighbourhood(GroundedGraph(nodes, edges), ["hub"], depth=1, max_nodes=300)
    assert len(hood.node_ids) == 300 and hood.node_ids[0] == "hub" and hood.total == 1001
    assert "300 of 1001" in hood.notice()


def test_neighbourhood_prefers_nodes_linking_seeds():
    nodes = {i: Node(i, i, [], "entity", ["text_0-0"]) for i in ("a", "b", "bridge", "x", "y")}
    edges = [
        Edge("a", "x", "r", "entity-entity", ["text_0-0"]),
        Edge("b", "y", "r", "entity-entity", ["text_0-0"]),
        Edge("a", "bridge", "r", "entity-entity", ["text_0-0"]),
        Edge("b", "bridge", "r", "entity-entity", ["text_0-0"]),
    ]
    hood = neighbourhood(GroundedGraph(nodes, edges), ["a", "b"], depth=1, max_nodes=3)
    assert hood.node_ids == ["a", "b", "bridge"]


def test_query_graph_view_keeps_roles():
    qg = SentenceGraph(
        "query",
        (LocalNode("q0", "happen", ("happened",), "action"), LocalNode("q1", "father", ("father",), "entity")),
        (LocalEdge("q0", "q1", "ARG1", "action-entity"),),
    )
    nodes, edges = vis_from_sentence_graph(qg)
    assert [n.kind for n in nodes] == ["action", "entity"] and edges[0].label == "ARG1"


def test_exports_round_trip(evil_graph, tmp_path):
    path = tmp_path / "g.graphml"
    path.write_bytes(graphml_bytes(evil_graph))
    g = nx.read_graphml(path, force_multigraph=True)
    assert g.nodes["peter"]["grounded_texts"] == "text_0-0"
    assert g.nodes["basket"]["texts"] == f"{IMG} | basket"
    assert sorted(d["edge_role"] for _, _, d in g.edges(data=True)) == sorted(["ARG0", SCRIPT])
    again = GroundedGraph.from_node_link(json.loads(json_bytes(evil_graph)))
    assert again.nodes["basket"].texts == [IMG, "basket"] and len(again.edges) == 2


def test_top_nodes_with_the_same_label_stay_apart():
    from ui.explorer_view import graph_stats

    nodes = {i: Node(i, "go", ["went"], "action", ["text_0-0"]) for i in ("go_1", "go_2")}
    nodes["peter"] = Node("peter", "Peter", ["Peter"], "entity", ["text_0-0"])
    edges = [Edge(i, "peter", "ARG0", "action-entity", ["text_0-0"]) for i in ("go_1", "go_2")]
    top = graph_stats(GroundedGraph(nodes, edges))["top_nodes"]
    assert top["node"].tolist() == ["Peter", "go (go_1)", "go (go_2)"] and top["degree"].tolist() == [2, 1, 1]
