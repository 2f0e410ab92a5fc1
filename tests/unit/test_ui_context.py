"""The app's pure builders for the contextual graph (no streamlit runtime, no models): the signal breakdown of the
rankings over the contextual graph, a sentence's contextual neighbourhood, and the citation graph between
documents; every piece of document text escaped."""

from __future__ import annotations

import doctest
import importlib
import json
import re
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import sparse

from kgcore.core.settings import RANKINGS
from kgcore.core.types import SelectedSentence
from kgcore.index.views.context_types import BIT, KINDS, ContextGraph
from kgcore.index.views.contextual import DocumentCitation
from kgcore.query.methods import METHODS
from ui.ask_view import SentenceView, sentences_html
from ui.context_view import (
    EDGE_COLORS,
    citation_vis,
    citing_sentences_html,
    context_legend,
    context_neighbourhood,
    context_vis,
    neighbour_rows,
)
from ui.graph_html import GraphPage, VisEdge, VisNode, graph_html
from ui.labels import EDGE_KIND_LABELS, METHOD_LABELS, RANKING_LABELS
from ui.signals_view import SIGNALS, signal_rows, signals_html

SCRIPT = "<script>alert(1)</script>"


@pytest.mark.parametrize("module", ["ui.signals_view", "ui.context_view", "ui.labels"])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_every_method_ranking_and_edge_kind_has_a_name_and_colour():
    assert set(METHODS) <= set(METHOD_LABELS) and set(RANKINGS) <= set(RANKING_LABELS)
    assert set(KINDS) == set(EDGE_KIND_LABELS) == set(EDGE_COLORS)


# -- signals -------------------------------------------------------------------------------------------------------
def _signals(node: str = "d/text_0-2") -> dict:
    return {"lexical": 0.5, "dense": 0.25, "graph": 0.0, "own": 0.75, "propagated": 0.125,
            "neighbours": [{"node": node, "kinds": ["adjacent"], "message": 0.1}]}


def test_signals_line_escapes_names_and_links_sentences():
    html = signals_html(_signals(f"d/{SCRIPT}"), "shelf")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="sentence?doc=shelf&amp;sid=d%2F%3Cscript%3Ealert%281%29%3C%2Fscript%3E"' in html
    assert "lexical 0.50 · dense 0.25 · graph 0.00 · own 0.75 · propagated +0.12" in html
    chunk = signals_html(_signals("chunk:d/text_0-0"), "shelf")
    assert 'chunk of <a class="kg-sid" href="sentence?doc=shelf&amp;sid=d%2Ftext_0-0"' in chunk
    assert signals_html({}, "shelf") == ""


def test_signals_are_drawn_in_their_sentence_card_and_tabled_by_rank():
    sents = [SelectedSentence("d/text_0-1", 1, SCRIPT, SCRIPT, rank=2, score=0.9, signals=_signals()),
             SelectedSentence("d/text_0-5", 5, "B.", "B.", rank=1, score=1.2, signals=_signals("d/text_0-4")),
             SelectedSentence("d/text_0-9", 9, "C.", "C.", rank=3)]
    view = SentenceView(doc_id="shelf", extras={s.id: signals_html(s.signals, "shelf") for s in sents if s.signals},
                        order="reading")
    html = sentences_html(sents, view=view)
    cards = re.findall(r'<div class="kg-sent" id="s-([^"]+)">(.*?)(?=<div class="kg-sent"|$)', html)
    assert [(sid, 'class="kg-signals"' in body) for sid, body in cards] == [
        ("d-text_0-1", True), ("d-text_0-5", True), ("d-text_0-9", False)]
    assert "<script>" not in html
    rows = signal_rows(sents)
    assert [r["sentence"] for r in rows] == ["d/text_0-5", "d/text_0-1"]  # best rank first, no row without signals
    assert list(rows[0]) == ["rank", "sentence", *SIGNALS, "score", "from", "text"]
    assert rows[1]["from"] == "d/text_0-2 (adjacent) 0.10" and rows[1]["text"] == SCRIPT
    sents[1].signals = {**sents[1].signals, "stage": "text"}  # a large budget filled in two stages
    sents[0].signals = {**sents[0].signals, "stage": "graph"}
    staged = [(r["sentence"], r["stage"]) for r in signal_rows(sents)]
    assert staged == [("d/text_0-5", "text"), ("d/text_0-1", "graph")]
    assert "text stage" in signals_html(sents[1].signals, "shelf")


