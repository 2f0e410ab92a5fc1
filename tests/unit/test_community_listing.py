"""Which top-level communities are listed: junk names (numbers, section labels, author initials, generic nouns)
and communities grounded in too few retrievable sentences (a title page's author list, one sentence's parse)
stay in the hierarchy but are not listed in the overview, the treemap or the picker."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kgcore.index.views.communities.detect import Community, Hierarchy
from kgcore.index.views.communities.listed import MIN_SENTENCES, MIN_TOPICALITY, listed, worth_listing
from kgcore.index.views.communities.overview import overview_markdown
from kgcore.index.views.communities.signals import is_peripheral
from kgcore.index.views.communities.stored import BuildStats, CommunityIndex, Params
from kgcore.index.views.communities.summaries import Claim, Summary, title_of
from kgcore.index.views.junk import is_junk_label
from ui.communities_view import choices, squarified, sub_choices, treemap_data, treemap_html


@pytest.mark.parametrize("name", ["5.2", "§ 4", "2020).4", "4b", "a.1", "10k", "O", "k", "J.", "Appendix D",
                                  "Figures 4a", "Sec. 3.2", "Table 2", "section number", "foo", "mechanism",
                                  "example", "we", "Our", "",
                                  # notation, quantities, dates, footnote marks, adjectives (24 arXiv papers)
                                  "ℎ|", "dict{", "output yˆ.", "γk", "jo@acm.org", "w.r.t", "100 GB",
                                  "150k instances", "five days", "6We", "proceedings.6", "December 2016", "able",
                                  "useful", "addition"])
def test_names_that_say_nothing_are_junk(name):
    assert is_junk_label(name)


@pytest.mark.parametrize("name", ["Chubby", "Paxos", "lock service", "T5", "GPT-4", "F1", "BM25", "k-means",
                                  "Self-RAG", "Debby Wallach", "tablet server", "2-hop reasoning",
                                  "β-VAE", "GPT-3.5", "3B", "C++", "vector database", "3-hop question",
                                  "Recall@10", "nDCG@10", "20 Newsgroups", "Decoder 2023"])
def test_names_of_things_are_not_junk(name):
    assert not is_junk_label(name)


def _summary(cid: str, entities: tuple[str, ...], n: int) -> Summary:
    claims = tuple(Claim(f"Sentence {k} about {cid}.", (f"d/text_0-{k}",)) for k in range(min(n, 2)))
    return Summary(cid, " · ".join(entities[:3]), claims, entities=entities, documents=("d",), n_sentences=n)


def _index() -> CommunityIndex:
    """Four top-level communities as the four systems papers gave: a topic, a section-number pile, a placeholder
    pair, and the authors under the title (grounded in no retrievable sentence); the topic has one child."""
    spec = [("L0.0", 0, "", ("chubby", "paxos", "p/replica", "p/2"), ("L1.0",),
             ("Chubby", "Paxos", "replica", "2"), 40),
            ("L0.1", 0, "", ("p/5.2", "p/section number", "p/bug"), (), ("5.2", "section number", "bug"), 9),
            ("L0.2", 0, "", ("p/foo", "p/mechanism"), (), ("foo", "mechanism"), 4),
            ("L0.3", 0, "", ("fay chang", "o", "debby wallach"), (), ("Fay Chang", "O", "Debby Wallach"), 0),
            ("L1.0", 1, "L0.0", ("chubby", "paxos"), (), ("Chubby", "Paxos"), 30)]
    communities = tuple(Community(cid, level, parent, members, children)
                        for cid, level, parent, members, children, _, _ in spec)
    summaries = tuple(_summary(cid, entities, n) for cid, _, _, _, _, entities, n in spec)
    return CommunityIndex(Hierarchy("leiden", 42, 10, communities, (0.4, 0.3)), summaries,
                          np.zeros((len(spec), 2), np.float32), Params(), BuildStats())


def test_only_the_topic_is_listed_and_the_hierarchy_keeps_every_community():
    ci = _index()
    assert [c.id for c in listed(ci)] == ["L0.0"]
    assert len(ci.hierarchy.at_level(0)) == 4  # kept: retrieval over summaries still sees them all
    assert choices(ci) == ["L0.0"] and sub_choices(ci, "L0.0") == ["L0.0", "L1.0"]
    assert treemap_data(ci)["ids"] == ["L0.0", "L1.0"]
    assert treemap_data(ci, max_level=0) == {"ids": ["L0.0"], "labels": ["Chubby · Paxos · replica"], "parents": [""],
                                             "values": [30]}  # sized by its descendants below the level drawn


def test_the_overview_lists_the_topic_and_says_how_many_it_leaves_out():
    md = overview_markdown("systems", _index())
    assert "1 top-level communities (3 more not listed" in md
    assert "## 1. Chubby · Paxos · replica" in md and "5.2" not in md and "Fay Chang" not in md


def test_a_community_needs_enough_grounding_and_mostly_specific_members():
    assert worth_listing(_summary("a", ("Chubby", "Paxos"), MIN_SENTENCES))
    assert not worth_listing(_summary("a", ("Chubby", "Paxos"), MIN_SENTENCES - 1))
    assert not worth_listing(_summary("a", ("Chubby", "5.2", "we", "Paxos"), 50))  # half junk
    assert not worth_listing(_summary("a", (), 50))


def test_when_no_community_is_worth_listing_every_one_is_listed():
    """A short text: every top-level community is small or junk; the picker must still offer them."""
    ci = _index()
    small = CommunityIndex(ci.hierarchy, tuple(Summary(x.community, x.title, x.claims, entities=("5.2", "foo"),
                                                       documents=x.documents, n_sentences=1) for x in ci.summaries),
                           ci.vectors, ci.params, ci.stats)
    assert {c.id for c in listed(small)} == {"L0.0", "L0.1", "L0.2", "L0.3"}
    assert set(choices(small)) == {"L0.0", "L0.1", "L0.2", "L0.3"} and "L1.0" in sub_choices(small, "L0.0")


def test_footnotes_captions_and_acknowledgements_are_not_main_text():
    assert is_peripheral("footnote", "2 Methods") and is_peripheral("caption", "4 Results")
    assert is_peripheral("body", "Acknowledgements") and is_peripheral("body", "7 ACKNOWLEDGMENTS › Funding")
    assert not is_peripheral("body", "3 Model") and not is_peripheral("appendix", "C Experimental Setup")


def test_a_community_of_footnotes_or_far_from_its_documents_is_not_listed():
    """A quoted example in a footnote ("Arya Stark · Winterfell"), grant thanks, or two generic words of one
    sentence: retrievable sentences enough, but not of the main text, or its members far from their paper."""
    topic = replace(_summary("a", ("query encoder", "DPR"), 6), main_sentences=6, topicality=MIN_TOPICALITY + 0.1)
    assert worth_listing(topic)
    assert not worth_listing(replace(topic, main_sentences=MIN_SENTENCES - 1))  # in footnotes and captions
    assert not worth_listing(replace(topic, n_sentences=30))  # 6 of 30 in the main text: mostly peripheral
    assert not worth_listing(replace(topic, topicality=MIN_TOPICALITY - 0.1))


def test_titles_are_not_built_from_junk_members():
    title = title_of(["A", "E", "L1 norm", "PageRank data", "e", "eigenvector"])
    assert title == "L1 norm · PageRank data · eigenvector"
    assert title_of(["3", "t", "cityr2 run", "100"]) == "cityr2 run"
    assert title_of(["5.2", "section number"]) == "(untitled)"


def test_the_treemap_draws_only_listed_communities_with_escaped_titles():
    html = treemap_html(_index())
    assert html.count('class="kg-tm-box kg-tm-top"') == 1 and html.count('class="kg-tm-box kg-tm-sub"') == 1
    assert "Chubby · Paxos · replica" in html and "Fay Chang" not in html and "5.2" not in html


def test_the_squarified_layout_tiles_the_area_in_proportion_to_the_values():
    values = [120, 45, 45, 30, 9, 1, 0]
    boxes = squarified(values, 1000, 460)
    total = sum(values)
    for value, (x, y, w, h) in zip(values, boxes):
        assert abs(w * h - 1000 * 460 * value / total) < 1e-6 * 1000 * 460
        assert x >= -1e-9 and y >= -1e-9 and x + w <= 1000 + 1e-9 and y + h <= 460 + 1e-9
    drawn = [b for b in boxes if b[2] * b[3] > 0]
    for i, (x1, y1, w1, h1) in enumerate(drawn):  # no two boxes overlap
        for x2, y2, w2, h2 in drawn[i + 1:]:
            assert min(x1 + w1, x2 + w2) - max(x1, x2) <= 1e-9 or min(y1 + h1, y2 + h2) - max(y1, y2) <= 1e-9
