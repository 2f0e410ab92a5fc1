"""Entity pages and the multi-hop walk: pure logic on a tiny hand-made collection of encyclopedia pages."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kgcore.core.graph import GroundedGraph
from kgcore.core.types import BODY, FRONT_MATTER, Node, Sentence
from kgcore.index.store.disk import Index
from kgcore.index.store.manifest import Manifest
from kgcore.index.views.pages import aliases, entity_pages, typed_edges, typed_relations
from kgcore.query import multihop

PAGES = {
    "crisscross": ["CrissCross", "CrissCross is a 1992 American drama film directed by Chris Menges.",
                   "It was written by Scott Sommer."],
    "chris-menges": ["Chris Menges", "Chris Menges (born 15 September 1940) is an English cinematographer.",
                     "He is a member of the British Society of Cinematographers."],
    "scott-derrickson": ["Scott Derrickson", "Scott Derrickson (born July 16, 1966) is an American director.",
                         "He lives in Los Angeles."],
    "sinister": ["Sinister (film)", "Sinister is a 2012 horror film.", "It was directed by Scott Derrickson."],
}


def page_index(pages: dict[str, list[str]] = PAGES) -> Index:
    """One document per page: its title line (front matter), then its body sentences; proper-name nodes."""
    sentences, nodes = [], {}
    for doc, lines in pages.items():
        for i, text in enumerate(lines):
            sid = f"{doc}/text_0-{i}"
            role = FRONT_MATTER if i == 0 else BODY
            sentences.append(Sentence(sid, 0, i, len(sentences), text, text, text, doc, paragraph=min(i, 1),
                                      role=role))
            for name in ("Chris Menges", "Scott Derrickson", "Scott Sommer"):
                if name in text and i:
                    nodes.setdefault(name.lower(), Node(name.lower(), name, [name], "entity", []))
                    nodes[name.lower()].grounded_texts.append(sid)
    node_ids = list(nodes)
    return Index("pages", Path("."), Manifest("pages"), sentences, GroundedGraph(nodes, []), node_ids,
                 np.zeros((len(node_ids), 4), dtype=np.float32), np.zeros((len(sentences), 4), dtype=np.float32))


def rows_of(index: Index, *ids: str) -> list[int]:
    return [index.sentence_row(i) for i in ids]


def test_typed_relations_read_frames_and_the_lead_apposition():
    assert typed_relations("Alien is a 1979 film directed by Ridley Scott, and starring Sigourney Weaver.") == [
        ("directed-by", "Ridley Scott"), ("starring", "Sigourney Weaver")]
    lead = "Richard Nixon (January 9, 1913 – April 22, 1994) was the 37th President of the United States."
    assert typed_relations(lead, lead=True) == [("born-on", "January 9, 1913"), ("died-on", "April 22, 1994")]
    assert typed_relations(lead) == []  # dates are read from a page's lead sentence only
    assert typed_relations("He is the brother of former NFL linebacker Boss Bailey.") == [("sibling-of", "Boss Bailey")]


def test_aliases_are_the_lead_name_birth_and_stage_names_never_a_nationality():
    lead = "Gerald Rudolph Ford Jr. (born Leslie Lynch King Jr.; July 14, 1913) was an American politician."
    assert aliases(lead) == ["Gerald Rudolph Ford Jr", "Leslie Lynch King Jr"]
    assert aliases("Charles Craft (May 9, 1902) was an English-born American film editor.") == ["Charles Craft"]
    assert aliases("The Apple Remote is a remote control device.") == ["Apple Remote"]


def test_pages_map_titles_bare_titles_and_aliases_to_documents():
    pages = entity_pages(page_index())
    assert pages.title["sinister"] == "Sinister (film)"
    assert pages.pages_named("Sinister") == ["sinister"] and pages.pages_named("sinister (film)") == ["sinister"]
    assert pages.pages_named("Chris Menges") == ["chris-menges"]
    index = page_index()
    lead = index.sentence_row("chris-menges/text_0-1")
    assert entity_pages(index).relations[lead] == [("born-on", "15 September 1940")]


def test_typed_edges_join_pages_and_keep_their_sentence():
    index = page_index()
    edges = typed_edges(index, entity_pages(index))
    assert ("crisscross", "directed-by", "chris-menges", "crisscross/text_0-1") in edges
    assert ("crisscross", "written-by", "Scott Sommer", "crisscross/text_0-2") in edges  # no page: the name
    assert ("chris-menges", "born-on", "15 September 1940", "chris-menges/text_0-1") in edges


def test_the_walk_puts_the_linked_pages_fact_right_after_the_sentence_that_leads_there():
    index = page_index()
    walk = multihop.plan(index, "When was the director of CrissCross born?")
    assert walk is not None and walk.named == ["crisscross"] and walk.asked == ("born-on",)
    final = np.zeros(len(index.sentences))
    first, other = rows_of(index, "crisscross/text_0-1", "sinister/text_0-1")
    final[[first, other]] = [1.0, 0.9]  # the fused ranking found the film's sentence, not the director's birth
    allowed = np.array([s.role == BODY for s in index.sentences])
    order = multihop.walk_order(index, walk, np.array([first, other]), final, allowed)
    born = index.sentence_row("chris-menges/text_0-1")
    assert order[:2].tolist() == [first, born]
    assert walk.paths[born] == "CrissCross —directed-by→ Chris Menges [born-on]"
    assert set(order.tolist()) <= set(np.flatnonzero(allowed).tolist())  # never a title line


def test_a_comparison_takes_the_compared_attribute_of_every_named_entity():
    index = page_index()
    walk = multihop.plan(index, "Who was born first, Scott Derrickson or Chris Menges?")
    assert walk is not None and walk.comparison and walk.named == ["scott-derrickson", "chris-menges"]
    final = np.zeros(len(index.sentences))
    final[index.sentence_row("scott-derrickson/text_0-2")] = 1.0  # a sentence of one page outranks both facts
    allowed = np.array([s.role == BODY for s in index.sentences])
    order = multihop.walk_order(index, walk, np.flatnonzero(final > 0), final, allowed)
    assert order[:2].tolist() == rows_of(index, "scott-derrickson/text_0-1", "chris-menges/text_0-1")


def test_a_single_document_collection_is_not_walked():
    book = page_index({"persuasion": ["Persuasion", "Anne Elliot met Captain Wentworth.", "He was born in 1780."]})
    assert multihop.plan(book, "When was Captain Wentworth born?") is None


def test_documents_whose_lead_sentences_do_not_name_their_titles_are_not_entity_pages():
    papers = page_index({"rag": ["Retrieval-Augmented Generation", "We combine a retriever with a generator."],
                         "dpr": ["Dense Passage Retrieval", "Open-domain QA relies on efficient retrieval."],
                         "crisscross": PAGES["crisscross"]})
    assert entity_pages(papers).encyclopedic == 1 / 3
    assert multihop.plan(papers, "When was the director of CrissCross born?") is None
    assert entity_pages(page_index()).encyclopedic == 1.0


def test_a_numbered_ruler_is_named_by_rank_and_given_name_unless_two_rulers_share_it():
    lothair = {"lothair-ii": ["Lothair II", "Lothair II (835 – 8 August 869) was the king of Lotharingia."],
               "theutberga": ["Theutberga", "Theutberga was the queen of King Lothair."]}
    pages = entity_pages(page_index(lothair))
    assert pages.pages_named("King Lothair") == pages.pages_named("King Lothair II") == ["lothair-ii"]
    both = {**lothair, "lothair-i": ["Lothair I", "Lothair I (795 – 29 September 855) was the king of Italy."]}
    assert entity_pages(page_index(both)).pages_named("King Lothair") == []  # two kings called Lothair: ambiguous