# -- contextual neighbourhood --------------------------------------------------------------------------------------
def _graph() -> tuple[SimpleNamespace, ContextGraph]:
    """Four sentences in two chunks (nodes 4 and 5): adjacent, chunk and one shared-node edge."""
    texts = ["Peter ran.", SCRIPT, "He hid in a can.", "The can was wet."]
    index = SimpleNamespace(sentences=[SimpleNamespace(id=f"d/text_0-{i}", original=t) for i, t in enumerate(texts)])
    edges = [(0, 1, 1.0, "adjacent"), (1, 2, 1.0, "adjacent"), (2, 3, 1.0, "adjacent"), (0, 4, 1.0, "chunk"),
             (1, 4, 1.0, "chunk"), (2, 5, 1.0, "chunk"), (3, 5, 1.0, "chunk"), (0, 3, 0.4, "shared-node")]
    a, b, w, k = (np.array(x) for x in zip(*edges))
    bits = np.array([BIT[kind] for kind in k])
    weights = sparse.csr_matrix((np.r_[w, w].astype(np.float32), (np.r_[a, b], np.r_[b, a])), shape=(6, 6))
    kinds = sparse.csr_matrix((np.r_[bits, bits], (np.r_[a, b], np.r_[b, a])), shape=(6, 6))
    cg = ContextGraph(4, np.array([0, 0, 1, 1]), np.array([[0, 2], [2, 4]]), np.zeros((2, 3)), weights, kinds,
                      weights)
    return index, cg


def test_neighbourhood_keeps_the_heaviest_neighbours_and_the_edges_among_them():
    index, cg = _graph()
    hood = context_neighbourhood(index, cg, 0)
    assert [n.name for n in hood.nodes] == ["d/text_0-0", "d/text_0-1", "chunk:d/text_0-0", "d/text_0-3"]
    assert hood.total == 3 and not hood.notice()
    assert [(e.a, e.b, e.kinds) for e in hood.edges] == [
        (0, 1, ("adjacent",)), (0, 4, ("chunk",)), (0, 3, ("shared-node",)), (1, 4, ("chunk",))]
    assert hood.nodes[2].sentences == ("d/text_0-0", "d/text_0-1") and hood.nodes[2].label == "d/text_0-0"
    capped = context_neighbourhood(index, cg, 0, limit=2)
    assert [n.node for n in capped.nodes] == [0, 1, 4] and capped.notice() == "Showing the 2 heaviest of 3 neighbours"
    assert all(3 not in (e.a, e.b) for e in capped.edges)
    rows = neighbour_rows(hood)
    assert [(r["neighbour"], r["weight"], r["edge kinds"]) for r in rows] == [
        ("d/text_0-1", 1.0, "adjacent"), ("chunk:d/text_0-0", 1.0, "chunk"), ("d/text_0-3", 0.4, "shared-node")]


def test_neighbourhood_page_is_escaped_coloured_by_kind_and_undirected():
    index, cg = _graph()
    hood = context_neighbourhood(index, cg, 1)
    nodes, edges = context_vis(hood)
    assert {n.kind for n in nodes} == {"sentence", "chunk"} and nodes[0].emphasis == "matched"
    assert {e.color for e in edges} == {EDGE_COLORS["adjacent"], EDGE_COLORS["chunk"]}
    assert [name for name, _ in context_legend(hood)] == ["sentence", "chunk", "edge: adjacent", "edge: chunk"]
    texts = {s.id: s.original for s in index.sentences}
    page = graph_html(nodes, edges, GraphPage(sentence_texts=texts, legend_colors=context_legend(hood)))
    assert "<script>alert" not in page and "\\u003cscript\\u003ealert(1)" in page
    data = json.loads(re.search(r"const KG = (.*?);</script>", page).group(1))
    assert all(e["arrows"] == {"to": {"enabled": False}} for e in data["edges"])
    assert {e["color"]["color"] for e in data["edges"]} == {EDGE_COLORS["adjacent"], EDGE_COLORS["chunk"]}
    assert data["sentences"]["d/text_0-1"] == SCRIPT  # shown in the click panel as text (textContent)


def test_graph_edges_without_colour_keep_their_arrow_and_tooltip():
    page = graph_html([VisNode("a", "a", "entity"), VisNode("b", "b", "entity")],
                      [VisEdge("a", "b", "ARG0", ("text_0-1",))])
    (edge,) = json.loads(re.search(r"const KG = (.*?);</script>", page).group(1))["edges"]
    assert edge["arrows"] == "to" and "color" not in edge and edge["title"] == "ARG0\ngrounded in: text_0-1"


# -- citation graph --------------------------------------------------------------------------------------------------
def test_citation_graph_counts_citing_sentences_and_escapes_documents():
    citations = [DocumentCitation("a", SCRIPT, (1, 2, 5)), DocumentCitation(SCRIPT, "a", (9,))]
    nodes, edges = citation_vis([("a", "a.pdf"), (SCRIPT, "x.pdf"), ("c", "")], citations)
    assert [(n.id, n.extra) for n in nodes] == [("a", "cites 1 · cited by 1"), (SCRIPT, "cites 1 · cited by 1"),
                                               ("c", "cites 0 · cited by 0")]
    assert [(e.source, e.target, e.label, e.directed) for e in edges] == [("a", SCRIPT, "3", True),
                                                                          (SCRIPT, "a", "1", True)]
    page = graph_html(nodes, edges, GraphPage(legend_colors=(("document", "#4C78A8"),)))
    assert "<script>alert" not in page
    html = citing_sentences_html(SCRIPT, [("a/text_0-1", SCRIPT)])
    assert "<script>" not in html and 'href="sentence?doc=%3Cscript%3E' in html
