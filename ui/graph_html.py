"""Self-contained, offline vis-network pages for graphs (built with pyvis).

pyvis assembles the node/edge dicts and the vis options; the page itself is
our own template, because pyvis' template always links bootstrap from a CDN.
vis-network's JS and CSS are read from the installed pyvis package and
inlined, so the graph works with no network at all.

Safety: document text only ever enters the page as JSON inside a
``<script>`` block with ``<``, ``>``, ``&`` and line separators written as
``\\uXXXX`` escapes (it cannot close the script or open a tag), and the
page's JavaScript puts text into the DOM with ``textContent`` only.
vis-network shows string tooltips with ``innerText`` and draws labels on a
canvas, so markup in a document is shown as the characters it is.

>>> page = graph_html([VisNode("a", "<script>alert(1)</script>", "entity")], [])
>>> "<script>alert(1)" in page, "\\\\u003cscript\\\\u003ealert(1)" in page
(False, True)
"""

from __future__ import annotations

import functools
import html
import importlib.util
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: Colours by node kind (colour-blind safe Tableau palette).
KIND_COLORS = {
    "entity": "#4C78A8",
    "action": "#F58518",
    "query": "#54A24B",
    "unknown": "#9AA5B1",
    # The contextual graph's nodes and the citation graph's documents.
    "sentence": "#4C78A8",
    "chunk": "#72B7B2",
    "document": "#4C78A8",
}
KIND_SHAPES = {"entity": "dot", "action": "box", "query": "ellipse", "unknown": "diamond", "sentence": "dot",
               "chunk": "box", "document": "box"}
EMPHASIS_BORDER = {"matched": "#D62728", "selected": "#9C27B0", "": None}
#: Grounded-sentence ids listed in a tooltip before "+N more".
TOOLTIP_SENTENCES = 8
#: Caps that keep the page small however large the graph is.
MAX_SENTENCE_TEXTS = 1500
MAX_SENTENCE_CHARS = 400


@dataclass(frozen=True)
class VisNode:
    """One node as drawn: ``kind`` picks colour and shape, ``emphasis`` the border."""

    id: str
    label: str
    kind: str
    texts: tuple[str, ...] = ()
    sentences: tuple[str, ...] = ()
    emphasis: str = ""
    extra: str = ""
    #: Fill colour overriding the kind's (e.g. the node's document); the shape still says its kind.
    color: str = ""


@dataclass(frozen=True)
class VisEdge:
    source: str
    target: str
    label: str
    sentences: tuple[str, ...] = ()
    kind: str = ""
    #: Line colour (e.g. by the edge's kind); the default grey when empty.
    color: str = ""
    #: False for an undirected link (drawn without an arrow head).
    directed: bool = True
    #: Tooltip lines after the label (the edge's weight, say).
    extra: str = ""


@dataclass(frozen=True)
class GraphPage:
    """Everything :func:`graph_html` needs besides nodes and edges."""

    height: int = 520
    notice: str = ""
    legend: tuple[str, ...] = ("entity", "action")
    sentence_texts: dict = field(default_factory=dict, hash=False)
    selected: str = ""
    panel: bool = True
    #: (name, colour) legend entries replacing the kinds' (when nodes are coloured by something else).
    legend_colors: tuple[tuple[str, str], ...] = ()
    #: The URL folder where the app serves vis-network's files (:func:`asset_files`), e.g. ``app/static``: the page
    #: links them and the browser keeps them between graphs.  Empty: they are inlined (700 KB in every page,
    #: which then works anywhere, even saved alone).
    assets: str = ""


@functools.lru_cache(maxsize=1)
def asset_files() -> dict[str, Path]:
    """The newest vis-network shipped inside the pyvis package: its JS and CSS files by the names they are served
    under, which carry the version (a browser never keeps an older one).

    >>> sorted(name.split("-")[-1].split(".", 1)[1] for name in asset_files())
    ['css', 'min.js']
    """
    spec = importlib.util.find_spec("pyvis")  # found, not imported: importing pyvis imports networkx and IPython
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the pyvis package is not installed; pip install pyvis")
    lib = Path(list(spec.submodule_search_locations)[0]) / "lib"
    versions = sorted(lib.glob("vis-*/vis-network.min.js"), key=lambda p: _version_key(p.parent.name))
    if not versions:
        raise FileNotFoundError(f"vis-network.min.js not found under {lib}; reinstall pyvis")
    folder = versions[-1].parent
    return {f"{folder.name}-network.min.js": folder / "vis-network.min.js",
            f"{folder.name}-network.css": folder / "vis-network.css"}


