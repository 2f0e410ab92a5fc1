"""The grounded graph: nodes by id and edges, each citing the sentences it was read from, and how graphs merge.

A :class:`GroundedGraph` is what every later step reads: the index stores one per document and one linked graph
per collection, retrieval matches question nodes against it, the app draws it.  Its rules (paper section
3.1/3.2):

* entity nodes with the same ``merge_key`` are one node; their ``texts`` and ``grounded_texts`` are unions;
* in a collection, ids are unique: actions and common-noun entities live in their document
  (``crusoe/give_12``, ``crusoe/father``: two novels' fathers are different people), while a proper name keeps
  its bare key (``peter``) so the same name in several documents is one node (:func:`scoped_id`);
* edges with the same (source, target, role) are one edge, their grounding unioned (:func:`merge_graphs`).

:func:`kgcore.index.graph.build_graph` builds a document's graph from its sentence graphs.

>>> from kgcore.core.types import Node
>>> g = GroundedGraph({"peter": Node("peter", "Peter", ["Peter"], "entity", ["a/text_0-0"])}, [])
>>> [n.label for n in g.nodes_in_sentence("a/text_0-0")], g.invariant_problems(["a/text_0-0"])
(['Peter'], [])
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from kgcore.core.streamed_json import members
from kgcore.core.types import ACTION, Edge, Node

_SLUG_RE = re.compile(r"[^a-z0-9']+")


#: Lowest specificity a node keeps, so the hero grounded in most sentences still counts a little.
MIN_SPECIFICITY = 0.15
#: Entity labels that name no one: pronouns, demonstratives, wh-words, indefinites.  An unresolved "I" is one node
#: for every speaker of a novel's dialogue; the community graph leaves these out and the explorer lists them last.
PRONOUN_LABELS = frozenset(
    "i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her "
    "hers herself it its itself they them their theirs themselves this that these those who whom which what one "
    "ones there here someone something anyone anything everyone everything nobody nothing".split())


def specificity(grounded: np.ndarray | int, total_sentences: int) -> np.ndarray | float:
    """How much a node tells about *which* sentence: an IDF scaled to [MIN_SPECIFICITY, 1].

    >>> float(specificity(1, 1000)), round(float(specificity(1000, 1000)), 2)
    (1.0, 0.15)
    """
    if total_sentences <= 1:
        return np.ones_like(np.asarray(grounded, dtype=float))
    idf = np.log(total_sentences / np.maximum(grounded, 1)) / np.log(total_sentences)
    return MIN_SPECIFICITY + (1 - MIN_SPECIFICITY) * np.clip(idf, 0.0, 1.0)


def is_pronoun_label(label: str) -> bool:
    """Whether an entity label names no one (:data:`PRONOUN_LABELS`).

    >>> is_pronoun_label(" We "), is_pronoun_label("something"), is_pronoun_label("Peter")
    (True, True, False)
    """
    return label.strip().lower() in PRONOUN_LABELS


def action_slug(label: str) -> str:
    """Readable id stem for an action label.

    >>> action_slug("not have")
    'not_have'
    """
    return _SLUG_RE.sub("_", label.lower()).strip("_") or "action"


def is_proper_name(label: str) -> bool:
    """Whether an entity label is a name (its first letter is a capital): parsers label common nouns by lemma.
    The unresolved first person "I" is not: it is whoever speaks, so it stays inside its document.

    >>> is_proper_name("Mr. McGregor"), is_proper_name("RAG"), is_proper_name("fir tree"), is_proper_name("1632")
    (True, True, False, False)
    >>> is_proper_name("I")
    False
    """
    first = next((ch for ch in label if ch.isalpha()), "")
    return first.isupper() and label.strip() != "I"


def preferred_label(label: str, texts: Iterable[str]) -> str:
    """The label a reader expects for an entity: a label in capitals ("CHRISTINE", first met in a chapter title
    or a shout) gives way to the first of the node's mentions that is the same words in ordinary case.  Acronyms
    written only in capitals stay.  The embedding model reads lower case, so the node's vector is unchanged.

    >>> preferred_label("CHRISTINE", ["CHRISTINE", "little Christine", "Christine"])
    'Christine'
    >>> preferred_label("ADGM", ["ADGM", "the ADGM"]), preferred_label("Peter", ["PETER", "Peter"])
    ('ADGM', 'Peter')
    """
    if not _in_capitals(label):
        return label
    wanted = label.casefold()
    return next((t for t in texts if t.casefold() == wanted and not _in_capitals(t)), label)


def _in_capitals(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return len(letters) > 1 and all(ch.isupper() for ch in letters)


def scoped_id(doc_id: str, key: str, proper: bool = False) -> str:
    """A node id unique in a collection: ``key`` inside ``doc_id`` unless it is a proper name.

    >>> scoped_id("crusoe", "father"), scoped_id("crusoe", "friday", proper=True), scoped_id("", "father")
    ('crusoe/father', 'friday', 'father')
    """
    return key if proper or not doc_id else f"{doc_id}/{key}"


@dataclass
class GroundedGraph:
    """A GroundedKG: nodes by id plus a list of edges, with lookup indexes."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._adjacency: dict[str, set[str]] | None = None

    # -- queries -----------------------------------------------------------
    def neighbors(self, node_id: str) -> set[str]:
        """Ids of nodes linked to ``node_id`` by an edge in either direction."""
        if self._adjacency is None:
            adjacency: dict[str, set[str]] = defaultdict(set)
            for e in self.edges:
                adjacency[e.source].add(e.target)
                adjacency[e.target].add(e.source)
            self._adjacency = adjacency
        return self._adjacency.get(node_id, set())

    def edges_of(self, node_id: str) -> list[Edge]:
        return [e for e in self.edges if node_id in (e.source, e.target)]

    def nodes_in_sentence(self, sentence_id: str) -> list[Node]:
        return [n for n in self.nodes.values() if sentence_id in n.grounded_texts]

    def edges_in_sentence(self, sentence_id: str) -> list[Edge]:
        return [e for e in self.edges if sentence_id in e.grounded_texts]

    def invariant_problems(self, sentence_ids: Iterable[str]) -> list[str]:
        """Violations of the grounding invariant (empty list when the graph is sound).

        Every node and edge must have non-empty ``grounded_texts``, every
        grounded id must name a stored sentence and every edge must join
        existing nodes.
        """
        known = set(sentence_ids)
        problems = []
        for n in self.nodes.values():
            if not n.grounded_texts:
                problems.append(f"node {n.node_id!r} has no grounded_texts")
            problems += [f"node {n.node_id!r} cites unknown sentence {s!r}" for s in n.grounded_texts if s not in known]
        for e in self.edges:
            name = f"edge {e.source!r}-{e.edge_role}->{e.target!r}"
            if not e.grounded_texts:
                problems.append(f"{name} has no grounded_texts")
            problems += [f"{name} cites unknown sentence {s!r}" for s in e.grounded_texts if s not in known]
            if e.source not in self.nodes or e.target not in self.nodes:
                problems.append(f"{name} joins a missing node")
        return problems

    # -- serialisation -----------------------------------------------------
    def to_node_link(self) -> dict:
        """networkx node-link data (``edges="links"``), readable by ``nx.node_link_graph``."""
        return {
            "directed": True,
            "multigraph": True,
            "graph": {},
            "nodes": [{"id": n.node_id, **n.to_dict()} for n in self.nodes.values()],
            "links": [{"key": i, **e.to_dict()} for i, e in enumerate(self.edges)],
        }

    @classmethod
    def from_node_link(cls, data: dict) -> GroundedGraph:
        nodes = {node.node_id: node for node in map(Node.from_dict, data["nodes"])}  # keys interned too
        edges = [Edge.from_dict(d) for d in data.get("links", data.get("edges", []))]
        return cls(nodes, edges)

    @classmethod
    def from_json(cls, text: str) -> GroundedGraph:
        """:meth:`from_node_link` of node-link JSON ``text``, built as it is read, one node and edge at a time
        (:mod:`~kgcore.core.streamed_json`: no parse tree of the whole graph, so no holes where it was).

        >>> g = GroundedGraph.from_json('{"nodes": [{"node_id": "a", "label": "A", "texts": ["A"], '
        ...     '"node_type": "entity", "grounded_texts": ["d/text_0-0"]}], "links": []}')
        >>> list(g.nodes), g.edges
        (['a'], [])
        """
        nodes: dict[str, Node] = {}
        arrays: dict[str, list[Edge]] = {}
        for key, row in members(text, ("nodes", "links", "edges")):
            if key == "nodes":
                node = Node.from_dict(row)
                nodes[node.node_id] = node
            elif key in ("links", "edges"):
                arrays.setdefault(key, []).append(Edge.from_dict(row))
        # an empty array gives nothing, so a graph without "nodes" reads as empty (the count checks of a load
        # name it) and edges under "edges" beside an empty "links" are read: kgcore writes neither
        return cls(nodes, arrays.get("links", arrays.get("edges", [])))


