"""The contextual graph through the app (``streamlit.testing.v1.AppTest``, real models): the Ask page's signal
breakdown (fused GroundedKG, LeSeGR; none for the graph-score ranking), the Graph explorer's "Context graph" tab
(a sentence's neighbourhood) and its "Citations" tab (the citation graph between a collection's documents).

Stores: a copy of the session's Peter Rabbit index (``peter_store``, one document); a shelf of two small texts that cite
nothing; and two small PDF papers of which one cites the other (the author-year paper's reference list names
"Dense passage retrieval for open-domain question answering", the title of the second paper).
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from apptest import app, html_of, ok, store_copy, table
from pdfs import author_year_paper, short_paper
from streamlit.testing.v1 import AppTest

from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from kgcore.index.views.contextual import context_graph, document_citations, neighbours
from kgcore.query import fused
from kgcore.query.fused import node_name
from paths import PETER_ID
from ui.markup_html import anchor_id, esc, md_escape
from ui.signals_view import SIGNALS, signals_html

PIE_QUESTION = "What happened to the young rabbits' father?"
DPR_TITLE = "Dense Passage Retrieval for Open-Domain Question Answering"





def link(collection: str, sid: str) -> str:
    return f'href="{esc("sentence?" + urlencode({"doc": collection, "sid": sid}))}"'


@pytest.fixture(scope="module")
def peter(peter_store, tmp_path_factory):
    """A private copy of the session's Peter Rabbit store (the Ask page writes an audit database into it)."""
    with store_copy(peter_store.root, tmp_path_factory.mktemp("context_store")) as root:
        yield Store(root).load(PETER_ID)


def ask(method: str = "groundedkg", ranking: str | None = None) -> AppTest:
    at = app("pages/ask.py", doc=PETER_ID)
    at.selectbox(key="ask.method").set_value(method).run()
    if ranking:
        at.selectbox(key="ask.ranking").set_value(ranking).run()
    at.text_input(key="ask.question").input(PIE_QUESTION)
    return ok(at.button(key="ask.go").click().run())


def card(html: str, sid: str) -> str:
    """The HTML of one context sentence's card (up to the next card)."""
    return html.split(f'id="{anchor_id(sid)}"', 1)[1].split('class="kg-sent', 1)[0]


def check_breakdown(at: AppTest) -> list:
    """Every context sentence's card shows its signals; the signals table lists them all, best rank first."""
    result = at.session_state["kg_app_state"].ask.main.result
    html = html_of(at)
    assert result.sentences and all(s.signals for s in result.sentences)
    for s in result.sentences:
        line = card(html, s.id)
        assert signals_html(s.signals, PETER_ID) in line
        assert f"lexical {s.signals['lexical']:.2f} · dense {s.signals['dense']:.2f}" in line
        assert f"propagated {s.signals['propagated']:+.2f}" in line
        for sender in s.signals["neighbours"]:
            name = sender["node"].removeprefix("chunk:")
            assert f'{link(PETER_ID, name)} target="_blank" title="Open its source">{name}</a>' in line
            assert f'({", ".join(sender["kinds"])}) {sender["message"]:.2f}' in line
    rows = table(at, "propagated")
    assert list(rows.columns[:7]) == ["rank", "sentence", *SIGNALS]
    ranked = sorted(result.sentences, key=lambda s: s.rank)
    assert rows["sentence"].tolist() == [s.id for s in ranked]
    assert rows["own"].tolist() == [s.signals["own"] for s in ranked]
    assert any(s.signals["neighbours"] for s in result.sentences)
    return result.sentences


# -- Ask: signal breakdown ---------------------------------------------------------------------------------------
def test_ask_shows_the_signal_breakdown_of_fused_groundedkg(peter):
    at = ask()
    result = at.session_state["kg_app_state"].ask.main.result
    assert result.method == "groundedkg" and result.settings["ranking"] == "fused"
    sentences = check_breakdown(at)
    assert any(s.signals["graph"] > 0 for s in sentences)  # the question's graph recurs in some sentence
    assert any("ranking: Fused" in c.value for c in at.caption)
    assert not at.selectbox(key="ask.ranking").disabled


def test_ask_says_which_stage_ranked_each_sentence_of_a_large_budget(peter, monkeypatch):
    monkeypatch.setattr(fused, "GRAPH_HEAD_WORDS", 100)  # the tale is shorter than the real head
    at = ask()
    result = at.session_state["kg_app_state"].ask.main.result
    stages = {s.id: s.signals["stage"] for s in result.sentences}
    assert set(stages.values()) == {"graph", "text"}
    rows = table(at, "propagated")
    assert dict(zip(rows["sentence"], rows["stage"])) == stages
    html = html_of(at)
    assert all(("text stage" in card(html, sid)) == (stage == "text") for sid, stage in stages.items())


def test_ask_shows_the_signal_breakdown_of_lesegr(peter):
    at = ask("lesegr")
    assert at.selectbox(key="ask.ranking").disabled  # the ranking is GroundedKG's only
    sentences = check_breakdown(at)
    assert all(s.signals["graph"] == 0 for s in sentences)
    assert all("graph 0.00" in card(html_of(at), s.id) for s in sentences)
    assert any(c.value.startswith("LeSeGR (BM25 + dense over the contextual graph) — ") for c in at.caption)