@functools.lru_cache(maxsize=1)
def vis_assets() -> tuple[str, str]:
    """(JS, CSS) of the newest vis-network shipped inside the pyvis package."""
    js_file, css_file = asset_files().values()
    js = js_file.read_text(encoding="utf-8")
    css = css_file.read_text(encoding="utf-8")
    # Neither file contains a closing tag today; guard so a future version cannot break the page.
    return js.replace("</script", "<\\/script"), css.replace("</style", "<\\/style")


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", name))


def json_for_script(data) -> str:
    """JSON that is safe inside an HTML ``<script>`` element.

    >>> json_for_script({"t": "</script><b>&"})
    '{"t": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    text = json.dumps(data, ensure_ascii=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def tooltip(node: VisNode) -> str:
    """Plain-text tooltip (vis-network shows it with ``innerText``).

    >>> print(tooltip(VisNode("pie", "pie", "entity", ("a pie",), ("text_0-3",))))
    pie (entity)
    texts: a pie
    grounded in: text_0-3
    """
    lines = [f"{node.label} ({node.kind})"]
    if node.extra:
        lines.append(node.extra)
    if node.texts:
        shown = "; ".join(node.texts[:6]) + (f"; +{len(node.texts) - 6} more" if len(node.texts) > 6 else "")
        lines.append(f"texts: {shown}")
    if node.sentences:
        ids = ", ".join(node.sentences[:TOOLTIP_SENTENCES])
        more = len(node.sentences) - TOOLTIP_SENTENCES
        lines.append(f"grounded in: {ids}" + (f" (+{more} more)" if more > 0 else ""))
    return "\n".join(lines)


def _network(nodes: list[VisNode], edges: list[VisEdge], selected: str):
    from pyvis.network import Network

    net = Network(directed=True)
    for n in nodes:
        color = n.color or KIND_COLORS.get(n.kind, "#888888")
        border = EMPHASIS_BORDER["selected" if n.id == selected else n.emphasis] or color
        net.add_node(
            n.id, label=_short(n.label), title=tooltip(n), shape=KIND_SHAPES.get(n.kind, "dot"),
            color={"background": color, "border": border, "highlight": {"background": color, "border": "#222"}},
            borderWidth=4 if n.emphasis or n.id == selected else 1,
            size=22 if n.emphasis else 14,
            font={"color": "#ffffff" if KIND_SHAPES.get(n.kind) in ("box", "ellipse") else "#1f2933"},
            kg_kind=n.kind, kg_label=n.label, kg_texts=list(n.texts), kg_sentences=list(n.sentences),
        )
    known = {n.id for n in nodes}
    for e in edges:
        if e.source in known and e.target in known:
            net.add_edge(e.source, e.target, **_edge_options(e))
    net.options = _options(len(nodes))
    return net


def _edge_options(e: VisEdge) -> dict:
    """vis-network's options of one edge: label, tooltip, dashes, and its own colour and arrow when set."""
    lines = [e.label] + ([e.extra] if e.extra else [])
    if e.sentences or not e.extra:
        lines.append(f"grounded in: {', '.join(e.sentences[:TOOLTIP_SENTENCES])}")
    options: dict = {"label": e.label, "title": "\n".join(lines), "dashes": e.label == "next",
                     "kg_sentences": list(e.sentences)}
    if e.color:
        options["color"] = {"color": e.color, "highlight": e.color, "hover": e.color}
    if not e.directed:
        options["arrows"] = {"to": {"enabled": False}}
    return options


