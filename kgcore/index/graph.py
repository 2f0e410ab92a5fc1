"""Building a document's grounded graph: its sentence graphs merged into one :class:`~kgcore.core.graph.GroundedGraph`.

Rules (paper section 3.1/3.2):

* entity nodes with the same ``merge_key`` become one node across the
  document; their ``texts`` and ``grounded_texts`` are unions;
* action nodes stay per occurrence and get ids ``{label}_{n}`` (``give_12``);
* with a ``doc_id``, ids are unique in a collection: actions and common-noun
  entities live in the document (``crusoe/give_12``, ``crusoe/father``: two
  novels' fathers are different people), while a proper name keeps its bare
  key (``peter``) so the same name in several documents is one node;
* inside each sentence, consecutive actions (by surface ``order``) are
  linked by ``next`` edges;
* edges with the same (source, target, role) are merged, their grounding
  unioned.

>>> from kgcore.core.types import LocalNode, LocalEdge, SentenceGraph
>>> s1 = SentenceGraph("text_0-0", (
...     LocalNode("a", "make", ("made",), "action", order=1),
...     LocalNode("b", "tea", ("some camomile tea",), "entity", "tea", 2),
...     LocalNode("c", "give", ("gave",), "action", order=3)),
...     (LocalEdge("a", "b", "ARG1", "action-entity"),))
>>> s2 = SentenceGraph("text_0-1", (
...     LocalNode("x", "tea", ("tea",), "entity", "tea"),), ())
>>> g = build_graph([s1, s2])
>>> sorted(g.nodes)
['give_1', 'make_0', 'tea']
>>> g.nodes["tea"].grounded_texts, g.nodes["tea"].texts
(['text_0-0', 'text_0-1'], ['some camomile tea', 'tea'])
>>> [(e.source, e.edge_role, e.target) for e in g.edges]
[('make_0', 'ARG1', 'tea'), ('make_0', 'next', 'give_1')]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from kgcore.core.graph import GroundedGraph, action_slug, is_proper_name, preferred_label, scoped_id
from kgcore.core.types import ACTION, ACTION_ACTION, NEXT, Edge, LocalEdge, Node, SentenceGraph

#: Sentence graphs merged between two progress reports of :func:`build_graph`.
PROGRESS_EVERY = 500


def with_next_edges(sg: SentenceGraph) -> SentenceGraph:
    """Return ``sg`` with ``next`` edges linking its actions in surface order."""
    actions = sorted((n for n in sg.nodes if n.node_type == ACTION), key=lambda n: n.order)
    existing = {(e.source, e.target, e.edge_role) for e in sg.edges}
    extra = tuple(
        LocalEdge(a.key, b.key, NEXT, ACTION_ACTION)
        for a, b in zip(actions, actions[1:])
        if (a.key, b.key, NEXT) not in existing
    )
    return replace(sg, edges=sg.edges + extra) if extra else sg


class _GraphBuilder:
    """Accumulates sentence graphs; see :func:`build_graph`."""

    def __init__(self, doc_id: str = "") -> None:
        self.doc_id = doc_id
        self.graph = GroundedGraph()
        self.edge_index: dict[tuple[str, str, str], Edge] = {}
        self.action_count = 0

    def add(self, sg: SentenceGraph) -> None:
        sg = with_next_edges(sg)
        ids = {n.key: self._add_node(n, sg.sentence_id) for n in sg.nodes}
        for e in sg.edges:
            if e.source in ids and e.target in ids:
                self._add_edge(ids[e.source], ids[e.target], e, sg.sentence_id)

    def _add_node(self, local, sentence_id: str) -> str:
        nodes = self.graph.nodes
        if local.node_type == ACTION or not local.merge_key:
            node_id = self._fresh_id(local.label)
        else:
            node_id = scoped_id(self.doc_id, local.merge_key, is_proper_name(local.label))
            if node_id in nodes and nodes[node_id].node_type == ACTION:
                node_id = f"{node_id} (entity)"
        node = nodes.get(node_id)
        if node is None:
            node = nodes[node_id] = Node(node_id, local.label, [], local.node_type, [])
        for text in local.texts:
            if text and text not in node.texts:
                node.texts.append(text)
        if sentence_id not in node.grounded_texts:
            node.grounded_texts.append(sentence_id)
        return node_id

    def _fresh_id(self, label: str) -> str:
        node_id = scoped_id(self.doc_id, f"{action_slug(label)}_{self.action_count}")
        self.action_count += 1
        return node_id

    def _add_edge(self, source: str, target: str, local: LocalEdge, sentence_id: str) -> None:
        key = (source, target, local.edge_role)
        edge = self.edge_index.get(key)
        if edge is None:
            edge = self.edge_index[key] = Edge(source, target, local.edge_role, local.edge_type, [])
            self.graph.edges.append(edge)
        if sentence_id not in edge.grounded_texts:
            edge.grounded_texts.append(sentence_id)


def build_graph(sentence_graphs: Sequence[SentenceGraph], doc_id: str = "",
                progress: Callable[[int, int], None] | None = None) -> GroundedGraph:
    """Merge sentence graphs (in document order) into one :class:`GroundedGraph` (ids scoped to ``doc_id``);
    ``progress(merged, total)`` every :data:`PROGRESS_EVERY` sentence graphs."""
    builder = _GraphBuilder(doc_id)
    for done, sg in enumerate(sentence_graphs, start=1):
        builder.add(sg)
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, len(sentence_graphs))
    for node in builder.graph.nodes.values():
        if node.node_type != ACTION:
            node.label = preferred_label(node.label, node.texts)
    return builder.graph