def merge_graphs(graphs: Iterable[GroundedGraph]) -> GroundedGraph:
    """One graph from several documents' graphs: nodes with the same id become one (texts and grounding unioned),
    and so do edges with the same (source, target, role).  Order: first appearance.

    >>> from kgcore.core.types import Edge, Node
    >>> a = GroundedGraph({"peter": Node("peter", "Peter", ["Peter"], "entity", ["a/text_0-0"])}, [])
    >>> b = GroundedGraph({"peter": Node("peter", "Peter", ["Peter", "little Peter"], "entity", ["b/text_0-2"])}, [])
    >>> merged = merge_graphs([a, b]).nodes["peter"]
    >>> merged.texts, merged.grounded_texts
    (['Peter', 'little Peter'], ['a/text_0-0', 'b/text_0-2'])
    """
    merged = GroundedGraph()
    edge_index: dict[tuple[str, str, str], Edge] = {}
    for graph in graphs:
        merge_into(merged, graph, edge_index)
    return merged


def merge_into(merged: GroundedGraph, graph: GroundedGraph,
               edge_index: dict[tuple[str, str, str], Edge] | None = None) -> list[str]:
    """Merge ``graph`` into ``merged`` in place, as :func:`merge_graphs` does; the ids of the nodes that were
    new to ``merged``.  ``edge_index`` ((source, target, role) → edge of ``merged``) is built when not given.

    >>> from kgcore.core.types import Node
    >>> merged = GroundedGraph({"peter": Node("peter", "Peter", ["Peter"], "entity", ["a/text_0-0"])}, [])
    >>> merge_into(merged, GroundedGraph({"b/pie": Node("b/pie", "pie", ["pie"], "entity", ["b/text_0-1"])}, []))
    ['b/pie']
    >>> list(merged.nodes)
    ['peter', 'b/pie']
    """
    if edge_index is None:
        edge_index = {(e.source, e.target, e.edge_role): e for e in merged.edges}
    added = []
    for node in graph.nodes.values():
        mine = merged.nodes.get(node.node_id)
        if mine is None:
            merged.nodes[node.node_id] = Node(node.node_id, node.label, list(node.texts), node.node_type,
                                              list(node.grounded_texts))
            added.append(node.node_id)
            continue
        _extend_unique(mine.texts, node.texts)
        _extend_unique(mine.grounded_texts, node.grounded_texts)
        if mine.node_type != ACTION:
            mine.label = preferred_label(mine.label, mine.texts)
    for edge in graph.edges:
        key = (edge.source, edge.target, edge.edge_role)
        if key not in edge_index:
            edge_index[key] = Edge(edge.source, edge.target, edge.edge_role, edge.edge_type, [])
            merged.edges.append(edge_index[key])
        _extend_unique(edge_index[key].grounded_texts, edge.grounded_texts)
    merged._adjacency = None  # edges may have changed
    return added


def _extend_unique(into: list[str], items: Iterable[str]) -> None:
    """Append the items not yet in ``into`` (nor earlier in ``items``), keeping order."""
    seen = set(into)
    for item in items:
        if item not in seen:
            seen.add(item)
            into.append(item)