def test_the_graph_score_ranking_has_no_breakdown(peter):
    at = ask(ranking="graph-score")
    result = at.session_state["kg_app_state"].ask.main.result
    assert result.settings["ranking"] == "graph-score" and result.sentences
    assert 'class="kg-signals"' not in html_of(at)
    assert not [d for d in at.dataframe if "propagated" in d.value.columns]


# -- Graph explorer: a sentence's contextual neighbourhood ------------------------------------------------------
def test_explorer_draws_a_sentences_contextual_neighbourhood(peter):
    (row,) = [r for r, s in enumerate(peter.sentences) if "put in a pie" in s.original]
    sid = peter.sentences[row].id
    at = ok(app("pages/explorer.py", doc=PETER_ID, tab="Context graph"))
    at.text_input(key="explorer.context.query").input("put in a pie").run()
    ok(at)
    assert at.selectbox(key="explorer.context.sentence.put in a pie").value == row
    assert any(m.value.startswith(f"**Contextual neighbourhood of {md_escape(sid)}**") for m in at.markdown)
    cg = context_graph(peter)
    expected = neighbours(cg, row)[:30]
    rows = table(at, "edge kinds")
    assert rows["neighbour"].tolist() == [node_name(peter, cg, nb.node) for nb in expected]
    assert rows["edge kinds"].tolist() == [", ".join(nb.kinds) for nb in expected]
    assert {"adjacent", "chunk"} <= {k for nb in expected for k in nb.kinds}
    assert rows["text"].iloc[0] == peter.sentences[expected[0].node].original or expected[0].node >= cg.n_sentences
    # Fewer neighbours on demand: the heaviest ones stay.
    at.number_input(key="explorer.context.max").set_value(5).run()
    assert table(ok(at), "edge kinds")["neighbour"].tolist() == [node_name(peter, cg, nb.node) for nb in expected[:5]]


def test_explorer_says_a_single_document_has_no_citation_graph(peter):
    at = ok(app("pages/explorer.py", doc=PETER_ID, tab="Citations"))
    assert any("This collection has one document: there is no citation graph" in i.value for i in at.info)


# -- Graph explorer: the citation graph between documents -------------------------------------------------------
def test_citation_view_of_documents_that_cite_nothing(tmp_path, monkeypatch):
    store = Store(tmp_path)
    texts = {"rabbit.txt": "Peter lost his shoes in the garden. Mr. McGregor found the shoes.",
             "ship.txt": "The sailors lost their shoes on the ship. The captain found the shoes."}
    (outcome,) = index_files([Job(n, data=t.encode()) for n, t in texts.items()], store, "shelf", workers=1)
    assert not outcome.failed
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path))
    at = ok(app("pages/explorer.py", doc="shelf", tab="Citations"))
    assert any(i.value.startswith("No document of this collection cites another document of it") for i in at.info)
    assert any("**Citation graph**: 2 documents, 0 citing pair(s)" in m.value for m in at.markdown)
    assert not [s for s in at.selectbox if s.key == "explorer.citations.pair"]


@pytest.fixture(scope="module")
def citing_papers(tmp_path_factory):
    root = tmp_path_factory.mktemp("citing_store")
    store = Store(root)
    dpr = short_paper(DPR_TITLE, ["We train a dual encoder on question and passage pairs and",
                                  "retrieve passages by inner product search over an index."])
    jobs = [Job("citing.pdf", data=author_year_paper()), Job("dpr.pdf", data=dpr)]
    (outcome,) = index_files(jobs, store, "papers", workers=1)
    assert not outcome.failed, outcome.failed
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(root))
        yield store.load("papers")


def test_citation_view_draws_who_cites_whom_and_lists_the_citing_sentences(citing_papers):
    index = citing_papers
    (citation,) = document_citations(index, context_graph(index))
    assert (citation.citing, citation.cited) == ("citing", "dpr")
    at = ok(app("pages/explorer.py", doc="papers", tab="Citations"))
    assert any("**Citation graph**: 2 documents, 1 citing pair(s)" in m.value for m in at.markdown)
    rows = table(at, "citing sentences")
    assert rows.to_dict("records") == [{"citing": "citing", "cited": "dpr", "citing sentences": len(citation.rows)}]
    pair = at.selectbox(key="explorer.citations.pair")
    n = len(citation.rows)
    assert pair.value == 0 and pair.options == [f"citing → dpr ({n} citing sentence{'' if n == 1 else 's'})"]
    html = html_of(at)
    for row in citation.rows:
        s = index.sentences[row]
        assert f'<a class="kg-sid" {link("papers", s.id)} target="_blank">{esc(s.id)}</a>' in html
        assert f'<div class="kg-text">{esc(s.original)}</div>' in html
    assert "Karpukhin" in " ".join(index.sentences[r].original for r in citation.rows)
    assert not re.search(r"No document of this collection cites another", " ".join(i.value for i in at.info))
