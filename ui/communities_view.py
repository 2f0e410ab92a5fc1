"""Pure builders for the explorer's Communities tab and the Ask page's summary units (no streamlit).

Every piece of document text (titles, claims, sentences, entity labels) is escaped with :func:`ui.markup_html.esc`.

>>> from kgcore.index.views.communities.detect import Community, Hierarchy
>>> from kgcore.index.views.communities.stored import BuildStats, CommunityIndex, Params
>>> from kgcore.index.views.communities.summaries import Claim, Summary
>>> import numpy as np
>>> cs = (Community("L0.0", 0, "", ("a", "b", "c"), ("L1.0", "L1.1")), Community("L0.1", 0, "", ("d", "e")),
...       Community("L1.0", 1, "L0.0", ("a", "b")), Community("L1.1", 1, "L0.0", ("c",)))
>>> ss = tuple(Summary(c.id, f"<T{i}>", (Claim(f"S{i}.", (f"d/text_0-{i}",)),), n_sentences=n, documents=("d",),
...                    entities=(f"Topic {i}",)) for i, (c, n) in enumerate(zip(cs, [9, 4, 6, 2])))
>>> ci = CommunityIndex(Hierarchy("leiden", 1, 10, cs, (0.5, 0.4)), ss, np.zeros((4, 2)), Params(), BuildStats())
>>> t = treemap_data(ci)
>>> t["ids"], t["parents"], t["values"]
(['L0.0', 'L0.1', 'L1.0', 'L1.1'], ['', '', 'L0.0', 'L0.0'], [8, 4, 6, 2])
>>> t["labels"][0]
'&lt;T0&gt;'
>>> community_choice(ci, "L1.0")
'L1.0 · <T2> (2 entities, 6 sentences)'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kgcore.api import CommunityIndex, Summary, listed_communities

from .markup_html import badge, esc

#: Top-level communities drawn in the treemap at most (the largest); the others are listed, not drawn.
MAX_TREEMAP_TOP = 60
#: The deepest level drawn in the treemap (its communities sized by all their descendants): the browser drew the
#: six papers' 947 boxes of five levels in seconds; two levels are 260, and the picker lists every level.
MAX_TREEMAP_LEVEL = 1


def treemap_data(ci: CommunityIndex, max_top: int = MAX_TREEMAP_TOP,
                 max_level: int = MAX_TREEMAP_LEVEL) -> dict[str, list]:
    """ids, labels (escaped titles), parents and values of the treemap (a parent sized as its children): a
    leaf is sized by its grounded sentences, a parent by the sum of its children.  Only the ``max_top`` largest
    top-level communities worth listing (:func:`kgcore.api.listed_communities`) and their descendants down to
    level ``max_level``."""
    h = ci.hierarchy
    row = {c.id: i for i, c in enumerate(h.communities)}
    value: dict[str, int] = {}
    for c in sorted(h.communities, key=lambda c: -c.level):
        value[c.id] = sum(value[ch] for ch in c.children) if c.children else ci.summaries[row[c.id]].n_sentences
    top = sorted(listed_communities(ci), key=lambda c: (-value[c.id], row[c.id]))[:max_top]
    keep: list[str] = []
    todo = [c.id for c in top]
    while todo:
        cid = todo.pop(0)
        keep.append(cid)
        if h.communities[row[cid]].level < max_level:
            todo += list(h.communities[row[cid]].children)
    keep.sort(key=lambda cid: row[cid])
    return {"ids": keep, "labels": [esc(ci.summaries[row[c]].title) for c in keep],
            "parents": [h.communities[row[c]].parent for c in keep], "values": [value[c] for c in keep]}


#: The treemap's drawing area in CSS pixels.  Boxes are placed in percentages of it, so the map stretches with the
#: page's width; the layout keeps this aspect ratio.
TREEMAP_SIZE = (1000, 460)
#: A top-level box's title strip (CSS pixels) above its sub-communities.
TITLE_PX = 18
#: The smallest sub-community box (CSS pixels, width and height) that writes its title; a smaller one shows it on
#: hover only (a title cut to two letters reads as noise).
MIN_TITLED = (56, 18)
#: Light backgrounds for the top-level boxes, in turn (dark text stays readable on each).
PALETTE = ("#d6e4f0", "#fde2c8", "#d4edda", "#f8d7da", "#e2d9f3", "#f3e5d0", "#fbe1f0", "#e0e0e0",
           "#e8f0c8", "#cfeef2")


def squarified(values: list[float], width: float, height: float) -> list[tuple[float, float, float, float]]:
    """(x, y, width, height) of a box per value, in the order given, tiling ``width`` x ``height`` with areas in
    proportion to the values (Bruls et al.'s squarified layout, by the ``squarify`` package: boxes close to square
    are easier to read and to compare than slices).  A value of 0 gets an empty box.

    >>> squarified([3, 6, 1], 100, 60)
    [(60.0, 0.0, 40.0, 45.0), (0.0, 0.0, 60.0, 60.0), (60.0, 45.0, 40.0, 15.0)]
    >>> squarified([0, 2], 10, 10)
    [(0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 10.0, 10.0)]
    """
    import squarify

    order = [i for i in sorted(range(len(values)), key=lambda i: -values[i]) if values[i] > 0]
    boxes = [(0.0, 0.0, 0.0, 0.0)] * len(values)
    if not order or width <= 0 or height <= 0:
        return boxes
    rects = squarify.squarify(squarify.normalize_sizes([values[i] for i in order], width, height), 0, 0, width,
                              height)
    for i, r in zip(order, rects):
        boxes[i] = (float(r["x"]), float(r["y"]), float(r["dx"]), float(r["dy"]))
    return boxes


def treemap_html(ci: CommunityIndex, max_top: int = MAX_TREEMAP_TOP, link: Callable[[str], str] | None = None) -> str:
    """The hierarchy of :func:`treemap_data` as a treemap drawn in HTML and CSS alone: a box per listed top-level
    community (its title on a strip at the top), its sub-communities inside it, areas in proportion to grounded
    sentences; hovering a box shows its title, id and size; with ``link`` (a community id -> an address), a
    sub-community's box and a top-level box's title open that community.  No JavaScript: the first Plotly chart of
    a browser session loads 4.7 MB of it, which took the Communities tab's first open past 5 s.

    >>> from kgcore.index.views.communities.detect import Community, Hierarchy
    >>> from kgcore.index.views.communities.stored import BuildStats, CommunityIndex, Params
    >>> from kgcore.index.views.communities.summaries import Claim, Summary
    >>> import numpy as np
    >>> cs = (Community("L0.0", 0, "", ("a", "b", "c"), ("L1.0",)), Community("L1.0", 1, "L0.0", ("a", "b")))
    >>> ss = (Summary("L0.0", "<Raft> · log", (Claim("S.", ("d/t-1",)),), n_sentences=5, documents=("d",)),
    ...       Summary("L1.0", "leader", (Claim("S.", ("d/t-2",)),), n_sentences=3, documents=("d",)))
    >>> ci = CommunityIndex(Hierarchy("leiden", 2, 10, cs, (0.5, 0.4)), ss, np.zeros((2, 2)), Params(), BuildStats())
    >>> html = treemap_html(ci)
    >>> html.count("kg-tm-box kg-tm-"), "&lt;Raft&gt; · log" in html, "<Raft>" in html
    (2, True, False)
    >>> 'title="leader · L1.0: 3 sentences"' in html
    True
    >>> linked = treemap_html(ci, link=lambda cid: f"?community={cid}&x=<y>")
    >>> '<a class="kg-tm-title" href="?community=L0.0&amp;x=&lt;y&gt;" target="_self">' in linked
    True
    >>> '<a class="kg-tm-box kg-tm-sub"' in linked and 'href="?community=L1.0&amp;x=&lt;y&gt;"' in linked
    True
    """
    data = treemap_data(ci, max_top)
    width, height = TREEMAP_SIZE
    kids: dict[str, list[int]] = {}
    for i, parent in enumerate(data["parents"]):
        kids.setdefault(parent, []).append(i)
    tops = kids.get("", [])
    boxes = squarified([data["values"][i] for i in tops], width, height)
    parts = [f'<div class="kg-treemap" style="aspect-ratio:{width}/{height}" role="img" '
             f'aria-label="{len(tops)} top-level communities, sized by grounded sentences">']
    for n, (i, box) in enumerate(zip(tops, boxes)):
        inner = _inner_boxes(data, kids.get(data["ids"][i], []), box[2], box[3] - TITLE_PX, link)
        parts.append(_box_html(data, i, _percent(box, width, height), PALETTE[n % len(PALETTE)], inner,
                               titled=_titled(box), href=link(data["ids"][i]) if link else ""))
    return "".join(parts) + "</div>"


def _inner_boxes(data: dict[str, list], children: list[int], width: float, height: float,
                 link: Callable[[str], str] | None) -> str:
    """The sub-communities' boxes inside a top-level box's area below its title strip."""
    if not children or width < 2 * TITLE_PX or height < TITLE_PX:
        return ""
    boxes = squarified([data["values"][i] for i in children], width, height)
    inner = "".join(_box_html(data, i, _percent(box, width, height), "", "", titled=_titled(box),
                              href=link(data["ids"][i]) if link else "")
                    for i, box in zip(children, boxes) if box[2] > 0)
    return f'<div class="kg-tm-kids">{inner}</div>'


def _box_html(data: dict[str, list], i: int, place: str, colour: str, inner: str, titled: bool = True,
              href: str = "") -> str:
    """One community's box: ``data["labels"]`` are escaped already.  An untitled box shows its title on hover.
    With ``href``, a box holding no other box is a link, and so is the title of one that does (links do not
    nest)."""
    label, cid, value = data["labels"][i], esc(data["ids"][i]), data["values"][i]
    style = place + (f";background:{colour}" if colour else "")
    kind = "kg-tm-box kg-tm-top" if colour else "kg-tm-box kg-tm-sub"
    opened = f'class="{kind}" style="{style}" title="{label} · {cid}: {value} sentences"'
    title = f'<div class="kg-tm-title">{label}</div>' if titled else ""
    if href and not inner:
        return f'<a {opened} href="{esc(href)}" target="_self">{title}</a>'
    if href and titled:
        title = f'<a class="kg-tm-title" href="{esc(href)}" target="_self">{label}</a>'
    return f"<div {opened}>{title}{inner}</div>"


def _titled(box: tuple[float, float, float, float]) -> bool:
    return box[2] >= MIN_TITLED[0] and box[3] >= MIN_TITLED[1]


def _percent(box: tuple[float, float, float, float], width: float, height: float) -> str:
    x, y, w, h = box
    return (f"left:{100 * x / width:.2f}%;top:{100 * y / height:.2f}%;"
            f"width:{100 * w / width:.2f}%;height:{100 * h / height:.2f}%")


#: The pickers' keys, and the query parameter naming a community to open (a treemap box's link sets it).
COMMUNITY_KEY = "explorer.community"
SUB_KEY = "explorer.sub."
COMMUNITY_PARAM = "community"


def community_address(params: Mapping[str, str], community_id: str) -> str:
    """The address of the Communities tab opening ``community_id``, the page's other query parameters (the
    collection, the reviewer) kept.

    >>> community_address({"doc": "a b", "tab": "Statistics", "community": "L0.1"}, "L1.0")
    '?doc=a+b&tab=Communities&community=L1.0'
    """
    from urllib.parse import urlencode

    kept = {k: v for k, v in params.items() if k not in ("tab", COMMUNITY_PARAM)}
    return "?" + urlencode({**kept, "tab": "Communities", COMMUNITY_PARAM: community_id})


def picked(ci: CommunityIndex, community_id: str) -> tuple[str, str] | None:
    """The two pickers' values that open ``community_id``: its top-level community and itself (the top-level one
    itself is "the whole community"); None when the first picker does not offer its top-level community (an
    unknown id, or one not listed).

    >>> from kgcore.index.views.communities.detect import Community, Hierarchy
    >>> from kgcore.index.views.communities.stored import BuildStats, CommunityIndex, Params
    >>> from kgcore.index.views.communities.summaries import Claim, Summary
    >>> import numpy as np
    >>> cs = (Community("L0.0", 0, "", ("a", "b", "c"), ("L1.0",)), Community("L1.0", 1, "L0.0", ("a", "b")))
    >>> ss = tuple(Summary(c.id, "Raft · log", (Claim("S.", (f"d/t-{i}",)),), n_sentences=5, documents=("d",),
    ...                    entities=("Raft", "log")) for i, c in enumerate(cs))
    >>> ci = CommunityIndex(Hierarchy("leiden", 2, 10, cs, (0.5, 0.4)), ss, np.zeros((2, 2)), Params(), BuildStats())
    >>> picked(ci, "L1.0"), picked(ci, "L0.0"), picked(ci, "L9.9")
    (('L0.0', 'L1.0'), ('L0.0', 'L0.0'), None)
    """
    by_id = ci.hierarchy.by_id()
    if community_id not in by_id:
        return None
    top = community_id
    while by_id[top].parent:
        top = by_id[top].parent
    return (top, community_id) if top in choices(ci) else None


def community_choice(ci: CommunityIndex, community_id: str) -> str:
    """The selectbox label of a community (plain text: the selectbox escapes it)."""
    c, s = ci.community(community_id), ci.summary(community_id)
    return f"{c.id} · {s.title} ({len(c.members)} entities, {s.n_sentences} sentences)"


def choices(ci: CommunityIndex) -> list[str]:
    """The top-level communities worth listing, largest first (the first picker; their descendants are the
    second's, :func:`sub_choices`: one list of every level held 3,855 options on 24 papers and took the browser
    about a second to draw)."""
    return [c.id for c in listed_communities(ci)]


def sub_choices(ci: CommunityIndex, community_id: str) -> list[str]:
    """``community_id`` itself, then its descendants in hierarchy order (each followed by its own)."""
    by_id = ci.hierarchy.by_id()
    out: list[str] = []

    def walk(cid: str) -> None:
        out.append(cid)
        for child in by_id[cid].children:
            walk(child)

    walk(community_id)
    return out


def summary_html(summary: Summary, sentence_text: Callable[[str], str] | Mapping[str, str]) -> str:
    """A summary's claims, each followed by the source sentences it cites (id badge and text, escaped).

    An extractive claim *is* its sentence, so only its id is shown after it.

    >>> from kgcore.index.views.communities.summaries import Claim
    >>> s = Summary("L0.0", "T", (Claim("<b>A</b>", ("d/text_0-1",)),), kind="llm")
    >>> html = summary_html(s, {"d/text_0-1": "A & B."})
    >>> "&lt;b&gt;A&lt;/b&gt;" in html and "A &amp; B." in html and "d/text_0-1" in html
    True
    """
    lookup = sentence_text if callable(sentence_text) else sentence_text.get
    parts = [f'<div class="kg-community"><div class="kg-caption">{esc(_kind_label(summary))}</div>']
    for part, heading in (("summary", ""), ("finding", "Key findings")):
        claims = [c for c in summary.claims if c.part == part]
        if claims and heading:
            parts.append(f"<h5>{esc(heading)}</h5>")
        for claim in claims:
            ids = " ".join(badge(sid, title="source sentence") for sid in claim.sentence_ids)
            parts.append(f"<p>{esc(claim.text)} {ids}</p>")
            if summary.kind != "extractive":
                cited = "".join(f"<li>{badge(sid)} {esc(lookup(sid) or '')}</li>" for sid in claim.sentence_ids)
                parts.append(f'<ul class="kg-cited">{cited}</ul>')
    if not summary.claims:
        parts.append("<p><i>No retrievable sentence grounds this community.</i></p>")
    return "".join(parts) + "</div>"


def _kind_label(summary: Summary) -> str:
    if summary.kind == "extractive":
        return "Extractive summary: representative source sentences (centrality, coverage, MMR)"
    return "Abstractive report: every claim cites the community's sentences"


def members_rows(ci: CommunityIndex, community_id: str, label: Callable[[str], str],
                 documents: Callable[[str], list[str]]) -> list[dict]:
    """One row per member entity (by the summary's centrality order first): label, id, its documents."""
    summary = ci.summary(community_id)
    rank = {name: i for i, name in enumerate(summary.entities)}
    members = sorted(ci.community(community_id).members, key=lambda m: (rank.get(label(m), len(rank)), m))
    return [{"entity": label(m), "node id": m, "documents": ", ".join(documents(m))} for m in members]


def statistics_rows(ci: CommunityIndex) -> list[dict]:
    """Per level: communities, modularity, median and largest size."""
    rows = []
    for level in range(ci.hierarchy.levels):
        sizes = sorted(len(c.members) for c in ci.hierarchy.at_level(level))
        mod = ci.hierarchy.modularity[level] if level < len(ci.hierarchy.modularity) else None
        rows.append({"level": level, "communities": len(sizes), "modularity": mod,
                     "median entities": sizes[len(sizes) // 2], "largest": sizes[-1]})
    return rows


def unit_header(summary: Mapping) -> str:
    """The expander label of a summary unit in Ask's context (plain text).

    >>> unit_header({"rank": 1, "community": "L0.3", "title": "Peter · gate", "score": 0.61234, "sentence_ids": [1, 2]})
    'Summary 1 · L0.3 · Peter · gate (cosine 0.612, 2 sentences in context)'
    """
    return (f"Summary {summary['rank']} · {summary['community']} · {summary['title']} "
            f"(cosine {summary['score']:.3f}, {len(summary['sentence_ids'])} sentences in context)")


def unit_html(summary: Mapping, sentence_text: Callable[[str], str]) -> str:
    """A summary unit of a result: its text (claims) and, under it, the context sentences that back it.

    >>> print(unit_html({"claims": [{"text": "A<", "sentence_ids": ["d/text_0-1"]}], "sentence_ids": ["d/text_0-1"]},
    ...                 lambda s: "Text &"))  # doctest: +NORMALIZE_WHITESPACE
    <div class="kg-community"><p>A&lt; <span class="kg-badge">d/text_0-1</span></p><h5>Sentences in the context</h5><ul
    class="kg-cited"><li><span class="kg-badge">d/text_0-1</span> Text &amp;</li></ul></div>
    """
    claims = "".join(f"<p>{esc(c['text'])} {' '.join(badge(s) for s in c['sentence_ids'])}</p>"
                     for c in summary["claims"])
    backing = "".join(f"<li>{badge(s)} {esc(sentence_text(s))}</li>" for s in summary["sentence_ids"])
    return (f'<div class="kg-community">{claims}<h5>Sentences in the context</h5>'
            f'<ul class="kg-cited">{backing}</ul></div>')
