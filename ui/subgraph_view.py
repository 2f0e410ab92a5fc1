"""Pick the part of a GroundedKG to draw, capped so the browser never freezes.

Works on anything shaped like :class:`kgcore.core.graph.GroundedGraph`
(``nodes`` dict of :class:`~kgcore.core.types.Node`, ``edges`` list of
:class:`~kgcore.core.types.Edge`, ``neighbors(node_id)``).

>>> from kgcore.core.graph import GroundedGraph
>>> from kgcore.core.types import Edge, Node
>>> g = GroundedGraph({i: Node(i, i, [i], "entity", ["text_0-0"]) for i in "abcd"},
...                   [Edge("a", "b", "ARG0", "entity-entity", ["text_0-0"]),
...                    Edge("b", "c", "ARG1", "entity-entity", ["text_0-0"]),
...                    Edge("c", "d", "ARG1", "entity-entity", ["text_0-0"])])
>>> neighbourhood(g, ["a"], depth=2, max_nodes=10)
Neighbourhood(node_ids=['a', 'b', 'c'], total=3)
>>> neighbourhood(g, ["a"], depth=3, max_nodes=2).truncated
True

What the Ask page draws by default: the matched nodes and the shortest paths
joining them (edges taken in either direction), not their whole neighbourhood.

>>> joining_paths(g, ["a", "d"])
Joined(node_ids=['a', 'd', 'b', 'c'], seeds=2, unjoined=[], total=4)
>>> joining_paths(g, ["a", "d"], max_hops=2).unjoined     # too far apart to be joined
['a', 'd']

A question's query graph is a handful of nodes: it is drawn as Graphviz DOT (Streamlit's own renderer), not as
an interactive page carrying the 700 kB network library.

>>> print(query_graph_dot([VisNode("q0", 'say "hi"', "action"), VisNode("q1", "what", "unknown")],
...                       [VisEdge("q0", "q1", "ARG1")]))
digraph {
  rankdir=LR; bgcolor="transparent"; node [fontname="sans-serif" fontsize=12 style=filled fontcolor=white];
  "q0" [label="say \\"hi\\"" shape=box fillcolor="#F58518"];
  "q1" [label="what" shape=diamond fillcolor="#9AA5B1"];
  "q0" -> "q1" [label="ARG1" fontsize=10];
}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kgcore.api import Edge, LocalNode, Node, SentenceGraph

from .graph_html import KIND_COLORS, VisEdge, VisNode

#: The most nodes any graph view draws.
MAX_NODES = 300


@dataclass
class Neighbourhood:
    """Node ids to draw (seeds first) and how many the full neighbourhood had."""

    node_ids: list[str]
    total: int

    @property
    def truncated(self) -> bool:
        return self.total > len(self.node_ids)

    def notice(self) -> str:
        if not self.truncated:
            return ""
        return (f"Showing {len(self.node_ids)} of {self.total} nodes "
                f"(capped at {len(self.node_ids)} to keep the page fast)")


def neighbourhood(graph, seeds: Iterable[str], depth: int = 1, max_nodes: int = MAX_NODES) -> Neighbourhood:
    """Seeds plus everything within ``depth`` hops, breadth first.

    Within a ring, nodes linked to more already-kept nodes come first, so a
    cap drops the periphery rather than the connections between seeds.
    """
    order = [s for s in dict.fromkeys(seeds) if s in graph.nodes]
    seen = set(order)
    ring = list(order)
    for _ in range(depth):
        counts: dict[str, int] = {}
        for node_id in ring:
            for other in graph.neighbors(node_id):
                if other not in seen:
                    counts[other] = counts.get(other, 0) + 1
        ring = sorted(counts, key=lambda n: (-counts[n], n))
        order.extend(ring)
        seen.update(ring)
        if not ring:
            break
    return Neighbourhood(order[:max_nodes], len(order))


#: The longest path (in edges) drawn between two matched nodes.
JOIN_HOPS = 4


@dataclass
class Joined:
    """Matched nodes (the first ``seeds`` ids) and the nodes on the shortest paths joining them.

    ``unjoined`` are matched nodes no other one is within the hop limit of.
    """

    node_ids: list[str]
    seeds: int
    unjoined: list[str]
    total: int

    @property
    def inner(self) -> list[str]:
        return self.node_ids[self.seeds:]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.node_ids)

    def notice(self) -> str:
        return Neighbourhood(self.node_ids, self.total).notice()


def joining_paths(graph, seeds: Iterable[str], max_hops: int = JOIN_HOPS, max_nodes: int = MAX_NODES) -> Joined:
    """The seeds joined by shortest paths, greedily: each step adds the seed nearest to those already joined.

    A breadth-first search over the undirected graph from every node kept so
    far finds the closest remaining seed and the path to it (a Steiner-tree
    approximation); seeds more than ``max_hops`` edges from all the others
    stay on their own.  Neighbours are visited in sorted order, so the same
    graph always gives the same picture.
    """
    order = [s for s in dict.fromkeys(seeds) if s in graph.nodes]
    component = {s: i for i, s in enumerate(order)}
    kept, inner, remaining = set(order[:1]), [], order[1:]
    while remaining:
        path = _nearest(graph, kept, set(remaining), max_hops)
        if path is None:  # nothing within reach: the next seed starts a part of its own
            kept.add(remaining.pop(0))
            continue
        start, target = path[0], path[-1]
        remaining.remove(target)
        old, new = component[target], component[start]
        component.update({n: new for n, c in component.items() if c == old})
        for node in path:
            if node not in kept and node not in component:
                inner.append(node)
                component[node] = new
            kept.add(node)
    sizes: dict[int, int] = {}
    for s in order:
        sizes[component[s]] = sizes.get(component[s], 0) + 1
    unjoined = [s for s in order if sizes[component[s]] == 1]
    everything = order + inner
    return Joined(everything[:max_nodes], min(len(order), max_nodes), unjoined, len(everything))


def _nearest(graph, sources: set[str], targets: set[str], max_hops: int) -> list[str] | None:
    """The shortest path (as node ids) from any of ``sources`` to the nearest of ``targets``, or None."""
    frontier = sorted(sources)
    parent: dict[str, str | None] = dict.fromkeys(frontier)
    for _ in range(max_hops):
        ring = []
        for node in frontier:
            for other in sorted(graph.neighbors(node)):
                if other in parent:
                    continue
                parent[other] = node
                if other in targets:
                    path = [other]
                    while parent[path[-1]] is not None:
                        path.append(parent[path[-1]])  # type: ignore[arg-type]
                    return path[::-1]
                ring.append(other)
        frontier = ring
        if not frontier:
            break
    return None


def edges_among(graph, node_ids: Iterable[str]) -> list[Edge]:
    """Edges whose both ends are in ``node_ids``."""
    keep = set(node_ids)
    return [e for e in graph.edges if e.source in keep and e.target in keep]


def vis_from_graph(graph, node_ids: list[str],
                   emphasis: dict[str, str] | None = None) -> tuple[list[VisNode], list[VisEdge]]:
    """VisNodes/VisEdges for ``node_ids`` of a GroundedKG (``emphasis``: node id -> "matched" ...)."""
    emphasis = emphasis or {}
    nodes = [_vis_node(graph.nodes[i], emphasis.get(i, "")) for i in node_ids if i in graph.nodes]
    edges = [VisEdge(e.source, e.target, e.edge_role, tuple(e.grounded_texts)) for e in edges_among(graph, node_ids)]
    return nodes, edges


def _vis_node(node: Node, emphasis: str) -> VisNode:
    return VisNode(node.node_id, node.label, node.node_type, tuple(node.texts), tuple(node.grounded_texts), emphasis)


def vis_from_sentence_graph(query_graph: SentenceGraph | None) -> tuple[list[VisNode], list[VisEdge]]:
    """A one-sentence graph (a question's query graph, or one parser's view of a sentence)."""
    if query_graph is None:
        return [], []
    nodes = [_query_node(n) for n in query_graph.nodes]
    edges = [VisEdge(e.source, e.target, e.edge_role) for e in query_graph.edges]
    return nodes, edges


def _query_node(node: LocalNode) -> VisNode:
    if node.is_unknown:  # the asked-for slot ("what", "who"): drawn but never matched
        return VisNode(node.key, node.label, "unknown", tuple(node.texts), (), "", "the asked-for slot: not matched")
    return VisNode(node.key, node.label, node.node_type, tuple(node.texts))


def _dot(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def query_graph_dot(nodes: list[VisNode], edges: list[VisEdge]) -> str:
    """Graphviz DOT source of a small graph (a question's query graph): boxes for actions, diamonds for the asked-for
    slot, every label quoted and escaped."""
    shapes = {"action": "box", "unknown": "diamond"}
    lines = ["digraph {", '  rankdir=LR; bgcolor="transparent"; '
             'node [fontname="sans-serif" fontsize=12 style=filled fontcolor=white];']
    for n in nodes:
        lines.append(f"  {_dot(n.id)} [label={_dot(n.label)} shape={shapes.get(n.kind, 'ellipse')} "
                     f"fillcolor={_dot(KIND_COLORS.get(n.kind, '#888888'))}];")
    for e in edges:
        lines.append(f"  {_dot(e.source)} -> {_dot(e.target)} [label={_dot(e.label)} fontsize=10];")
    lines.append("}")
    return "\n".join(lines)
