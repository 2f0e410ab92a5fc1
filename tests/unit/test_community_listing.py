"""Which top-level communities are listed: junk names (numbers, section labels, author initials, generic nouns)
and communities grounded in too few retrievable sentences (a title page's author list, one sentence's parse)
stay in the hierarchy but are not listed in the overview, the treemap or the picker."""

from __future__ import annotations

import numpy as np
import pytest

from kgcore.index.views.communities.detect import Community, Hierarchy
from kgcore.index.views.communities.listed import MIN_SENTENCES, listed, worth_listing
from kgcore.index.views.communities.overview import overview_markdown
from kgcore.index.views.communities.stored import BuildStats, CommunityIndex, Params
from kgcore.index.views.communities.summaries import Claim, Summary
from kgcore.index.views.junk import is_junk_label
from ui.communities_view import choices, treemap_data


@pytest.mark.parametrize("name", ["5.2", "§ 4", "2020).4", "4b", "a.1", "10k", "O", "k", "J.", "Appendix D",
                                  "Figures 4a", "Sec. 3.2", "Table 2", "section number", "foo", "mechanism",
                                  "example", "we", "Our", ""])
def test_names_that_say_nothing_are_junk(name):
    assert is_junk_label(name)


@pytest.mark.parametrize("name", ["Chubby", "Paxos", "lock service", "T5", "GPT-4", "F1", "BM25", "k-means",
                                  "Self-RAG", "Debby Wallach", "tablet server", "2-hop reasoning"])
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
    assert choices(ci) == ["L0.0", "L1.0"]
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
    assert choices(small)[:1] and set(choices(small)) >= {"L0.0", "L1.0"}