def _short(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _options(n_nodes: int) -> dict:
    return {
        "physics": {
            "solver": "forceAtlas2Based",
            "forceAtlas2Based": {"gravitationalConstant": -70, "springLength": 110, "avoidOverlap": 0.5},
            "stabilization": {"enabled": True, "iterations": 250 if n_nodes < 150 else 120, "fit": True},
        },
        "edges": {
            "arrows": {"to": {"enabled": True, "scaleFactor": 0.5}},
            "font": {"size": 11, "align": "middle", "color": "#52606d", "strokeWidth": 3},
            "color": {"color": "#a3aab3", "highlight": "#D62728", "hover": "#52606d"},
            "smooth": {"enabled": True, "type": "continuous"},
        },
        "nodes": {"font": {"size": 18 if n_nodes <= 40 else 14, "face": "sans-serif"}, "margin": 8},
        "interaction": {"hover": True, "tooltipDelay": 150, "navigationButtons": False, "keyboard": False,
                        "hideEdgesOnDrag": n_nodes > 150},
    }


def shown_texts(index, nodes: Sequence[VisNode], edges: Sequence[VisEdge] = ()) -> dict[str, str]:
    """The text of each sentence the drawn ``nodes`` and ``edges`` are grounded in (at most
    :data:`MAX_SENTENCE_TEXTS`), read from ``index`` one by one: a large collection's other sentences are not read.

    >>> from types import SimpleNamespace as NS
    >>> index = NS(has_sentence=lambda s: s != "gone", sentence=lambda s: NS(original=f"text of {s}"))
    >>> shown_texts(index, [VisNode("a", "A", "entity", sentences=("s1", "gone"))], [VisEdge("a", "b", "r", ("s2",))])
    {'s1': 'text of s1', 's2': 'text of s2'}
    """
    wanted = [s for s in _drawn_sentences(nodes, edges) if index.has_sentence(s)][:MAX_SENTENCE_TEXTS]
    return {s: index.sentence(s).original for s in wanted}


def _drawn_sentences(nodes: Sequence[VisNode], edges: Sequence[VisEdge]) -> list[str]:
    """The sentences the drawn nodes, then edges, are grounded in, each once, in order."""
    return list(dict.fromkeys([s for n in nodes for s in n.sentences] + [s for e in edges for s in e.sentences]))


def _sentence_texts(nodes: list[VisNode], edges: list[VisEdge], texts: dict) -> dict[str, str]:
    wanted: dict[str, str] = {}
    for sid in _drawn_sentences(nodes, edges):
        if len(wanted) >= MAX_SENTENCE_TEXTS:
            break
        if sid in texts:
            text = str(texts[sid])
            wanted[sid] = text if len(text) <= MAX_SENTENCE_CHARS else text[: MAX_SENTENCE_CHARS - 1] + "…"
    return wanted


def graph_html(nodes: list[VisNode], edges: list[VisEdge], page: GraphPage = GraphPage()) -> str:
    """A complete HTML page drawing the graph, with a click-for-details panel."""
    net = _network(nodes, edges, page.selected)
    data = {
        "nodes": net.nodes,
        "edges": net.edges,
        "options": net.options,
        "sentences": _sentence_texts(nodes, edges, page.sentence_texts),
        "notice": page.notice,
        "legend": [list(item) for item in page.legend_colors] or [[kind, KIND_COLORS.get(kind, "#888888")]
                                                                  for kind in page.legend],
        "selected": page.selected,
        "panel": page.panel,
    }
    values = {"HEIGHT": str(int(page.height)), "DATA": json_for_script(data), **_library(page.assets)}
    # One pass: inserted content (which may contain anything) is never scanned for placeholders.
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _TEMPLATE)


def _library(folder: str) -> dict[str, str]:
    """The template's vis-network tags: linked from the URL ``folder`` when given, else inlined."""
    if not folder:
        js, css = vis_assets()
        return {"VIS_CSS": f"<style>{css}</style>", "VIS_JS": f"<script>{js}</script>"}
    js_name, css_name = (html.escape(f"{folder.rstrip('/')}/{name}") for name in asset_files())
    return {"VIS_CSS": f'<link rel="stylesheet" href="{css_name}">', "VIS_JS": f'<script src="{js_name}"></script>'}


_PLACEHOLDER = re.compile(r"__(HEIGHT|VIS_CSS|DATA|VIS_JS)__")
_TEMPLATE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
__VIS_CSS__
<style>
  html, body { margin: 0; padding: 0; font-family: "Source Sans Pro", "Segoe UI", sans-serif; color: #1f2933;
               background: #fff; }
  #wrap { display: flex; gap: 10px; height: __HEIGHT__px; }
  #graph { flex: 1 1 auto; min-width: 0; border: 1px solid #d9dee4; border-radius: 8px; background: #fbfcfd;
           position: relative; }
  #panel { flex: 0 0 32%; max-width: 360px; border: 1px solid #d9dee4; border-radius: 8px; padding: 10px 12px;
           overflow-y: auto; font-size: 13px; }
  #panel h4 { margin: 0 0 6px 0; font-size: 15px; word-break: break-word; }
  #panel .kind { display: inline-block; padding: 1px 7px; border-radius: 9px; color: #fff; font-size: 11px;
                 margin-bottom: 6px; }
  #panel .hint { color: #7b8794; }
  #panel ul { padding-left: 16px; margin: 4px 0 8px 0; }
  #panel .sid { font-family: monospace; font-size: 11px; background: #eef2f6; border-radius: 4px; padding: 0 4px;
                margin-right: 4px; }
  #panel .sec { font-weight: 600; margin-top: 8px; }
  #bar { display: flex; gap: 14px; align-items: center; font-size: 12px; color: #52606d; margin-bottom: 6px;
         flex-wrap: wrap; }
  #bar .dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 4px;
              vertical-align: -1px; }
  #notice { background: #fff4e5; border: 1px solid #f5b971; color: #8a4b08; border-radius: 6px; padding: 2px 8px; }
  div.vis-tooltip { white-space: pre-line; max-width: 420px; font-size: 12px; }
