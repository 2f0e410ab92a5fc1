"""Downloadable forms of a GroundedKG: node-link JSON and GraphML.

GraphML attributes must be scalars, so the list fields (``texts``,
``grounded_texts``) are joined with :data:`LIST_SEPARATOR`.

>>> from kgcore.core.graph import GroundedGraph
>>> from kgcore.core.types import Edge, Node
>>> g = GroundedGraph({"pie": Node("pie", "pie", ["a pie", "the pie"], "entity", ["text_0-3", "text_0-9"]),
...                    "put_1": Node("put_1", "put", ["put"], "action", ["text_0-3"])},
...                   [Edge("put_1", "pie", "ARG2", "action-entity", ["text_0-3"])])
>>> xml = graphml_bytes(g).decode()
>>> "a pie | the pie" in xml and "text_0-3 | text_0-9" in xml
True
"""

from __future__ import annotations

import json

LIST_SEPARATOR = " | "


def json_bytes(graph) -> bytes:
    """The graph as networkx node-link JSON (the store's ``graph.json`` format)."""
    return json.dumps(graph.to_node_link(), ensure_ascii=False, indent=1).encode("utf-8")


def graphml_bytes(graph) -> bytes:
    """The graph as GraphML (a directed multigraph; list attributes joined)."""
    import networkx as nx

    g = nx.MultiDiGraph()
    for n in graph.nodes.values():
        g.add_node(n.node_id, label=n.label, node_type=n.node_type,
                   texts=LIST_SEPARATOR.join(n.texts), grounded_texts=LIST_SEPARATOR.join(n.grounded_texts))
    for e in graph.edges:
        g.add_edge(e.source, e.target, edge_role=e.edge_role, edge_type=e.edge_type,
                   grounded_texts=LIST_SEPARATOR.join(e.grounded_texts))
    return "\n".join(nx.generate_graphml(g, encoding="utf-8")).encode("utf-8")
