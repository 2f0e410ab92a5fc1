"""The collection overview (the cross-document entity graph's hierarchical summary): a markdown report of the top-level
communities worth listing (:mod:`~kgcore.index.views.communities.listed`), largest first, each with its title,
size, documents, and its summary whose every statement cites sentence ids.

>>> from kgcore.index.views.communities.detect import Community, Hierarchy
>>> from kgcore.index.views.communities.stored import BuildStats, CommunityIndex, Params
>>> from kgcore.index.views.communities.summaries import Claim, Summary
>>> import numpy as np
>>> h = Hierarchy("leiden", 42, 10, (Community("L0.0", 0, "", ("peter", "p/gate")),), (0.41,))
>>> s = Summary("L0.0", "Peter · gate", (Claim("Peter opened the gate.", ("p/text_0-3",)),), entities=("Peter", "gate"),
...             documents=("p",), n_sentences=4)
>>> md = overview_markdown("shelf", CommunityIndex(h, (s,), np.zeros((1, 2)), Params(), BuildStats()))
>>> md.splitlines()[2][:60]
'1 top-level communities (1 in all, 1 levels; leiden, at most'
>>> print("\\n".join(md.splitlines()[4:]))
## 1. Peter · gate
<BLANKLINE>
`L0.0` · 2 entities · 4 grounded sentences · documents: p
<BLANKLINE>
- Peter opened the gate. [p/text_0-3]
"""

from __future__ import annotations

from kgcore.index.views.communities.listed import MIN_SENTENCES, listed
from kgcore.index.views.communities.stored import CommunityIndex


def hidden_note(hidden: int) -> str:
    """What the count of top-level communities leaves out.

    >>> hidden_note(0), hidden_note(3)[:80]
    ('', '3 more not listed: grounded in under 2 sentences of the main text, far from what')
    """
    return (f"{hidden} more not listed: grounded in under {MIN_SENTENCES} sentences of the main text, far from "
            "what their documents are about, or mostly numbers, section labels and generic nouns; ") if hidden else ""


def _line(text: str) -> str:
    """One line of markdown text: whitespace collapsed, a leading ``#`` or ``>`` escaped.

    >>> _line("# not a heading\\n  really")
    '\\\\# not a heading really'
    """
    text = " ".join(text.split())
    return "\\" + text if text[:1] in "#>" and text else text


def overview_markdown(name: str, ci: CommunityIndex, limit: int = 0) -> str:
    """The overview of collection ``name`` (``limit`` top-level communities at most; 0: all)."""
    h = ci.hierarchy
    row = {c.id: i for i, c in enumerate(h.communities)}
    top = [row[c.id] for c in listed(ci)]
    shown = top[:limit] if limit else top
    modularity = f"; modularity {h.modularity[0]:.2f}" if h.modularity else ""
    hidden = len(h.at_level(0)) - len(top)
    out = [f"# Collection overview: {_line(name)}", "",
           f"{len(top)} top-level communities ({hidden_note(hidden)}{len(h.communities)} in all, {h.levels} levels; "
           f"{h.algorithm}, at most {h.max_cluster_size} entities before a split{modularity}). Every statement cites "
           "the sentences it comes from.", ""]
    for n, i in enumerate(shown, 1):
        community, summary = h.communities[i], ci.summaries[i]
        out += [f"## {n}. {_line(summary.title)}", "",
                f"`{community.id}` · {len(community.members)} entities · {summary.n_sentences} grounded sentences"
                f" · documents: {', '.join(summary.documents) or '-'}", ""]
        for part, heading in (("summary", ""), ("finding", "Key findings:")):
            claims = [c for c in summary.claims if c.part == part]
            if claims and heading:
                out += [heading, ""]
            out += [f"- {_line(c.text)} [{', '.join(c.sentence_ids)}]" for c in claims]
            if claims:
                out.append("")
    if len(shown) < len(top):
        out += [f"… and {len(top) - len(shown)} smaller top-level communities.", ""]
    return "\n".join(out)
