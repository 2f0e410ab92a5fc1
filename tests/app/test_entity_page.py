"""The Entity page through the app (``streamlit.testing.v1.AppTest``, real models) on a store of two self-written
documents: opened by ``?entity=``, or picked by a search; its type, aliases, cited description, documents and
neighbours; the overview download; and the explorer's link to it."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from apptest import app, html_of, ok, table

from kgcore.index.views.entities import entity_groups
from samples import harbour_collection
from ui.entity_view import entity_link
from ui.markup_html import esc


@pytest.fixture(scope="module")
def harbour(tmp_path_factory):
    yield from harbour_collection(tmp_path_factory, "entity_store", KGCORE_ENTITY_MIN_GROUNDING="3")


def _sid_link(sid: str) -> str:
    return f'href="{esc("sentence?" + "doc=harbour&sid=" + sid.replace("/", "%2F"))}"'


def test_entity_page_opened_by_query_parameter_shows_everything_cited(harbour):
    group = next(g for g in entity_groups(harbour) if g.name == "Marta Vell")
    at = ok(app("pages/entity.py", doc="harbour", entity=group.entity_id))
    html = html_of(at)
    assert "<h3>Marta Vell</h3>" in html and f"confidence {group.type_confidence:.2f}" in html
    assert esc(group.entity_type) in html
    aliases = table(at, "alias", "rule")
    assert list(aliases["node id"]) == list(group.node_ids) and list(aliases["rule"])[0] == "canonical"
    # The description: extractive, each sentence a grounding sentence of Marta Vell linking to its source view.
    described = html.split("<ol>", 1)[1].split("</ol>", 1)[0]
    cited = [sid for sid in group.grounded_texts if _sid_link(sid) in described]
    assert 1 <= len(cited) <= 3 and described.count('class="kg-sid"') == len(cited)
    assert all(esc(harbour.sentence(sid).original) in described for sid in cited)
    docs = table(at, "document", "sentences")
    assert list(docs["document"]) == ["light"] and list(docs["sentences"]) == [5]
    # Neighbours: entities sharing an action with Marta Vell, each linking to its own page with a joining sentence.
    council = next(g for g in entity_groups(harbour) if g.name == "Harbour Council")
    assert f'href="{esc(entity_link("harbour", council.entity_id))}"' in html
    assert esc("The Harbour Council gave Marta Vell a silver medal for her courage.") in html
    assert at.get("download_button")
    # Described on its own: the page does not build (and encode) every entity's description.
    assert any(c.value.startswith("Described on its own") for c in at.caption)


def test_search_and_type_filter_pick_an_entity(harbour):
    at = ok(app("pages/entity.py", doc="harbour"))
    at.text_input(key="entity.query").input("port").run()
    ok(at)
    assert "<h3>Port Ness</h3>" in html_of(at)
    port = next(g for g in entity_groups(harbour) if g.name == "Port Ness")
    assert list(table(at, "document", "sentences")["document"]) == ["light", "council"]
    assert port.documents == ("light", "council")
    at.text_input(key="entity.query").input("no such entity").run()
    assert "No entity matches" in " ".join(i.value for i in at.info)


def test_unknown_entity_is_reported_and_the_search_shown(harbour):
    at = ok(app("pages/entity.py", doc="harbour", entity="nobody"))
    assert any("No entity nobody" in w.value for w in at.warning)
    assert "<h3>" in html_of(at)  # the first entity of the search is shown


def test_explorer_links_an_entity_node_to_its_page(harbour):
    at = ok(app("pages/explorer.py", doc="harbour"))
    (link,) = [el.proto for el in at.get("page_link") if el.proto.page == "entity"]
    label = link.label.removeprefix("Entity page of ")
    group = next(g for g in entity_groups(harbour) if g.name == label)
    assert link.query_string == urlencode({"doc": "harbour", "entity": group.entity_id})


def test_ask_page_runs_the_entities_method_and_compares_it(harbour):
    at = app("pages/ask.py", doc="harbour")
    at.selectbox(key="ask.method").set_value("entities").run()
    at.toggle(key="ask.compare").set_value(True).run()
    at.selectbox(key="ask.other").set_value("dense").run()
    at.text_input(key="ask.question").input("Who rescued the fishermen during the storm?")
    ok(at.button(key="ask.go").click().run())
    result = at.session_state["kg_app_state"].ask.main.result
    assert result.method == "entities" and result.matches and result.sentences
    assert all(s.selected_by for s in result.sentences)
    assert {s.value for s in at.subheader} >= {"Entities (resolved entities and their neighbourhoods)",
                                                "Dense (sentence vectors)"}
    text = re.sub(r"<[^>]+>", "", html_of(at))  # the answer's span and the question's words are marked
    assert esc("During the winter storm Marta Vell rescued two fishermen from a sinking boat.") in text
