"""What the Ask page draws of the graph by default: the part the answer used, small enough to read.

The seeds are the matched nodes that ground a sentence the answer **cites** (then, on "show more", the other
matches, best first); :func:`ui.subgraph_view.joining_paths` joins them by shortest paths and the picture is
capped at :data:`CAP` nodes, :data:`CAP` more per "show more".  Light verbs ("be", "have", "do", "use", "make",
"get" ...: :data:`LIGHT_VERBS`) carry almost no meaning in a grounded graph, where each occurrence is a node, so
they are never listed as matches nor drawn as nodes unless the question is about nothing else; a light-verb
node on a joining path is drawn as an edge between its arguments, labelled with the verb.

>>> is_light_verb("use"), is_light_verb("not have"), is_light_verb("use up"), is_light_verb("grow")
(True, True, True, False)
>>> from kgcore.core.graph import GroundedGraph
>>> from kgcore.core.types import Edge, Match, Node
>>> g = GroundedGraph({"ragas": Node("ragas", "RAGAS", ["RAGAS"], "entity", ["d/text_0-1"]),
...                    "use_0": Node("use_0", "use", ["uses"], "action", ["d/text_0-1"]),
...                    "metric": Node("metric", "metric", ["metrics"], "entity", ["d/text_0-1", "d/text_0-2"]),
...                    "faith": Node("faith", "faithfulness", ["faithfulness"], "entity", ["d/text_0-2"])},
...                   [Edge("use_0", "ragas", "ARG0", "action-entity", ["d/text_0-1"]),
...                    Edge("use_0", "metric", "ARG1", "action-entity", ["d/text_0-1"])])
>>> matches = [Match("q1", "use_0", "use", ["uses"], "action", 0.9, 0),
...            Match("q2", "metric", "metric", ["metrics"], "entity", 0.8, 0),
...            Match("q3", "ragas", "RAGAS", ["RAGAS"], "entity", 0.7, 0),
...            Match("q2", "faith", "faithfulness", ["faithfulness"], "entity", 0.5, 1)]
>>> [m.node_id for m in shown_matches(matches, g, keep_light=False)]
['metric', 'ragas', 'faith']
>>> answer_seeds(shown_matches(matches, g, False), g, cited={"d/text_0-1"})
(['metric', 'ragas'], ['faith'])
>>> collapse_light(g, ["metric", "ragas", "use_0"])
(['metric', 'ragas'], [('ragas', 'metric', 'use', ('d/text_0-1',))])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgcore.api import Match, SentenceGraph

#: Nodes the answer's subgraph draws at first, and how many more each "show more" adds.
CAP = 40
#: Verbs whose occurrences say little on their own (each is a node of the grounded graph).
LIGHT_VERBS = frozenset(
    "be have do use make get take give go come put set let keep become seem include involve provide allow need "
    "want try".split())


def is_light_verb(label: str) -> bool:
    """An action label whose verb is light ("use", "not have", "use up"): its first word after a negation."""
    words = [w for w in label.lower().split() if w != "not"]
    return bool(words) and words[0] in LIGHT_VERBS and len(words) <= 2


def about_light_verbs(query_graph: SentenceGraph | None) -> bool:
    """The question is about a light verb: its query graph has one and nothing else to match (no named or common
    entity, no other action)."""
    if query_graph is None:
        return False
    content = [n for n in query_graph.nodes if not n.is_unknown and n.merge_key or
               n.node_type == "action" and not is_light_verb(n.label)]
    light = [n for n in query_graph.nodes if n.node_type == "action" and is_light_verb(n.label)]
    return bool(light) and not content


def shown_matches(matches: Sequence[Match], graph, keep_light: bool) -> list[Match]:
    """The matches worth listing: light-verb actions left out unless ``keep_light``."""
    if keep_light:
        return list(matches)
    return [m for m in matches if not (m.node_type == "action" and is_light_verb(_label(graph, m)))]


def _label(graph, match: Match) -> str:
    node = graph.nodes.get(match.node_id)
    return node.label if node is not None else match.label


def answer_seeds(matches: Sequence[Match], graph, cited: Iterable[str]) -> tuple[list[str], list[str]]:
    """(matched nodes grounding a cited sentence, the other matched nodes), each best first, no repeats."""
    cited = set(cited)
    ranked = list(dict.fromkeys(m.node_id for m in sorted(matches, key=lambda m: -m.score)))
    grounding = [n for n in ranked if n in graph.nodes and cited & set(graph.nodes[n].grounded_texts)]
    chosen = set(grounding)
    return grounding, [n for n in ranked if n not in chosen]


def collapse_light(graph, node_ids: Sequence[str],
                   keep: Iterable[str] = ()) -> tuple[list[str], list[tuple[str, str, str, tuple[str, ...]]]]:
    """``node_ids`` without light-verb actions (but those in ``keep``), and for each one dropped an edge
    (source, target, verb, its sentences) from its agent (``ARG0``, else its first argument) to each other argument
    drawn."""
    keep = set(keep)
    light = [i for i in node_ids if i not in keep and i in graph.nodes and graph.nodes[i].node_type == "action"
             and is_light_verb(graph.nodes[i].label)]
    dropped = set(light)
    kept = [i for i in node_ids if i not in dropped]
    drawn = set(kept)
    extra = []
    for verb in light:
        args = [(e.edge_role, e.target) for e in graph.edges if e.source == verb and e.target in drawn]
        if len(args) < 2:
            continue
        agents = [t for role, t in args if role == "ARG0"] or [args[0][1]]
        node = graph.nodes[verb]
        extra += [(agents[0], t, node.label, tuple(node.grounded_texts)) for _, t in args if t != agents[0]]
    return kept, extra
