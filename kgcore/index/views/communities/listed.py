"""Which top-level communities are worth listing: a topic, not a parse of one sentence, a title page or a pile of
numbers.

On four systems papers, 102 top-level communities were listed beside four good ones, titled "5.2 · section
number", "foo · mechanism" or "Fay Chang · O · Debby Wallach" (the authors under a title).  The hierarchy keeps
every community (retrieval uses them all); the overview, the treemap and the picker list a top-level community
only when

* it is grounded in at least :data:`MIN_SENTENCES` retrievable sentences: an author list on a title page is
  grounded in none (the authors' lines are not retrieved), a link from one sentence's parse in one or two; and
* fewer than half of its :data:`CENTRAL` most central members are junk (numbers, section labels, pronouns,
  lone initials, generic nouns: :func:`~kgcore.index.views.junk.is_junk_label`).

>>> from kgcore.index.views.communities.summaries import Summary
>>> worth_listing(Summary("L0.1", "Paxos · replica", (), entities=("Paxos", "replica", "2"), n_sentences=12))
True
>>> worth_listing(Summary("L0.2", "5.2 · section number", (), entities=("5.2", "section number"), n_sentences=9))
False
>>> worth_listing(Summary("L0.3", "Fay Chang · O · Debby Wallach", (), entities=("Fay Chang", "O"), n_sentences=0))
False
"""

from __future__ import annotations

from kgcore.index.views.communities.detect import Community
from kgcore.index.views.communities.stored import CommunityIndex
from kgcore.index.views.communities.summaries import Summary
from kgcore.index.views.junk import is_junk_label

#: A listed community is grounded in at least this many retrievable sentences.
MIN_SENTENCES = 3
#: Its most central members (named ones first, as its title) judged for junk.
CENTRAL = 10


def worth_listing(summary: Summary) -> bool:
    """Whether a top-level community with this summary is listed (see the module docstring)."""
    central = summary.entities[:CENTRAL]
    junk = sum(is_junk_label(name) for name in central)
    return summary.n_sentences >= MIN_SENTENCES and bool(central) and junk * 2 < len(central)


def listed(ci: CommunityIndex) -> list[Community]:
    """The top-level communities worth listing, the most grounded first (ties in hierarchy order); every one when
    none is (a short text's communities are all small: hiding them all would leave nothing to open)."""
    top = [c for c in ci.hierarchy.at_level(0) if worth_listing(ci.summary(c.id))] or list(ci.hierarchy.at_level(0))
    return sorted(top, key=lambda c: -ci.summary(c.id).n_sentences)
