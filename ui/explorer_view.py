"""Tables and charts behind the graph explorer: node search and graph statistics (pure, no streamlit).

>>> from kgcore.index.graph import GroundedGraph
>>> from kgcore.core.types import Edge, Node
>>> g = GroundedGraph({"pie": Node("pie", "pie", ["a pie"], "entity", ["text_0-3"]),
...                    "put_1": Node("put_1", "put", ["put"], "action", ["text_0-3"]),
...                    "peter": Node("peter", "Peter", ["Peter"], "entity", ["text_0-1", "text_0-3"])},
...                   [Edge("put_1", "pie", "ARG2", "action-entity", ["text_0-3"])])
>>> search_nodes(g, "PIE")["node id"].tolist()
['pie']
>>> search_nodes(g, "")["node id"].tolist()     # no query: most connected first
['pie', 'put_1', 'peter']
>>> stats = graph_stats(g)
>>> stats["node_types"].to_dict("records")
[{'type': 'entity', 'count': 2}, {'type': 'action', 'count': 1}]
>>> stats["top_nodes"]["node"].tolist()
['pie', 'put', 'Peter']
"""

from __future__ import annotations

from collections import Counter

import pandas as pd
import plotly.express as px
from plotly.graph_objects import Figure

from .graph_html import KIND_COLORS
from .markup import esc

#: Rows the search table shows.
SEARCH_LIMIT = 200
TOP_NODES = 20
TOP_ROLES = 25


def degrees(graph) -> Counter:
    counts: Counter = Counter(dict.fromkeys(graph.nodes, 0))
    for e in graph.edges:
        counts[e.source] += 1
        counts[e.target] += 1
    return counts


def search_nodes(graph, query: str, limit: int = SEARCH_LIMIT) -> pd.DataFrame:
    """Nodes whose label or texts contain ``query`` (case-insensitive); exact labels first, then by degree."""
    needle = " ".join(query.lower().split())
    degree = degrees(graph)
    rows = []
    for node in graph.nodes.values():
        haystack = [node.label.lower()] + [t.lower() for t in node.texts]
        if needle and not any(needle in h for h in haystack):
            continue
        exact = needle and node.label.lower() == needle
        rows.append((0 if exact else 1, -degree[node.node_id], node.node_id, node))
    rows.sort(key=lambda r: r[:3])
    return pd.DataFrame(
        [{"node": n.label, "type": n.node_type, "degree": -d, "sentences": len(n.grounded_texts),
          "texts": "; ".join(n.texts[:4]), "node id": n.node_id} for _, d, _, n in rows[:limit]],
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


def stats_figures(stats: dict[str, pd.DataFrame]) -> list[Figure]:
    """The four statistics charts: nodes by type, edges by role, degree histogram, most connected nodes.

    Plotly reads HTML entities and a few tags in labels, so node labels from the document are escaped.
    """
    colors = {"color_discrete_map": KIND_COLORS}
    top = stats["top_nodes"].assign(node=lambda df: df["node"].map(esc) + "  ")
    return [
        px.bar(stats["node_types"], x="type", y="count", color="type", title="Nodes by type", **colors),
        px.bar(stats["edge_roles"], x="role", y="count", title="Edges by role"),
        px.histogram(stats["degrees"], x="degree", log_y=True, title="Degree distribution (log count)"),
        px.bar(top, x="degree", y="node", orientation="h", color="type", title="Most connected nodes",
               category_orders={"node": list(top["node"])}, hover_data=["sentences"], **colors),
    ]
