"""Who is someone: a name that does what only people do (say, think, love ...) is a person.

spaCy's small NER tags many of a novel's first names as organisations: in The Phantom of the Opera it gives ORG for
"Raoul", "Christine" and "Carlotta" in 11, 12 and 20 of 20 sentences sampled across the book, and zero-shot typing
by the name's vector did not overrule it.  The grounded graph knows better: the agent (``ARG0``) of "said",
"thought" or "loved" is someone.  A capitalised name, or a common noun, that is the agent of at least
:data:`MIN_ACTIONS` actions of :data:`ANIMATE_VERBS`, making up at least :data:`MIN_SHARE` of the actions it is the
agent of, is a person (:data:`CONFIDENCE`, above NER's, below a pattern's such as "Mr. X").  A talking rabbit is a
person too, as the entity type set's description says of acting animal characters; so are the characters a novel
never names ("the housekeeper said ...").  Zero-shot typing offers a common noun no person type, so without this
The Phantom of the Opera's mother, doctor and inspector were objects, and Crusoe's captain and savage objects or
concepts.

>>> from kgcore.core.types import Edge, Node
>>> from kgcore.core.graph import GroundedGraph
>>> acts = {f"{verb}_{i}": Node(f"{verb}_{i}", verb, [verb], "action", ["s"]) for i, verb in
...         enumerate(["say", "say", "think", "open", "close"])}
>>> names = {"raoul": Node("raoul", "Raoul", ["Raoul"], "entity", ["s"]),
...          "opera": Node("opera", "Opera", ["Opera"], "entity", ["s"])}
>>> edges = [Edge(a, "raoul", "ARG0", "action-entity", ["s"]) for a in acts] + \\
...         [Edge("open_3", "opera", "ARG1", "action-entity", ["s"])]
>>> g = GroundedGraph({**acts, **names}, edges)
>>> agent_counts(g, ["raoul", "opera"])
{'raoul': (5, 3)}
>>> people_by_roles(g, ["raoul", "opera"])
['raoul']
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.core.types import ACTION

#: Verbs whose doer is someone: speech, thought, feeling, perception and a few gestures.
ANIMATE_VERBS = frozenset("""
    say ask reply answer cry exclaim whisper murmur shout scream call tell speak talk declare repeat continue add
    stammer sob sigh groan moan laugh smile weep grin nod shrug
    think know believe feel love hate want wish hope fear dread remember forget wonder decide resolve promise beg
    pray thank forgive admire adore doubt suspect imagine dream understand mean intend
    see hear listen notice recognize recognise kiss marry
""".split())
#: Animate actions a name must be the agent of, and their least share of all the actions it is the agent of.
MIN_ACTIONS, MIN_SHARE = 3, 0.1
CONFIDENCE = 0.8


def agent_counts(graph, node_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
    """Per node of ``node_ids`` that is the agent of some action: (the actions, those of :data:`ANIMATE_VERBS`)."""
    wanted = set(node_ids)
    counts: dict[str, list[int]] = {}
    for edge in graph.edges:
        if edge.edge_role != "ARG0" or edge.target not in wanted:
            continue
        action = graph.nodes.get(edge.source)
        if action is None or action.node_type != ACTION:
            continue
        found = counts.setdefault(edge.target, [0, 0])
        found[0] += 1
        found[1] += action.label.lower() in ANIMATE_VERBS
    return {n: (c[0], c[1]) for n, c in counts.items()}


def people_by_roles(graph, node_ids: Sequence[str]) -> list[str]:
    """The nodes of ``node_ids`` the graph shows to be people (see the module docstring), in their order."""
    counts = agent_counts(graph, node_ids)
    return [n for n in node_ids if n in counts and counts[n][1] >= MIN_ACTIONS
            and counts[n][1] >= MIN_SHARE * counts[n][0]]
