"""The graph communities are detected on: entity nodes of the grounded graph, linked through the actions they share.

Which nodes take part, and why:

* **Entity nodes only.**  Action nodes stay per occurrence (``give_12``), so a community of actions would be a
  community of single sentences; an entity ("Fund Manager", "Peter") is what a reader means by a topic.  Two
  entities are linked when one action has both as arguments (``ARG0 -> pay <- ARG1``) or when an
  ``entity-entity`` edge joins them; the weight counts such links.
* **Pronouns left out** ("we", "it", "you"): they are grounded everywhere and tie unrelated topics together.
* **Common nodes down-weighted**: every link is multiplied by the :func:`~kgcore.core.graph.specificity` of
  both ends (0.15 for a node grounded in every sentence, 1 for a rare one), so "Regulator", grounded in 2,886 of
  ObliQA's 29,895 sentences, still joins its rules but no longer glues every rulebook into one community.
* An action with more than :data:`MAX_ARGUMENTS` entity arguments links none (a parse of a list).
* Entities without any link are in no community.

>>> from kgcore.core.types import Edge, Node
>>> from kgcore.core.graph import GroundedGraph
>>> nodes = [Node("peter", "Peter", ["Peter"], "entity", ["t/text_0-0", "t/text_0-1"]),
...          Node("t/gate", "gate", ["gate"], "entity", ["t/text_0-0"]),
...          Node("t/we", "we", ["we"], "entity", ["t/text_0-1"]),
...          Node("t/open_0", "open", ["opened"], "action", ["t/text_0-0"])]
>>> edges = [Edge("t/open_0", "peter", "ARG0", "action-entity", ["t/text_0-0"]),
...          Edge("t/open_0", "t/gate", "ARG1", "action-entity", ["t/text_0-0"])]
>>> eg = entity_graph(GroundedGraph({n.node_id: n for n in nodes}, edges), 2)
>>> eg.nodes, [(eg.nodes[a], eg.nodes[b]) for a, b in eg.pairs.tolist()], eg.links.tolist()
(('peter', 't/gate'), [('peter', 't/gate')], [1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from kgcore.core.graph import GroundedGraph, is_pronoun_label, specificity
from kgcore.core.types import ACTION, ENTITY, ENTITY_ENTITY

#: An action with more entity arguments than this links none of them.
MAX_ARGUMENTS = 6


@dataclass(frozen=True)
class EntityGraph:
    """Entity nodes (sorted ids) and weighted undirected links between them (``pairs[i] = (a, b)``, ``a < b``)."""

    nodes: tuple[str, ...]
    pairs: np.ndarray
    weights: np.ndarray
    #: How many actions or entity-entity edges join each pair (before down-weighting).
    links: np.ndarray

    def adjacency(self) -> sparse.csr_matrix:
        """The symmetric weighted adjacency matrix over :attr:`nodes`."""
        n = len(self.nodes)
        a, b = (self.pairs[:, 0], self.pairs[:, 1]) if len(self.pairs) else (np.zeros(0, int), np.zeros(0, int))
        return sparse.csr_matrix((np.r_[self.weights, self.weights], (np.r_[a, b], np.r_[b, a])), shape=(n, n))

    def edge_list(self) -> list[tuple[str, str, float]]:
        """(source, target, weight) triples, the input of ``hierarchical_leiden``."""
        return [(self.nodes[a], self.nodes[b], float(w)) for (a, b), w in zip(self.pairs.tolist(), self.weights)]


def is_candidate(label: str) -> bool:
    """Whether an entity label may take part (pronouns and empty labels may not).

    >>> is_candidate("Fund Manager"), is_candidate("We"), is_candidate("  ")
    (True, False, False)
    """
    return bool(label.strip()) and not is_pronoun_label(label)


def entity_graph(graph: GroundedGraph, total_sentences: int) -> EntityGraph:
    """The community graph of ``graph`` (see the module docstring); deterministic for a given graph."""
    nodes = graph.nodes
    entities = {i for i, n in nodes.items() if n.node_type == ENTITY and is_candidate(n.label)}
    arguments: dict[str, set[str]] = {}
    counts: dict[tuple[str, str], int] = {}
    for edge in graph.edges:
        s, t = edge.source, edge.target
        if edge.edge_type == ENTITY_ENTITY:
            if s in entities and t in entities and s != t:
                key = (s, t) if s < t else (t, s)
                counts[key] = counts.get(key, 0) + 1
            continue
        for action, other in ((s, t), (t, s)):
            if other in entities and nodes[action].node_type == ACTION:
                arguments.setdefault(action, set()).add(other)
    for members in arguments.values():
        if 2 <= len(members) <= MAX_ARGUMENTS:
            ordered = sorted(members)
            for i, a in enumerate(ordered):
                for b in ordered[i + 1:]:
                    counts[(a, b)] = counts.get((a, b), 0) + 1
    used = sorted({x for pair in counts for x in pair})
    row = {node_id: i for i, node_id in enumerate(used)}
    keys = sorted(counts)
    pairs = np.array([(row[a], row[b]) for a, b in keys], dtype=np.int64).reshape(-1, 2)
    links = np.array([counts[k] for k in keys], dtype=np.int64)
    spec = np.asarray(specificity(np.array([len(nodes[i].grounded_texts) for i in used]), total_sentences),
                      dtype=np.float64).reshape(-1)
    weights = links * spec[pairs[:, 0]] * spec[pairs[:, 1]] if len(keys) else np.zeros(0)
    return EntityGraph(tuple(used), pairs, weights.astype(np.float64), links)
