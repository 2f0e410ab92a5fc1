"""Communities through the app (``streamlit.testing.v1.AppTest``, real models): the Graph explorer's
"Communities" tab (treemap of the hierarchy, a chosen community's title, grounded summary, members and
documents, the downloadable overview) and the Ask page's summary units for ``community`` and
``hybrid-summaries`` (each summary with the context sentences that back it)."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from apptest import app, ok, store_copy, table

from kgcore.core.embed import get_embedder
from kgcore.index.store.disk import Store
from kgcore.index.views.communities import communities
from kgcore.index.views.communities.listed import listed as listed_communities
from paths import PETER_ID
from ui.communities_view import community_address, community_choice, treemap_data, unit_header
from ui.markup_html import esc, md_escape


@pytest.fixture(scope="module")
def peter(peter_store, tmp_path_factory):
    """A private copy of the session's Peter Rabbit store (the app writes communities and an audit database)."""
    with store_copy(peter_store.root, tmp_path_factory.mktemp("communities_store")) as root:
        index = Store(root).load(PETER_ID)
        yield index, communities(index, get_embedder())


def _under(ci, cid: str, top: str) -> bool:
    """Whether community ``cid`` descends from ``top``."""
    by_id = ci.hierarchy.by_id()
    parent = by_id[cid].parent
    while parent:
        if parent == top:
            return True
        parent = by_id[parent].parent
    return False


def html_blocks(at) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def test_explorer_shows_the_hierarchy_and_a_chosen_community(peter):
    index, ci = peter
    at = ok(app("pages/explorer.py", doc=PETER_ID, tab="Communities"))
    [treemap] = [h.proto.body for h in at.get("html") if 'class="kg-treemap"' in h.proto.body]
    data = treemap_data(ci)
    for cid, label, value in list(zip(data["ids"], data["labels"], data["values"]))[:3]:
        assert f'title="{label} · {cid}: {value} sentences"' in treemap  # each drawn box, its escaped title
    assert treemap.count('class="kg-tm-box kg-tm-top"') == data["parents"].count("")
    assert not at.get("plotly_chart")  # no 4.7 MB chart bundle for the browser to load
    box = at.selectbox(key="explorer.community")
    first = box.value
    assert ci.community(first).level == 0
    listed = [c.id for c in listed_communities(ci)]
    hidden = [c.id for c in ci.hierarchy.at_level(0) if c.id not in listed]
    offered = {option.split(" · ")[0] for option in box.options}
    assert first == listed[0] and not set(hidden) & offered  # junk and one-sentence communities are not offered
    assert len(box.options) == len(listed)  # top-level only; their descendants are the second picker's
    chosen = listed[1]
    box.set_value(chosen).run()
    ok(at)
    sub = at.selectbox(key=f"explorer.sub.{chosen}")
    assert sub.value == chosen and sub.options[0] == "the whole community"
    assert len(sub.options) == 1 + sum(_under(ci, c.id, chosen) for c in ci.hierarchy.communities)
    summary = ci.summary(chosen)
    assert any(m.value == f"##### {md_escape(summary.title)}" for m in at.markdown)
    html = html_blocks(at)
    for claim in summary.claims:
        assert esc(claim.text) in html and all(esc(sid) in html for sid in claim.sentence_ids)
    members = table(at, "entity", "node id", "documents")
    assert sorted(members["node id"]) == sorted(ci.community(chosen).members)
    assert any(PETER_ID in m.value for m in at.markdown if m.value.startswith("**Documents**"))
    assert community_choice(ci, chosen).startswith(chosen)


def test_explorer_offers_the_collection_overview(peter):
    index, ci = peter
    at = ok(app("pages/explorer.py", doc=PETER_ID, tab="Communities"))
    [button] = [b for b in at.get("download_button") if "overview" in b.proto.label]
    assert button.proto.label == "Download the collection overview (markdown)"
    levels = table(at, "level", "communities", "modularity")
    assert levels["communities"].tolist() == [len(ci.hierarchy.at_level(n)) for n in range(ci.hierarchy.levels)]


