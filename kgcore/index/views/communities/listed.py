"""Which top-level communities are worth listing: a topic, not a parse of one sentence, a title page, a footnote's
example or a pile of numbers.

On four systems papers, 102 top-level communities were listed beside four good ones, titled "5.2 · section
number", "foo · mechanism" or "Fay Chang · O · Debby Wallach" (the authors under a title).  The hierarchy keeps
every community (retrieval uses them all); the overview, the treemap and the picker list a top-level community
only when

* it is grounded in at least :data:`MIN_SENTENCES` retrievable sentences of the **main text**
  (:mod:`~kgcore.index.views.communities.signals`: no footnote, caption or acknowledgement): an author list on
  a title page is grounded in none (the authors' lines are not retrieved), a quoted example in a footnote or a
  grant in the acknowledgements in none of the main text, a link from one sentence's parse in one; and at least
  :data:`MAIN_SHARE` of its grounding is main text (a pile of footnoted examples or affiliations is not a topic
  because two of its sentences are in the body);
* fewer than half of its :data:`CENTRAL` most central members are junk (numbers, section labels, pronouns,
  lone initials, notation, generic nouns: :func:`~kgcore.index.views.junk.is_junk_label`); and
* its **topicality** (the largest cosine of a member to the centroid of its documents) is at least
  :data:`MIN_TOPICALITY`: "gap · large" or "Mündler · perspective" are far from what their paper is about.

Measured by hand labels of top-level communities (``bench/data/community_labels.csv``, made before this rule;
``bench/experiments/community_counts.py``, figures in docs/evaluation.md).  A summary that does not carry the
two signals (built elsewhere) is judged by its sentences and members alone.

>>> worth_listing(Summary("L0.1", "Paxos · replica", (), entities=("Paxos", "replica", "2"), n_sentences=12))
True
>>> worth_listing(Summary("L0.2", "5.2 · section number", (), entities=("5.2", "section number"), n_sentences=9))
False
>>> worth_listing(Summary("L0.3", "Fay Chang · O · Debby Wallach", (), entities=("Fay Chang", "O"), n_sentences=0))
False
>>> from dataclasses import replace
>>> arya = Summary("L0.4", "Arya Stark · Winterfell", (), entities=("Arya Stark", "Winterfell"), n_sentences=2)
>>> worth_listing(arya), worth_listing(replace(arya, main_sentences=0, topicality=0.5))
(True, False)
>>> worth_listing(replace(arya, main_sentences=2, topicality=0.15))
False
"""

from __future__ import annotations

from kgcore.index.views.communities.detect import Community
from kgcore.index.views.communities.stored import CommunityIndex
from kgcore.index.views.communities.summaries import Summary
from kgcore.index.views.junk import is_junk_label

#: A listed community is grounded in at least this many retrievable sentences of the main text.
MIN_SENTENCES = 2
#: Least share of its retrievable grounding sentences that are main text.
MAIN_SHARE = 1 / 3
#: Its most central members (named ones first, as its title) judged for junk.
CENTRAL = 10
#: Least cosine of its closest member to the centroid of its documents' sentences (MiniLM).
MIN_TOPICALITY = 0.33


def worth_listing(summary: Summary) -> bool:
    """Whether a top-level community with this summary is listed (see the module docstring)."""
    central = summary.entities[:CENTRAL]
    junk = sum(is_junk_label(name) for name in central)
    main = summary.n_sentences if summary.main_sentences is None else summary.main_sentences
    grounded = main >= MIN_SENTENCES and main >= MAIN_SHARE * summary.n_sentences
    topical = summary.topicality is None or summary.topicality >= MIN_TOPICALITY
    return grounded and bool(central) and junk * 2 < len(central) and topical


def listed(ci: CommunityIndex) -> list[Community]:
    """The top-level communities worth listing, the most grounded first (ties in hierarchy order); every one when
    none is (a short text's communities are all small: hiding them all would leave nothing to open)."""
    top = [c for c in ci.hierarchy.at_level(0) if worth_listing(ci.summary(c.id))] or list(ci.hierarchy.at_level(0))
    return sorted(top, key=lambda c: -ci.summary(c.id).n_sentences)