</style></head>
<body>
<div id="bar"></div>
<div id="wrap"><div id="graph"></div><div id="panel"></div></div>
<script>const KG = __DATA__;</script>
__VIS_JS__
<script>
(function () {
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  const bar = document.getElementById("bar");
  KG.legend.forEach(function (item) {
    const span = el("span"); const dot = el("span", "dot"); dot.style.background = item[1];
    span.appendChild(dot); span.appendChild(document.createTextNode(item[0])); bar.appendChild(span);
  });
  bar.appendChild(el("span", "", KG.nodes.length + " nodes, " + KG.edges.length + " edges"));
  if (KG.notice) bar.appendChild(el("span", "", KG.notice)).id = "notice";
  const panel = document.getElementById("panel");
  if (!KG.panel) panel.style.display = "none";
  function hint() {
    panel.replaceChildren(el("div", "hint",
                             "Click a node or an edge to see its texts and the sentences it is grounded in."));
  }
  function sentenceList(ids) {
    const ul = el("ul");
    ids.forEach(function (sid) {
      const li = el("li"); li.appendChild(el("span", "sid", sid));
      if (KG.sentences[sid]) li.appendChild(document.createTextNode(KG.sentences[sid]));
      ul.appendChild(li);
    });
    return ul;
  }
  function showNode(node) {
    panel.replaceChildren();
    panel.appendChild(el("h4", "", node.kg_label));
    const kind = el("span", "kind", node.kg_kind);
    kind.style.background = (node.color && node.color.background) || "#888"; panel.appendChild(kind);
    panel.appendChild(el("div", "sid", node.id));
    if (node.kg_texts && node.kg_texts.length) {
      panel.appendChild(el("div", "sec", "Texts (" + node.kg_texts.length + ")"));
      const ul = el("ul");
      node.kg_texts.forEach(function (t) { ul.appendChild(el("li", "", t)); });
      panel.appendChild(ul);
    }
    panel.appendChild(el("div", "sec", "Grounded in " + (node.kg_sentences || []).length + " sentence(s)"));
    panel.appendChild(sentenceList(node.kg_sentences || []));
  }
  function showEdge(edge) {
    panel.replaceChildren();
    const a = nodes.get(edge.from), b = nodes.get(edge.to);
    panel.appendChild(el("h4", "", (a ? a.kg_label : edge.from) + " \\u2192 " + (b ? b.kg_label : edge.to)));
    panel.appendChild(el("div", "sec", "role: " + edge.label));
    panel.appendChild(el("div", "sec", "Grounded in " + (edge.kg_sentences || []).length + " sentence(s)"));
    panel.appendChild(sentenceList(edge.kg_sentences || []));
  }
  const nodes = new vis.DataSet(KG.nodes);
  const edges = new vis.DataSet(KG.edges);
  const network = new vis.Network(document.getElementById("graph"), { nodes: nodes, edges: edges }, KG.options);
  network.once("stabilizationIterationsDone", function () { network.setOptions({ physics: false }); });
  // Drawn while hidden (an inactive tab has no size), the view was fitted to nothing: fit it once it is shown.
  const box = document.getElementById("graph");
  let hidden = box.clientWidth === 0;
  new ResizeObserver(function () {
    if (hidden && box.clientWidth) { network.redraw(); network.fit(); }
    hidden = box.clientWidth === 0;
  }).observe(box);
  network.on("click", function (p) {
    if (p.nodes.length) showNode(nodes.get(p.nodes[0]));
    else if (p.edges.length) showEdge(edges.get(p.edges[0]));
    else hint();
  });
  if (KG.selected && nodes.get(KG.selected)) { network.selectNodes([KG.selected]); showNode(nodes.get(KG.selected)); }
  else hint();
})();
</script>
</body></html>
"""