@pytest.mark.parametrize("method", ["community", "hybrid-summaries"])
def test_ask_shows_summaries_as_context_units(peter, method):
    index, ci = peter
    at = app("pages/ask.py", doc=PETER_ID)
    at.selectbox(key="ask.method").set_value(method).run()
    at.text_input(key="ask.question").input("What did Mr. McGregor do to Peter?")
    ok(at.button(key="ask.go").click().run())
    result = at.session_state["kg_app_state"].ask.main.result
    assert result.method == method and result.summaries
    labels = [e.label for e in at.expander]
    for summary in result.summaries:
        assert unit_header(summary) in labels
    html = html_blocks(at)
    for summary in result.summaries:
        for sid in summary["sentence_ids"]:
            assert esc(index.sentence(sid).original) in html
    assert f"Community summaries in the context ({len(result.summaries)})" in [h.value for h in at.subheader]


def test_ask_compares_hybrid_summaries_with_another_method_side_by_side(peter):
    index, ci = peter
    at = app("pages/ask.py", doc=PETER_ID)
    at.selectbox(key="ask.method").set_value("hybrid-summaries").run()
    at.toggle(key="ask.compare").set_value(True).run()
    at.selectbox(key="ask.other").set_value("dense").run()
    at.text_input(key="ask.question").input("Where did Peter lose his shoes?")
    ok(at.button(key="ask.go").click().run())
    outcome = at.session_state["kg_app_state"].ask
    assert outcome.main.result.method == "hybrid-summaries" and outcome.other.result.method == "dense"
    assert outcome.main.result.summaries and not outcome.other.result.summaries
    labels = [e.label for e in at.expander]
    assert all(unit_header(s) in labels for s in outcome.main.result.summaries)


def test_explorer_says_when_a_collection_has_no_communities(tmp_path, monkeypatch):
    from kgcore.index.pipeline import Job, index_files

    store = Store(tmp_path)
    index_files([Job("tiny.txt", data=b"It rained.")], store, "tiny", workers=1)
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path))
    at = ok(app("pages/explorer.py", doc="tiny", tab="Communities"))
    assert any(i.value.startswith("No communities: no entity of this collection is linked to another")
               for i in at.info)
    assert not [s for s in at.selectbox if s.key == "explorer.community"]


def test_a_treemap_box_opens_its_community(peter):
    index, ci = peter
    at = ok(app("pages/explorer.py", doc=PETER_ID, tab="Communities"))
    [treemap] = [h.proto.body for h in at.get("html") if 'class="kg-treemap"' in h.proto.body]
    data = treemap_data(ci)
    sub = next(cid for cid, parent in zip(data["ids"], data["parents"]) if parent)  # a drawn sub-community
    top = ci.community(sub).parent
    address = community_address({"doc": PETER_ID}, sub)
    assert f'href="{esc(address)}" target="_self"' in treemap
    # the link's address is what the browser opens: both pickers are set from it, once
    opened = ok(app("pages/explorer.py", **dict(parse_qsl(address.lstrip("?")))))
    assert opened.selectbox(key="explorer.community").value == top
    assert opened.selectbox(key=f"explorer.sub.{top}").value == sub
    summary = ci.summary(sub)
    assert any(m.value == f"##### {md_escape(summary.title)}" for m in opened.markdown)
    assert "community" not in opened.query_params
    first = opened.selectbox(key="explorer.community").options[0].split(" · ")[0]
    opened.selectbox(key="explorer.community").set_value(first).run()  # the analyst's own choice then holds
    assert ok(opened).selectbox(key="explorer.community").value == first
    unknown = ok(app("pages/explorer.py", doc=PETER_ID, tab="Communities", community="L9.99"))
    assert any("No listed community L9.99" in c.value for c in unknown.caption)
