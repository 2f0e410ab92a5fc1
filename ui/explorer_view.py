"""Tables and charts behind the graph explorer: node search and graph statistics (pure, no streamlit).

>>> from kgcore.core.graph import GroundedGraph
>>> from kgcore.core.types import Edge, Node
>>> g = GroundedGraph({"pie": Node("pie", "pie", ["a pie"], "entity", ["text_0-3"]),
...                    "put_1": Node("put_1", "put", ["put"], "action", ["text_0-3"]),
...                    "peter": Node("peter", "Peter", ["Peter"], "entity", ["text_0-1", "text_0-3"]),
...                    "i": Node("i", "I", ["I", "me"], "entity", ["text_0-2"])},
...                   [Edge("put_1", "pie", "ARG2", "action-entity", ["text_0-3"]),
...                    Edge("put_1", "i", "ARG0", "action-entity", ["text_0-3"])])
>>> search_nodes(g, "PIE")["node id"].tolist()
['pie']
>>> search_nodes(g, "")["node id"].tolist()     # no query: most connected first, pronouns last
['put_1', 'pie', 'peter', 'i']
>>> search_nodes(g, "i")["node id"].tolist()    # its exact label still first
['i', 'pie']
>>> stats = graph_stats(g)
>>> stats["node_types"].to_dict("records")
[{'type': 'entity', 'count': 3}, {'type': 'action', 'count': 1}]
>>> stats["top_nodes"]["node"].tolist()
['put', 'pie', 'I', 'Peter']

In a collection, nodes are coloured by the document they are grounded in;
a node grounded in several documents (a shared name) gets its own colour.

>>> docs = {"pie": ["a"], "put_1": ["a"], "peter": ["a", "b"]}
>>> shared_entities(g, docs).values.tolist()
[['Peter', 'entity', 'a, b', 2, 2, 'peter']]
>>> nodes, legend = colour_by_document([VisNode("peter", "Peter", "entity"), VisNode("pie", "pie", "entity")],
...                                    docs, document_palette(["a", "b"]))
>>> [n.color for n in nodes], [name for name, _ in legend]
(['#E45756', '#4C78A8'], ['a', 'shared by several documents'])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import pandas as pd

from kgcore.api import is_pronoun_label
from ui.chart_view import slanted_axis

from .graph_html import KIND_COLORS, VisNode
from .labels import SHARED_GROUP

if TYPE_CHECKING:
    import altair as alt

#: Rows the search table shows.
SEARCH_LIMIT = 200
TOP_NODES = 20
TOP_ROLES = 25
#: Colours of a collection's documents, in collection order (colour-blind safe; red and purple are borders).
DOCUMENT_COLORS = ("#4C78A8", "#F58518", "#54A24B", "#72B7B2", "#EECA3B", "#B279A2", "#9D755D", "#FF9DA6",
                   "#BAB0AC", "#79706E")
SHARED_COLOR = "#E45756"
#: Ticks of the degree histogram's log axis.
POWERS_OF_TEN = [10**i for i in range(9)]


def degrees(graph) -> Counter:
    counts: Counter = Counter(dict.fromkeys(graph.nodes, 0))
    for e in graph.edges:
        counts[e.source] += 1
        counts[e.target] += 1
    return counts


def search_nodes(graph, query: str, limit: int = SEARCH_LIMIT) -> pd.DataFrame:
    """Nodes whose label or texts contain ``query`` (case-insensitive); exact labels first, then by degree, nodes
    labelled by a pronoun last (an unresolved "I" links every speaker's dialogue: 2,499 edges in The Phantom of the
    Opera, where it was the node the explorer opened on)."""
    needle = " ".join(query.lower().split())
    degree = degrees(graph)
    rows = []
    for node in graph.nodes.values():
        haystack = [node.label.lower()] + [t.lower() for t in node.texts]
        if needle and not any(needle in h for h in haystack):
            continue
        exact = needle and node.label.lower() == needle
        rows.append((0 if exact else 1, is_pronoun_label(node.label), -degree[node.node_id], node.node_id, node))
    rows.sort(key=lambda r: r[:4])
    return pd.DataFrame(
        [{"node": n.label, "type": n.node_type, "degree": -d, "sentences": len(n.grounded_texts),
          "texts": "; ".join(n.texts[:4]), "node id": n.node_id} for _, _, d, _, n in rows[:limit]],
        columns=["node", "type", "degree", "sentences", "texts", "node id"],
    )


def graph_stats(graph) -> dict[str, pd.DataFrame]:
    """Counts by node type and edge role, the degree distribution and the top-degree nodes."""
    degree = degrees(graph)
    node_types = Counter(n.node_type for n in graph.nodes.values())
    roles = Counter(e.edge_role for e in graph.edges)
    top = degree.most_common(TOP_NODES)
    label_counts = Counter(graph.nodes[i].label for i, _ in top)
    # Actions stay one node per occurrence, so several top nodes can share a label ("go"); name them apart.
    shown = {i: graph.nodes[i].label if label_counts[graph.nodes[i].label] == 1 else f"{graph.nodes[i].label} ({i})"
             for i, _ in top}
    return {
        "node_types": pd.DataFrame(node_types.most_common(), columns=["type", "count"]),
        "edge_roles": pd.DataFrame(roles.most_common(TOP_ROLES), columns=["role", "count"]),
        "degrees": pd.DataFrame({"degree": list(degree.values())}),
        "top_nodes": pd.DataFrame(
            [{"node": shown[i], "type": graph.nodes[i].node_type, "degree": d,
              "sentences": len(graph.nodes[i].grounded_texts), "node id": i} for i, d in top],
            columns=["node", "type", "degree", "sentences", "node id"],
        ),
    }


def stats_figures(stats: dict[str, pd.DataFrame]) -> list[alt.Chart]:
    """The four statistics charts: nodes by type, edges by role, degree histogram (log count), most connected nodes.

    Node types keep the graph's colours; node labels from the document are data (axis text and tooltips), never
    markup.  The histogram is drawn from the count of nodes per degree, so a large graph sends a short table.

    >>> stats = {"node_types": pd.DataFrame({"type": ["entity", "action"], "count": [3, 1]}),
    ...          "edge_roles": pd.DataFrame({"role": ["ARG0"], "count": [2]}),
    ...          "degrees": pd.DataFrame({"degree": [1, 1, 2, 0]}),
    ...          "top_nodes": pd.DataFrame({"node": ["<b>put</b>"], "type": ["action"], "degree": [2],
    ...                                     "sentences": [1], "node id": ["put_1"]})}
    >>> types, roles, degree, top = (c.to_dict() for c in stats_figures(stats))
    >>> types["encoding"]["color"]["scale"]
    {'domain': ['entity', 'action'], 'range': ['#4C78A8', '#F58518']}
    >>> next(iter(degree["datasets"].values())), degree["encoding"]["y"]["scale"]["type"]
    ([{'degree': 0, 'nodes': 1}, {'degree': 1, 'nodes': 2}, {'degree': 2, 'nodes': 1}], 'log')
    >>> next(iter(top["datasets"].values()))[0]["node"], top["encoding"]["y"]["sort"]
    ('<b>put</b>', ['<b>put</b>'])
    """
    import altair as alt

    types = list(dict.fromkeys([*stats["node_types"]["type"], *stats["top_nodes"]["type"]]))
    colour = alt.Color("type:N", scale=alt.Scale(domain=types, range=[KIND_COLORS.get(t, "#888888") for t in types]))
    degrees = stats["degrees"]["degree"].value_counts().sort_index().rename_axis("degree").reset_index(name="nodes")
    top = stats["top_nodes"]
    slanted = slanted_axis()
    counts = alt.Y("count:Q", axis=alt.Axis(tickMinStep=1, format="d"))
    log_counts = alt.Scale(type="log", domainMin=0.5)  # a bar of one node stays visible (a log axis has no zero)
    return [
        alt.Chart(stats["node_types"], title="Nodes by type").mark_bar().encode(
            x=alt.X("type:N", sort=None, axis=slanted), y=counts, color=colour, tooltip=["type:N", "count:Q"]),
        alt.Chart(stats["edge_roles"], title="Edges by role").mark_bar().encode(
            x=alt.X("role:N", sort=None, axis=slanted), y=counts, tooltip=["role:N", "count:Q"]),
        alt.Chart(degrees, title="Degree distribution (log count)").mark_bar().encode(
            x=alt.X("degree:Q", bin=alt.Bin(maxbins=40)), y=alt.Y("sum(nodes):Q", title="nodes", scale=log_counts,
                                                                  axis=alt.Axis(values=POWERS_OF_TEN, format="~s")),
            tooltip=[alt.Tooltip("degree:Q", bin=alt.Bin(maxbins=40)), alt.Tooltip("sum(nodes):Q", title="nodes")]),
        alt.Chart(top, title="Most connected nodes").mark_bar().encode(
            x="degree:Q", y=alt.Y("node:N", sort=list(top["node"]), title=None, axis=alt.Axis(labelLimit=260)),
            color=colour,
            tooltip=["node:N", "type:N", "degree:Q", "sentences:Q"]),
    ]


def document_palette(doc_ids: Sequence[str]) -> dict[str, str]:
    """A colour per document, in collection order (the palette repeats after ten documents)."""
    return {d: DOCUMENT_COLORS[i % len(DOCUMENT_COLORS)] for i, d in enumerate(doc_ids)}


def colour_by_document(nodes: Sequence[VisNode], node_documents: Mapping[str, Sequence[str]],
                       palette: Mapping[str, str]) -> tuple[list[VisNode], tuple[tuple[str, str], ...]]:
    """The nodes filled with their document's colour (shared ones with :data:`SHARED_COLOR`) and the legend
    entries of the colours used, in collection order."""
    used: set[str] = set()
    out = []
    for n in nodes:
        docs = node_documents.get(n.id, [])
        group = SHARED_GROUP if len(docs) > 1 else docs[0] if docs else ""
        used.add(group)
        out.append(replace(n, color=SHARED_COLOR if group == SHARED_GROUP else palette.get(group, "")))
    legend = tuple((d, colour) for d, colour in palette.items() if d in used)
    return out, legend + (((SHARED_GROUP, SHARED_COLOR),) if SHARED_GROUP in used else ())


def shared_entities(graph, node_documents: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Nodes grounded in more than one document: most documents first, then most sentences."""
    rows = []
    for node_id, docs in node_documents.items():
        node = graph.nodes.get(node_id)
        if node is None or len(docs) < 2:
            continue
        rows.append({"entity": node.label, "type": node.node_type, "documents": ", ".join(docs),
                     "in documents": len(docs), "sentences": len(node.grounded_texts), "node id": node_id})
    rows.sort(key=lambda r: (-r["in documents"], -r["sentences"], r["entity"].lower()))
    return pd.DataFrame(rows, columns=["entity", "type", "documents", "in documents", "sentences", "node id"])
